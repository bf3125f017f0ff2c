/**
 * What each agent does when its pre-tool hook fails instead of answering (issue 28, "fail closed in every
 * dialect"), in its most permissive mode, where nothing but the hook stands between the model and
 * `git status; rm README.md`. Each row pins one verified fact about the pinned version: `blocked` says README.md
 * survived. A row that changes on a version bump is a fact docs/agents.md must change with.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type AgentDriver,
  type HookOptions,
  type HookRule,
  claudeCode,
  codex,
  gemini,
  hookCalls,
  makeScratch,
  opencode,
  runAgent,
  startFakeModel,
} from './harness.js';

interface Row {
  what: string;
  action: HookRule['action'] | 'broken-plugin';
  hook?: HookOptions;
  blocked: boolean;
  /** The run does not end by itself (the harness kills it at `timeoutMs`). */
  hangs?: boolean;
}

async function attempt(driver: AgentDriver, mode: string, row: Row) {
  const s = makeScratch();
  const fake = await startFakeModel({ steps: [driver.shell('git status; rm README.md')] });
  try {
    const action = row.action === 'broken-plugin' ? 'deny' : row.action;
    await driver.configure(
      s,
      fake,
      [{ match: 'rm README', action, reason: 'stand-in: `rm README.md` denied', ms: 20_000 }],
      { hookTimeoutSeconds: 2, ...row.hook },
    );
    // A plugin file that does not load: OpenCode starts without it.
    if (row.action === 'broken-plugin') {
      writeFileSync(
        join(s.project, '.opencode', 'plugin', 'stand-in.js'),
        'export const StandIn = async ( => {;\n',
      );
    }
    const run = await runAgent(driver, s, fake, { mode, timeoutMs: row.hangs ? 30_000 : 150_000 });
    return {
      run,
      blocked: existsSync(join(s.project, 'README.md')),
      calls: hookCalls(s).length,
      egress: fake.egress,
    };
  } finally {
    await fake.close();
    s.cleanup();
  }
}

function suite(driver: AgentDriver, mode: string, rows: Row[]) {
  describe(`${driver.name} (${mode})`, () => {
    it.each(rows)('$what', async (row) => {
      const r = await attempt(driver, mode, row);
      const context = `exit ${r.run.code}, ${r.run.ms} ms, hook calls ${r.calls}\n${r.run.stderr.slice(-1500)}`;
      expect(r.run.timedOut, context).toBe(row.hangs === true);
      expect(r.blocked, context).toBe(row.blocked);
      expect(r.calls, context).toBe(row.action === 'broken-plugin' ? 0 : 1);
      expect(r.egress).toEqual([]);
    });
  });
}

suite(claudeCode, 'bypassPermissions', [
  { what: 'onFailure "block": a crash (exit 1, a stack on stderr) blocks', action: 'crash', blocked: true },
  { what: 'onFailure "block": exit 2 with nothing on stderr blocks', action: 'exit2-silent', blocked: true },
  { what: 'onFailure "block": a timeout blocks', action: 'sleep', blocked: true },
  {
    what: 'onFailure "block": exit 0 with text that is not JSON lets the call run',
    action: 'garbage',
    blocked: false,
  },
  {
    what: 'without onFailure: a crash lets the call run',
    action: 'crash',
    hook: { onFailure: null },
    blocked: false,
  },
  {
    what: 'without onFailure: a timeout lets the call run',
    action: 'sleep',
    hook: { onFailure: null },
    blocked: false,
  },
  { what: '"ask" with no one to ask blocks (print mode)', action: 'ask', blocked: true },
]);

suite(codex, 'bypass', [
  { what: 'exit 2 with the reason on stderr blocks', action: 'exit2', blocked: true },
  { what: 'exit 2 with nothing on stderr lets the call run', action: 'exit2-silent', blocked: false },
  { what: 'a crash lets the call run', action: 'crash', blocked: false },
  { what: 'a timeout lets the call run', action: 'sleep', blocked: false },
  { what: '"ask" is unsupported and lets the call run', action: 'ask', blocked: false },
]);

suite(gemini, 'yolo', [
  { what: 'exit 2 with the reason on stderr blocks', action: 'exit2', blocked: true },
  { what: 'exit 2 with nothing on stderr lets the call run', action: 'exit2-silent', blocked: false },
  { what: 'a crash lets the call run', action: 'crash', blocked: false },
  { what: 'a timeout lets the call run', action: 'sleep', blocked: false },
  { what: '"ask" in a non-interactive run never returns', action: 'ask', blocked: true, hangs: true },
]);

suite(opencode, 'build', [
  { what: 'a hook that throws something other than a deny still blocks', action: 'crash', blocked: true },
  {
    what: 'a plugin file that does not load is skipped, and the call runs',
    action: 'broken-plugin',
    blocked: false,
  },
]);
