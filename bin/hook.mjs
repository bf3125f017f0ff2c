// `dsh-mode hook AGENT`'s loader (bin/dsh-mode.mjs imports it): runs dist/bundle/agents/hook.cjs, one CommonJS
// script, through V8's code cache, since an agent starts this process before every tool call and compiling the
// script costs more than the rest of a decision. The cache is V8's own, kept in the user's cache folder
// (`$XDG_CACHE_HOME/dsh-mode/v8/`, default `~/.cache`) under the script's sha256 and Node's version; V8 checks it
// against the script and refuses one that does not fit, and then it is written again. It holds compiled code,
// never a decision. Written after the decision, so it also holds the functions the decision compiled.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const file = fileURLToPath(new URL('../dist/bundle/agents/hook.cjs', import.meta.url));
const source = readFileSync(file, 'utf8');
const xdg = process.env.XDG_CACHE_HOME;
const folder = join(
  xdg && isAbsolute(xdg) ? xdg : join(process.env.HOME || homedir(), '.cache'),
  'dsh-mode',
  'v8',
);
const key = createHash('sha256').update(source).update(process.version).digest('hex').slice(0, 32);
const cacheFile = join(folder, `hook-${key}.bin`);
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // none yet
}
const wrapper = '(function (exports, require, module, __filename, __dirname, __importPolicies) {';
const script = new Script(`${wrapper}${source}\n})`, {
  filename: file,
  ...(cachedData === undefined ? {} : { cachedData }),
});
const module = { exports: {} };
// Reading policies the long way, when the kept record is stale: its own ES module beside the script.
const importPolicies = () => import(new URL('../dist/bundle/agents/policies.mjs', import.meta.url).href);
script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), importPolicies);
await module.exports.hookEntry(process.argv.slice(2));
if (cachedData === undefined || script.cachedDataRejected) {
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
}
