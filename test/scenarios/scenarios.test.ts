/**
 * Recorded ACP scenarios (issue 5, docs/apps.md): every folder under test/scenarios/ with an input.json
 * runs against the real built `dsh-mode acp` child process (see runner.ts). Each run is compared with its
 * goldens (traffic.golden.jsonl, session.golden.jsonl; refresh with `npm run scenarios -- --update`), and each
 * scenario's key facts are also asserted directly, so a wrong golden cannot pass silently.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScenario, type ScenarioResult, type TrafficEntry } from './runner.js';

const HERE = import.meta.dirname;
const names = readdirSync(HERE, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(HERE, entry.name, 'input.json')))
  .map((entry) => entry.name)
  .sort();

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown> & { update?: Record<string, unknown> };
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

const messages = (r: ScenarioResult): Message[] => r.traffic.map((t: TrafficEntry) => t.message as Message);
const updates = (r: ScenarioResult): Record<string, unknown>[] =>
  messages(r)
    .filter((m) => m.method === 'session/update')
    .map((m) => m.params!.update!);
const events = (r: ScenarioResult): { type: string; data: Record<string, unknown> }[] =>
  r.session
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
const modeSets = (r: ScenarioResult): unknown[] =>
  events(r)
    .filter((e) => e.type === 'mode/set')
    .map((e) => e.data.mode);
/** The responses to `method`'s requests: for each, the first later response with its id (ids restart per process). */
const responseTo = (r: ScenarioResult, method: string): Message[] => {
  const all = messages(r);
  const out: Message[] = [];
  all.forEach((m, i) => {
    if (m.method !== method || m.id === undefined) return;
    const response = all
      .slice(i + 1)
      .find((n) => n.method === undefined && n.id === m.id && ('result' in n || 'error' in n));
    if (response) out.push(response);
  });
  return out;
};

/** Facts each scenario must show, whatever its golden says. */
const checks: Record<string, (r: ScenarioResult) => void> = {
  'modes-advertise'(r) {
    const created = responseTo(r, 'session/new')[0]!.result!;
    expect(created.modes).toMatchObject({ currentModeId: 'default' });
    const ids = (created.modes as { availableModes: { id: string }[] }).availableModes.map((m) => m.id);
    expect(ids.slice(0, 2)).toEqual(['default', 'plan']);
    const failure = responseTo(r, 'session/set_mode')[0]!;
    expect(failure.error?.code).toBe(-32602);
    expect(failure.error?.message).toContain('`yolo`');
    expect(failure.error?.message).toContain('plan');
    const modeUpdates = updates(r).filter((u) => u.sessionUpdate === 'current_mode_update');
    expect(modeUpdates.map((u) => u.currentModeId)).toEqual(['plan', 'default']);
    // The config option `mode` offers the same modes and follows every change, right after each mode update.
    const [option] = created.configOptions as { id: string; category: string; currentValue: string }[];
    expect(option).toMatchObject({ id: 'mode', category: 'mode', type: 'select', currentValue: 'default' });
    expect((option as unknown as { options: { value: string }[] }).options.map((o) => o.value)).toEqual(ids);
    const kinds = updates(r).map((u) => u.sessionUpdate);
    expect(kinds.filter((k) => k === 'config_option_update')).toHaveLength(modeUpdates.length);
    const followed = updates(r).flatMap((u, i, all) =>
      u.sessionUpdate === 'current_mode_update'
        ? [(all[i + 1]?.configOptions as { currentValue: string }[] | undefined)?.[0]?.currentValue]
        : [],
    );
    expect(followed).toEqual(['plan', 'default']);
  },
  'plan-mode'(r) {
    const denied = updates(r).find((u) => u.status === 'failed');
    expect(JSON.stringify(denied)).toContain('not available in plan mode');
    const card = updates(r).find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'switch_mode');
    expect(card?.title).toBe('Shout option');
    const ask = messages(r).find((m) => m.method === 'session/request_permission');
    expect(ask?.params?.toolCall).toMatchObject({ toolCallId: card?.toolCallId });
    const names = (ask?.params?.options as { name: string; kind: string }[]).map(
      (o) => `${o.kind}:${o.name}`,
    );
    expect(names).toEqual(['allow_once:Approve plan', 'reject_once:Keep planning']);
    expect(modeSets(r)).toEqual(['plan', 'default']);
    const after = events(r).findIndex((e) => e.type === 'mode/set' && e.data.mode === 'default');
    const delta = events(r)
      .slice(after)
      .find((e) => e.type === 'request/header-delta');
    expect(JSON.stringify(delta?.data.added)).toContain('"write"');
    expect(
      updates(r)
        .filter((u) => u.sessionUpdate === 'current_mode_update')
        .map((u) => u.currentModeId),
    ).toEqual(['plan', 'default']);
    const writes = events(r).filter((e) => e.type === 'tool/result' && e.data.name === 'write');
    expect(writes.map((e) => e.data.isError)).toEqual([true, false]);
    expect(responseTo(r, 'session/prompt').map((m) => m.result?.stopReason)).toEqual([
      'end_turn',
      'end_turn',
    ]);
  },
  'plan-mode-reject'(r) {
    const decided = events(r).filter((e) => e.type === 'approval/decided');
    expect(decided.map((e) => e.data.outcome)).toEqual(['rejected', 'allowed-once']);
    expect(decided[0]!.data.feedback).toBe('Also add a test.');
    const firstExit = events(r).find((e) => e.type === 'tool/result' && e.data.name === 'exit_plan_mode');
    expect(firstExit?.data.isError).toBe(true);
    expect(String(firstExit?.data.content)).toContain('Also add a test.');
    const write = events(r).find((e) => e.type === 'tool/result' && e.data.name === 'write');
    expect(write?.data.isError).toBe(true);
    expect(modeSets(r)).toEqual(['plan', 'default']);
  },
  'plan-mode-resume'(r) {
    const loaded = responseTo(r, 'session/load')[0]!.result!;
    expect(loaded.modes).toMatchObject({ currentModeId: 'plan' });
    const write = events(r).find((e) => e.type === 'tool/result' && e.data.name === 'write');
    expect(write?.data.isError).toBe(true);
    expect(String(write?.data.content)).toContain('plan mode');
    expect(
      events(r)
        .filter((e) => e.type === 'request/header')
        .map((e) => e.data.reason),
    ).toEqual(['initial', 'resume']);
  },
  'default-mode'(r) {
    expect(modeSets(r)).toEqual([]);
    const header = events(r).find((e) => e.type === 'request/header')!.data.header as {
      system: string;
      tools: { name: string }[];
    };
    expect(header.tools.map((t) => t.name)).not.toContain('exit_plan_mode');
    expect(header.system).not.toMatch(/plan mode/i);
    const write = events(r).find((e) => e.type === 'tool/result' && e.data.name === 'write');
    expect(write?.data.isError).toBe(false);
    expect(updates(r).some((u) => u.sessionUpdate === 'current_mode_update')).toBe(false);
  },
  'user-flip'(r) {
    expect(
      updates(r)
        .filter((u) => u.sessionUpdate === 'current_mode_update')
        .map((u) => u.currentModeId),
    ).toEqual(['plan', 'default']);
    expect(modeSets(r)).toEqual(['plan', 'default']);
    const writes = events(r).filter((e) => e.type === 'tool/result' && e.data.name === 'write');
    expect(writes.map((e) => e.data.isError)).toEqual([false, true, false]);
    expect(events(r).filter((e) => e.type === 'context/message')).toHaveLength(2);
    const deltas = events(r).filter((e) => e.type === 'request/header-delta');
    expect(deltas.map((e) => JSON.stringify(e.data.removed ?? []).includes('"write"'))).toContain(true);
    expect(deltas.map((e) => JSON.stringify(e.data.added ?? []).includes('"write"'))).toContain(true);
  },
  'cancel-approval'(r) {
    expect(responseTo(r, 'session/prompt')[0]!.result?.stopReason).toBe('cancelled');
    expect(events(r).find((e) => e.type === 'approval/decided')?.data.outcome).toBe('cancelled');
    expect(modeSets(r)).toEqual(['plan']);
  },
};

describe('recorded ACP scenarios', () => {
  it('has a check for every scenario folder', () => {
    expect(Object.keys(checks).sort()).toEqual(names);
  });

  for (const name of names) {
    it(`${name}: matches its goldens and shows its key facts`, async () => {
      const result = await runScenario(join(HERE, name));
      checks[name]?.(result);
      // Every update of a turn is written before that turn's session/prompt response: nothing of the agent's
      // follows the response until the client sends its next request.
      const traffic = result.traffic;
      for (const response of responseTo(result, 'session/prompt')) {
        const at = traffic.findIndex((t) => t.message === response);
        const later = traffic.slice(at + 1);
        const nextRequest = later.findIndex((t) => t.dir === 'client→agent' && (t.message as Message).method);
        const gap = nextRequest === -1 ? later : later.slice(0, nextRequest);
        expect(gap.filter((t) => (t.message as Message).method === 'session/update')).toEqual([]);
      }
      // JSON Lines, one message per line: stable under prettier, and a diff names the message that changed.
      await expect(result.traffic.map((t) => JSON.stringify(t)).join('\n') + '\n').toMatchFileSnapshot(
        join(HERE, name, 'traffic.golden.jsonl'),
      );
      await expect(result.session).toMatchFileSnapshot(join(HERE, name, 'session.golden.jsonl'));
    });
  }
});
