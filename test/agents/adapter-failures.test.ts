/**
 * The real adapter failing, in each agent (issue 28, "fail closed in every dialect"): after `dsh-mode install
 * AGENT --mode plan`, the model asks for `git status; rm README.md` in the agent's most permissive mode, and the
 * hook is broken (a policy that no longer loads), killed (SIGKILL while it runs git's checks) or made to time out
 * (git's checks hang past the agent's hook time limit). A fake `git` first on the agent's PATH does the killing
 * and the hanging, only for the `git config --list` the hook's check runs; every other git command is the real one.
 *
 * `blocked` says README.md survived. Where an agent lets a failed hook's call run and offers no setting to change
 * that (Codex, Gemini CLI), the row pins it: docs/agents.md says so plainly. dsh-mode itself answers deny on every
 * error it can see (the `break` rows).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type AgentDriver,
  claudeCode,
  codex,
  gemini,
  installDshMode,
  makeScratch,
  opencode,
  runAgent,
  startFakeModel,
  toolResults,
  writeOperatorPolicy,
  type Scratch,
} from './harness.js';

type How = 'break' | 'kill' | 'timeout';
interface Row {
  how: How;
  blocked: boolean;
}

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

function fakeGit(s: Scratch, how: How): string {
  const bin = join(s.root, 'fake-bin');
  mkdirSync(bin, { recursive: true });
  const act = how === 'kill' ? 'kill -9 $PPID; sleep 5' : how === 'timeout' ? 'sleep 60' : ':';
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\nif [ "$1" = config ] && [ "$2" = --list ]; then ${act}; fi\nexec ${REAL_GIT} "$@"\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  return bin;
}

/** Shortens the registered hook's time limit (seconds), where the agent has one in its settings. */
function shortenTimeout(driver: AgentDriver, s: Scratch, seconds: number): void {
  const file = {
    'claude-code': join(s.project, '.claude', 'settings.json'),
    codex: join(s.project, '.codex', 'hooks.json'),
    gemini: join(s.project, '.gemini', 'settings.json'),
    opencode: undefined,
  }[driver.name];
  if (file === undefined) return;
  const settings = JSON.parse(readFileSync(file, 'utf8')) as {
    hooks: Record<string, Array<{ hooks: Array<{ timeout: number }> }>>;
  };
  const hook = Object.values(settings.hooks)[0]![0]!.hooks[0]!;
  hook.timeout = driver.name === 'gemini' ? seconds * 1000 : seconds;
  writeFileSync(file, JSON.stringify(settings, null, 2));
}

async function attempt(driver: AgentDriver, mode: string, how: How) {
  const s = makeScratch();
  const fake = await startFakeModel({ steps: [driver.shell('git status; rm README.md')] });
  try {
    await driver.configure(s, fake, null);
    writeOperatorPolicy(s);
    // The time limit is shortened before Codex's trust step: a changed hook is a new hook to Codex.
    await installDshMode(driver, s, fake, 'plan', () => how === 'timeout' && shortenTimeout(driver, s, 3));
    if (how === 'break')
      writeFileSync(join(s.project, 'policies', 'operator.yaml'), 'mode: plan\ntools: [not, a, map]\n');
    const path = `${fakeGit(s, how)}:${process.env.PATH}`;
    const cmd = driver.command(s, fake, mode, 'go');
    const drive = { ...driver, command: () => ({ ...cmd, env: { ...cmd.env, PATH: path } }) };
    const run = await runAgent(drive, s, fake, { mode, timeoutMs: 150_000 });
    const last = fake.mainRequests().at(-1);
    return {
      run,
      blocked: existsSync(join(s.project, 'README.md')),
      result: last ? (toolResults(last)[0]?.text ?? '') : '',
      egress: fake.egress,
    };
  } finally {
    await fake.close();
    s.cleanup();
  }
}

function suite(driver: AgentDriver, mode: string, rows: Row[]) {
  describe(`${driver.name} (${mode}) with dsh-mode's hook`, () => {
    it.each(rows)('$how: blocked $blocked', async (row) => {
      const r = await attempt(driver, mode, row.how);
      const context = `exit ${r.run.code}, ${r.run.ms} ms\nresult: ${r.result.slice(0, 600)}\nstderr: ${r.run.stderr.slice(-1500)}`;
      expect(r.run.timedOut, context).toBe(false);
      expect(r.blocked, context).toBe(row.blocked);
      // A broken policy is dsh-mode's own deny, with its reason.
      if (row.how === 'break') expect(r.result, context).toContain('cannot load');
      expect(r.egress).toEqual([]);
    });
  });
}

suite(claudeCode, 'bypassPermissions', [
  { how: 'break', blocked: true },
  { how: 'kill', blocked: true },
  { how: 'timeout', blocked: true },
]);
suite(codex, 'bypass', [
  { how: 'break', blocked: true },
  { how: 'kill', blocked: false },
  { how: 'timeout', blocked: false },
]);
suite(gemini, 'yolo', [
  { how: 'break', blocked: true },
  { how: 'kill', blocked: false },
  { how: 'timeout', blocked: false },
]);
// In process: there is no hook process to kill. A hang is bounded by the decision's own limits (git's checks stop
// at 10 s and then withhold the allow; the plugin's own limit is 20 s), and both deny.
suite(opencode, 'build', [
  { how: 'break', blocked: true },
  { how: 'timeout', blocked: true },
]);
