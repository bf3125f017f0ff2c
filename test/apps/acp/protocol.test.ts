/**
 * ACP as clients speak it now, against the built `dsh-mode acp` child process driven by the SDK's client over its
 * pipes (every agent message is also checked against the SDK's JSON Schema by `spawnAcp`):
 * - the mode as a session config option, in step with the legacy modes both ways;
 * - `session/load` of an unknown session is -32002 resource-not-found;
 * - a mode switch's narration is replayed on load, as the user-role message the model saw;
 * - a signal ends the agent with its sessions closed: no stale lock, and the next process loads the session.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../engine/setup.js';
import { spawnAcp } from '../../reliability/acp-client.js';

const init = { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} };
type Update = Record<string, unknown> & { sessionUpdate: string };

/** The current value of the `mode` config option in a list of options. */
const modeOption = (options: unknown): string | undefined =>
  (options as { id: string; currentValue: string }[] | null | undefined)?.find((o) => o.id === 'mode')
    ?.currentValue;

/**
 * Runs one agent process in `dir` with `script`, hands the connected client to `body`, then closes stdin.
 * @returns the session updates the client saw, in order, and the exit code
 */
async function withAgent(
  dir: string,
  script: unknown[],
  body: (agent: acp.ClientContext) => Promise<void>,
  answer: 'allow' | 'reject' = 'allow',
): Promise<{ updates: Update[]; code: number | null; stderr: string }> {
  const file = join(dir, `.script-${Date.now()}-${Math.random()}.json`);
  writeFileSync(file, JSON.stringify(script));
  const { child, stream, exited, stderr } = spawnAcp(['--model-script', file], dir);
  const updates: Update[] = [];
  try {
    await acp
      .client({ name: 'acp-protocol-test' })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        updates.push(params.update as Update);
      })
      .onRequest(acp.methods.client.session.requestPermission, () => ({
        outcome: { outcome: 'selected', optionId: answer },
      }))
      .connectWith(stream, async (agent) => {
        await agent.request(acp.methods.agent.initialize, init);
        await body(agent);
      });
  } catch (error) {
    child.kill();
    throw new Error(`${(error as Error).message}\nstderr: ${stderr().slice(-2000)}`);
  }
  child.stdin.end();
  return { updates, code: await exited, stderr: stderr() };
}

/** The JSON-RPC error a request ends with (fails the test when it succeeds). */
async function rejection(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  const outcome = await request.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ error: error as { code: number; message: string } }),
  );
  if ('resolved' in outcome) throw new Error(`expected an error, got ${JSON.stringify(outcome.resolved)}`);
  return outcome.error;
}

describe('ACP session config options', () => {
  it('advertise the mode, follow set_config_option, set_mode and an approved plan, and survive a restart', async () => {
    const dir = tempDir('dsh-acp-config-');
    writeFileSync(join(dir, 'notes.md'), '# notes\n');
    const script = [
      { tool_calls: [{ name: 'write', arguments: { path: 'notes.md', content: 'x\n' } }] },
      { tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: '# Plan\n\n1. Write.\n' } }] },
      { text: 'Approved.' },
    ];
    let sessionId = '';
    const first = await withAgent(dir, script, async (agent) => {
      const created = await agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] });
      sessionId = created.sessionId;
      const [option] = created.configOptions!;
      expect(option).toMatchObject({ id: 'mode', category: 'mode', type: 'select', currentValue: 'default' });
      const values = (option as { options: { value: string }[] }).options.map((o) => o.value);
      expect(values).toEqual(created.modes!.availableModes.map((m) => m.id));

      // Bad requests change nothing.
      const set = (configId: string, value: string) =>
        agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId, value });
      const unknownId = await rejection(set('model', 'plan'));
      expect(unknownId.code).toBe(-32602);
      expect(unknownId.message).toContain('unknown config option `model`');
      const unknownValue = await rejection(set('mode', 'yolo'));
      expect(unknownValue.code).toBe(-32602);
      expect(unknownValue.message).toContain('unknown mode `yolo`; available modes: default, plan');
      const boolean = await rejection(
        agent.request(acp.methods.agent.session.setConfigOption, {
          sessionId,
          configId: 'mode',
          type: 'boolean',
          value: true,
        }),
      );
      expect(boolean.code).toBe(-32602);
      const elsewhere = await rejection(
        agent.request(acp.methods.agent.session.setConfigOption, {
          sessionId: 'nosuch',
          configId: 'mode',
          value: 'plan',
        }),
      );
      expect(elsewhere.code).toBe(-32002);

      // set_config_option behaves as set_mode: both updates, before the answer that carries the new value.
      const answer = await set('mode', 'plan');
      expect(modeOption(answer.configOptions)).toBe('plan');
      // A set_mode to the mode already chosen changes nothing and says nothing.
      await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' });
      const stop = await agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'write it' }],
      });
      expect(stop.stopReason).toBe('end_turn');
    });
    expect(first.code).toBe(0);
    const kinds = first.updates.map((u) => u.sessionUpdate);
    // plan (set_config_option), then default (the approved plan): each as a mode update and a config update.
    const modeUpdates = first.updates.filter((u) => u.sessionUpdate === 'current_mode_update');
    expect(modeUpdates.map((u) => u.currentModeId)).toEqual(['plan', 'default']);
    const configUpdates = first.updates.filter((u) => u.sessionUpdate === 'config_option_update');
    expect(configUpdates.map((u) => modeOption(u.configOptions))).toEqual(['plan', 'default']);
    for (const at of kinds.flatMap((k, i) => (k === 'current_mode_update' ? [i] : []))) {
      expect(kinds[at + 1]).toBe('config_option_update');
    }
    // The write in plan mode was denied; the approved exit_plan_mode ran (in_progress, then completed).
    const statuses = first.updates
      .filter((u) => u.sessionUpdate === 'tool_call_update')
      .map((u) => `${u.toolCallId as string}:${u.status as string}`);
    expect(statuses).toEqual(['call_1_1_1:failed', 'call_1_2_1:in_progress', 'call_1_2_1:completed']);
    // The denial is said to the user in words for them (the verdict's userReason), not as the model's advice.
    const denial = first.updates.find(
      (u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed',
    ) as unknown as { content: { content: { text: string } }[] };
    expect(denial.content[0]!.content.text).toContain('until you approve a plan');
    expect(denial.content[0]!.content.text).not.toContain('exit_plan_mode');

    // A fresh process: the legacy modes and the config option agree on the logged mode, and set_mode moves both.
    const second = await withAgent(dir, [], async (agent) => {
      const loaded = await agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: dir,
        mcpServers: [],
      });
      expect(loaded.modes?.currentModeId).toBe('default');
      expect(modeOption(loaded.configOptions)).toBe('default');
      await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' });
    });
    const tail = second.updates.slice(-2);
    expect(tail.map((u) => u.sessionUpdate)).toEqual(['current_mode_update', 'config_option_update']);
    expect(modeOption(tail[1]!.configOptions)).toBe('plan');
  });
});

describe('ACP session/load', () => {
  it('answers -32002 for a session that does not exist, and replays the narration of a mode switch', async () => {
    const dir = tempDir('dsh-acp-load-');
    let sessionId = '';
    const first = await withAgent(dir, [{ text: 'One.' }, { text: 'Two.' }], async (agent) => {
      const missing = await rejection(
        agent.request(acp.methods.agent.session.load, { sessionId: 'nosuch', cwd: dir, mcpServers: [] }),
      );
      expect(missing).toMatchObject({ code: -32002, message: 'Resource not found: no session `nosuch`' });
      ({ sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] }));
      const prompt = (text: string) =>
        agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
      await prompt('first');
      // An idle flip after the model was shown default mode: it lands with the next turn and is narrated.
      await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' });
      await prompt('second');
    });
    // Live, the narration is not sent: the client already has the mode update.
    expect(first.updates.some((u) => u.sessionUpdate === 'user_message_chunk')).toBe(false);

    const second = await withAgent(dir, [], async (agent) => {
      await agent.request(acp.methods.agent.session.load, { sessionId, cwd: dir, mcpServers: [] });
    });
    const users = second.updates
      .filter((u) => u.sessionUpdate === 'user_message_chunk')
      .map((u) => ({
        text: (u.content as { text: string }).text,
        context: (u._meta as Record<string, unknown> | undefined)?.['dsh-mode/context'] === true,
        messageId: u.messageId,
      }));
    expect(users.map(({ text, context }) => ({ text, context }))).toEqual([
      { text: 'first', context: false },
      { text: 'The user switched this session to plan mode.', context: true },
      { text: 'second', context: false },
    ]);
    // Each its own message, so a client does not run the narration into the prompt after it.
    expect(new Set(users.map((u) => u.messageId)).size).toBe(3);
  });
});

describe('ACP agent ended by a signal', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    '%s mid-turn closes the session: no stale lock, and a new process loads it',
    async (signal) => {
      const dir = tempDir('dsh-acp-signal-');
      const sessions = join(dir, '.dsh', 'sessions');
      const script = join(dir, 'script.json');
      writeFileSync(
        script,
        JSON.stringify([{ tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: '# Plan\n' } }] }]),
      );
      const { child, stream, exited, stderr } = spawnAcp(['--model-script', script], dir);
      let sessionId = '';
      let asked!: () => void;
      const waiting = new Promise<void>((resolve) => (asked = resolve));
      const run = acp
        .client({ name: 'acp-signal-test' })
        // The agent dies with this question open: it is never answered.
        .onRequest(acp.methods.client.session.requestPermission, () => {
          asked();
          return new Promise<never>(() => {});
        })
        .connectWith(stream, async (agent) => {
          await agent.request(acp.methods.agent.initialize, init);
          ({ sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] }));
          await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' });
          await agent.request(acp.methods.agent.session.prompt, {
            sessionId,
            prompt: [{ type: 'text', text: 'plan' }],
          });
        })
        .catch(() => 'connection closed');
      await waiting;
      expect(readdirSync(sessions)).toContain(`${sessionId}.lock`);
      child.kill(signal);
      expect(await exited).toBe(130);
      await run;
      expect(stderr()).toContain(`stopped by ${signal}`);
      expect(existsSync(join(sessions, `${sessionId}.lock`))).toBe(false);

      const next = await withAgent(dir, [], async (agent) => {
        const loaded = await agent.request(acp.methods.agent.session.load, {
          sessionId,
          cwd: dir,
          mcpServers: [],
        });
        // The plan was awaiting approval, so it was not approved: still plan mode.
        expect(loaded.modes?.currentModeId).toBe('plan');
      });
      expect(next.code).toBe(0);
      expect(next.stderr).not.toContain('stale lock');
    },
    120_000,
  );
});
