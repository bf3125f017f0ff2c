#!/usr/bin/env node
// `dsh-mode hook AGENT`, the command `dsh-mode install` registers (`node …/bin/dsh-mode-hook.cjs hook AGENT`), and
// what bin/dsh-mode.mjs runs for `hook AGENT`. A CommonJS script, so the process an agent starts before every
// tool call loads no ES module machinery: it runs dist/bundle/agents/hook.cjs through V8's code cache, kept in the
// user's cache folder (`$XDG_CACHE_HOME/dsh-mode/v8/`, default `~/.cache`), named by the script's size and time
// and Node's version. V8 checks the cache against the script's text and refuses one that does not fit, and then it
// is written again. It holds compiled code, never a decision; written after the decision, it also holds the
// functions the decision compiled. If the script cannot load, the call is still denied, in the agent's form, with
// the reason on stderr and exit 2 (a hook that just crashed would let the call run in Codex and Gemini CLI).
'use strict';
const {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = require('node:fs');
const { dirname, isAbsolute, join } = require('node:path');

const agent = process.argv[3];

/** The script compiled with the cache, and how to save the cache once it has run. */
function compiled(file) {
  const source = readFileSync(file, 'utf8');
  const xdg = process.env.XDG_CACHE_HOME;
  const home = process.env.HOME || require('node:os').homedir();
  const folder = join(xdg && isAbsolute(xdg) ? xdg : join(home, '.cache'), 'dsh-mode', 'v8');
  const stats = statSync(file);
  const cacheFile = join(folder, `hook-${stats.size}-${Math.trunc(stats.mtimeMs)}-${process.version}.bin`);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // none yet
  }
  const wrapper = '(function (exports, require, module, __filename, __dirname, __importPolicies) {';
  const { Script } = require('node:vm');
  const script = new Script(`${wrapper}${source}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const save = () => {
    if (cachedData !== undefined && !script.cachedDataRejected) return;
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const temp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
      renameSync(temp, cacheFile);
      // The caches of earlier builds or Node versions are never read again.
      for (const name of readdirSync(folder))
        if (name.startsWith('hook-') && name.endsWith('.bin') && join(folder, name) !== cacheFile)
          rmSync(join(folder, name), { force: true });
    } catch {
      // A cache that cannot be written costs time on the next call, never a decision.
    }
  };
  return { script, save };
}

async function run() {
  const folder = join(__dirname, '..', 'dist', 'bundle', 'agents');
  const file = join(folder, 'hook.cjs');
  const { script, save } = compiled(file);
  const module = { exports: {} };
  // Reading policies the long way, when the kept record is stale: its own ES module beside the script.
  const importPolicies = () => import(require('node:url').pathToFileURL(join(folder, 'policies.mjs')).href);
  const scriptRequire = require('node:module').createRequire(file);
  script.runInThisContext()(module.exports, scriptRequire, module, file, dirname(file), importPolicies);
  await module.exports.hookEntry(process.argv.slice(2));
  save();
}

run().catch((error) => {
  const reason = `dsh-mode could not decide this call, so it is denied: its hook did not load (${error?.message ?? error})`;
  // Written directly: a stream that cannot write (a closed pipe) would end the process with exit 1, which every
  // agent takes as "go on". When the answer cannot be written, exit 2 with the reason alone still blocks the call.
  const write = (fd, text) => {
    try {
      require('node:fs').writeSync(fd, text);
      return true;
    } catch {
      return false;
    }
  };
  let answered = true;
  if (agent === 'gemini') answered = write(1, `${JSON.stringify({ decision: 'deny', reason })}\n`);
  else if (agent === 'claude-code' || agent === 'codex') {
    const hookSpecificOutput = {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: reason,
    };
    answered = write(1, `${JSON.stringify({ hookSpecificOutput })}\n`);
  }
  write(2, `${reason}\n`);
  process.exitCode = agent === 'claude-code' && answered ? 0 : 2;
});
