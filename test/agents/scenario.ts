/**
 * The scenario every agent suite runs against the real adapter (issue 28): `dsh-mode install AGENT --project
 * --mode plan` into a scratch project with a `.env`, an operator policy (trusted `cordis.yml` + `policies/`) and a
 * git repository, then one session, in the agent's most permissive mode, where only dsh-mode stands between the
 * model and the workspace:
 *  1. `git status` runs in plan and its output reaches the model;
 *  2. `git status; rm README.md` is denied, README.md stays, and the model's reason quotes `rm README.md`;
 *  3. a write of notes.txt (Codex: an apply_patch) is denied and nothing is written;
 *  4. a read of `.env` is denied by the operator's rule, where the agent lets the hook see it;
 *  5. the user runs `dsh-mode mode default --agent AGENT --latest` (from the fake model's script, between two
 *     model turns, as a person would from a terminal), and the same write runs;
 * and `dsh-mode log` shows each decision with its rule, in the journal named by the session id the agent printed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import {
  type AgentDriver,
  dshMode,
  installDshMode,
  makeScratch,
  OPERATOR_REASON,
  runAgent,
  startFakeModel,
  toolResults,
  writeOperatorPolicy,
} from './harness.js';

/** Runs the scenario; `hookSeesRead` is false where the agent refuses the `.env` read before any hook. */
export async function dshScenario(driver: AgentDriver, mode: string, hookSeesRead: boolean): Promise<void> {
  const s = makeScratch();
  const notes = join(s.project, 'notes.txt');
  let switched: { code: number; stdout: string; stderr: string } | undefined;
  const fake = await startFakeModel({
    steps: [
      driver.shell('git status'),
      driver.shell('git status; rm README.md'),
      driver.write(notes, 'hello\n'),
      driver.read(join(s.project, '.env')),
      () => {
        switched ??= dshMode(s, ['mode', 'default', '--agent', driver.name, '--latest']);
        return driver.write(notes, 'hello\n');
      },
    ],
  });
  try {
    await driver.configure(s, fake, null);
    writeOperatorPolicy(s);
    const installed = await installDshMode(driver, s, fake, 'plan');
    expect(installed).toContain('new sessions start in plan mode');
    const run = await runAgent(driver, s, fake, { mode, timeoutMs: 180_000 });
    const context = `exit ${run.code} after ${run.ms} ms\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-3000)}`;
    expect(run.timedOut, context).toBe(false);
    expect(existsSync(join(s.project, 'README.md')), context).toBe(true);
    expect(switched?.code, `${context}\nmode: ${JSON.stringify(switched)}`).toBe(0);

    const results = toolResults(fake.mainRequests().at(-1)!);
    expect(results, context).toHaveLength(5);
    expect(results[0]!.text, context).toContain('On branch');
    expect(results[1]!.text).toContain('rm README.md');
    expect(results[1]!.text).toContain('dsh-mode');
    expect(results[1]!.text).not.toContain('On branch');
    expect(results[2]!.text).toContain('dsh-mode');
    expect(results[2]!.text).toContain('not available in plan mode');
    expect(results[3]!.text).not.toContain('hunter2');
    if (hookSeesRead) expect(results[3]!.text).toContain(OPERATOR_REASON);
    // After the user's switch the write ran.
    expect(readFileSync(notes, 'utf8'), context).toBe('hello\n');

    const log = dshMode(s, ['log', '--agent', driver.name, '--format', 'json']);
    expect(log.code, log.stderr).toBe(0);
    const journal = JSON.parse(log.stdout) as {
      events: Array<{ type: string; data: Record<string, unknown> }>;
    };
    const decisions = journal.events.filter((e) => e.type === 'hook/decision').map((e) => e.data);
    const summary = decisions.map(
      (d) => `${String(d.decision)} ${String(d.tool)} ${String(d.subject ?? '')}`,
    );
    const expected = [
      'allow bash git status',
      'deny bash git status; rm README.md',
      'deny write',
      ...(hookSeesRead ? ['deny'] : []),
      'allow write',
    ];
    expect(summary.length, JSON.stringify(summary)).toBe(expected.length);
    expected.forEach((e, i) => expect(summary[i]).toContain(e));
    for (const d of decisions)
      expect((d.rule as { selector?: unknown }).selector).toEqual(expect.any(String));
    expect(decisions[1]!.decidedBy).toBe('rm README.md');
    expect(decisions.at(-1)!.mode).toBe('default');
    const flips = journal.events.filter((e) => e.type === 'mode/flip');
    expect(flips.map((f) => f.data.by)).toEqual(['dsh-mode mode (the user)']);
    const text = dshMode(s, ['log', '--agent', driver.name]);
    expect(text.stdout).toContain('rm README.md');
    expect(text.stdout).toMatch(/deny +\S+ as bash/);
    expect(fake.egress).toEqual([]);
  } finally {
    await fake.close();
    s.cleanup();
  }
}
