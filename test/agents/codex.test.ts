/** Codex 0.169.0 with dsh-mode's PreToolUse hook, approvals and sandbox bypassed; and what its hook cannot see. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codex, hookCalls, makeScratch, runAgent, startFakeModel, toolResults } from './harness.js';
import { dshScenario } from './scenario.js';

describe('codex', () => {
  // A gap the docs must state: the hook sees the command that starts a process, never the text written to it.
  it('text written into a running command (write_stdin) never reaches the hook, so a denied command runs', async () => {
    const s = makeScratch();
    const fake = await startFakeModel({
      steps: [
        {
          call: {
            name: 'exec_command',
            args: { cmd: `sh -c 'read line; eval "$line"'`, tty: true, yield_time_ms: 500 },
          },
        },
        (record) => {
          const running = /session ID (\d+)/.exec(toolResults(record).at(-1)?.text ?? '');
          if (!running) return { text: 'the command did not keep running' };
          const args = { session_id: Number(running[1]), chars: 'rm README.md\n', yield_time_ms: 1000 };
          return { call: { name: 'write_stdin', args } };
        },
      ],
    });
    try {
      await codex.configure(s, fake, [{ match: 'rm README', action: 'deny', reason: 'denied' }]);
      const run = await runAgent(codex, s, fake, { mode: 'bypass', timeoutMs: 150_000 });
      expect(run.timedOut).toBe(false);
      const calls = hookCalls(s);
      expect(calls.map((c) => c.input.tool_name)).toEqual(['Bash']);
      expect(toolResults(fake.mainRequests().at(-1)!)).toHaveLength(2);
      expect(existsSync(join(s.project, 'README.md'))).toBe(false);
      expect(fake.egress).toEqual([]);
    } finally {
      await fake.close();
      s.cleanup();
    }
  });
});

describe('codex with dsh-mode install', () => {
  it('plan: git status runs, rm and the write are denied, .env stays out, dsh-mode mode default lets the write run, log shows it (bypass)', async () => {
    await dshScenario(codex, 'bypass', true);
  });
});
