/**
 * The smoke test every agent suite runs (issue 28): in the agent's most permissive mode, the model runs
 * `git status`, then `git status; rm README.md`; the stand-in hook denies the second with a reason. The test
 * holds that the first ran and its output reached the model, that README.md is still there, that the model got
 * the deny reason as the second call's result, that the hook saw the command under the agent's own tool name
 * and the session id the agent prints, and that nothing tried to leave the machine.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import {
  type AgentDriver,
  hookCalls,
  makeScratch,
  runAgent,
  startFakeModel,
  toolResults,
} from './harness.js';

/** The deny reason, quoting the sub-command, as `dsh-mode hook` will. */
export const REASON = 'stand-in hook: `rm README.md` is denied (smoke test)';

/** Runs the smoke scenario; `toolName` reads the agent's tool name from one hook input. */
export async function smoke(
  driver: AgentDriver,
  mode: string,
  toolName: (input: Record<string, unknown>) => unknown,
  shellName: string,
): Promise<void> {
  const s = makeScratch();
  const fake = await startFakeModel({
    steps: [driver.shell('git status'), driver.shell('git status; rm README.md')],
  });
  try {
    await driver.configure(s, fake, [{ match: 'rm README', action: 'deny', reason: REASON }]);
    const run = await runAgent(driver, s, fake, { mode, timeoutMs: 150_000 });
    const context = `exit ${run.code} after ${run.ms} ms\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-2000)}`;
    expect(run.timedOut, context).toBe(false);
    expect(existsSync(join(s.project, 'README.md')), context).toBe(true);

    // The model's last request carries the results of both calls, in order.
    const last = fake.mainRequests().at(-1);
    expect(last, context).toBeDefined();
    const results = toolResults(last!);
    expect(results, context).toHaveLength(2);
    expect(results[0]!.text).toContain('On branch');
    expect(results[1]!.text).toContain(REASON);
    expect(results[1]!.text).not.toContain('On branch');

    const calls = hookCalls(s);
    const rm = calls.find((c) => JSON.stringify(c.input).includes('rm README.md'));
    expect(rm, JSON.stringify(calls)).toBeDefined();
    expect(toolName(rm!.input)).toBe(shellName);
    // The session id the hook gets is the one the agent prints, which a user gives `dsh-mode mode --session`.
    const printedId = driver.printedSession(run.stdout);
    expect(printedId, context).toMatch(/\S/);
    expect(calls.map((c) => driver.hookSession(c.input))).toEqual(calls.map(() => printedId));

    expect(fake.egress).toEqual([]);
  } finally {
    await fake.close();
    s.cleanup();
  }
}

/** Reasons the write-and-read scenario's hook gives. */
export const WRITE_REASON = 'stand-in hook: writing notes.txt is denied (smoke test)';
export const READ_REASON = 'stand-in hook: reading .env is denied (smoke test)';

/**
 * The write-and-read scenario: the model writes notes.txt, then reads .env; the hook denies both. The test holds
 * that nothing was written and the model got the write's deny reason, and, where the agent lets the hook see the
 * read (`hookSeesRead`), that the model got the read's deny reason and not the secret. Where it does not, it holds
 * that the hook never saw the read and the secret still did not reach the model (the agent refused it itself).
 */
export async function writeAndRead(driver: AgentDriver, mode: string, hookSeesRead: boolean): Promise<void> {
  const s = makeScratch();
  const fake = await startFakeModel({
    steps: [driver.write(join(s.project, 'notes.txt'), 'hello\n'), driver.read(join(s.project, '.env'))],
  });
  try {
    await driver.configure(s, fake, [
      { match: 'notes\\.txt', action: 'deny', reason: WRITE_REASON },
      { match: '\\.env', action: 'deny', reason: READ_REASON },
    ]);
    const run = await runAgent(driver, s, fake, { mode, timeoutMs: 150_000 });
    const context = `exit ${run.code} after ${run.ms} ms\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-2000)}`;
    expect(run.timedOut, context).toBe(false);
    expect(existsSync(join(s.project, 'notes.txt')), context).toBe(false);

    const results = toolResults(fake.mainRequests().at(-1)!);
    expect(results, context).toHaveLength(2);
    expect(results[0]!.text).toContain(WRITE_REASON);
    expect(results[1]!.text).not.toContain('hunter2');
    const sawRead = hookCalls(s).some((c) => JSON.stringify(c.input).includes('.env'));
    expect(sawRead).toBe(hookSeesRead);
    if (hookSeesRead) expect(results[1]!.text).toContain(READ_REASON);
    expect(fake.egress).toEqual([]);
  } finally {
    await fake.close();
    s.cleanup();
  }
}
