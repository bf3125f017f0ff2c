/**
 * The deciding rule travels with the verdict, and a denied call never shows its schema errors:
 * 1. In plan mode, `write` with invalid arguments gets plan's deny reason, not ajv's error (the call is judged
 *    before its arguments are validated).
 * 2. A real scripted session on a journal file (plan mode: a denied write, then an asked and approved exit):
 *    the file's `approval/asked` and the deny `tool/result` (as `data.rule`) name the rule with its
 *    file:line:column, and the model's `content` stays the plain reason.
 * 3. `dsh-mode acp` driven by the real ACP SDK client over pipes: the permission request's tool call and the
 *    `tool_call_update`s carry the rule as `_meta["dsh-mode/rule"]`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { spawnAcp } from './acp-client.js';
import type { SessionEvent } from '../../src/host/index.js';
import { agentOf, answerApprovals, eventsOf, planRule, setup, tempDir } from '../engine/setup.js';
import { measured } from './config.js';

const PLAN_WRITE_DENIED =
  'tool "write" is not available in plan mode; keep planning and present your plan with exit_plan_mode when ready';
const PLAN = '# Plan\n1. write x.txt\n';

/** The events of a journal file, as written on disk. */
function journal(file: string): SessionEvent[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SessionEvent);
}

describe('verdict rules: a denied call is judged before its arguments are checked', () => {
  it('gives write with invalid arguments the plan deny reason in plan mode, not the schema error', async () => {
    await measured('verdict', 'plan: invalid write arguments get the deny reason', null, async () => {
      const { ctx } = await setup();
      // The last two are not objects at all: the script type says objects, a real model need not.
      const calls = [{ path: 'x.txt' }, { path: 42, content: 'x' }, {}, 'not an object', null] as Record<
        string,
        unknown
      >[];
      const { agent } = agentOf(
        ctx,
        [
          { text: 'Writing.', tool_calls: calls.map((args) => ({ name: 'write', arguments: args })) },
          { text: 'Ok.' },
        ],
        { mode: 'plan' },
      );
      await agent.prompt('write it');
      const results = agent.session.events.filter((e) => e.type === 'tool/result');
      expect(results).toHaveLength(calls.length);
      for (const event of results) {
        expect(event.data).toMatchObject({ content: `Error: ${PLAN_WRITE_DENIED}`, isError: true });
        expect(JSON.stringify(event.data)).not.toMatch(/invalid arguments|must have required property/);
      }
      return { runs: calls.length, violations: 0, notes: 'missing, mistyped and non-object arguments' };
    });
  });

  it('still validates an ask before asking: the user is never asked about a call that cannot run', async () => {
    const { ctx } = await setup();
    const asked = answerApprovals(ctx, { outcome: 'allowed-once' });
    const { agent } = agentOf(
      ctx,
      [{ tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: 42 } }] }, { text: 'Ok.' }],
      { mode: 'plan' },
    );
    await agent.prompt('exit');
    expect(asked).toEqual([]);
    const result = agent.session.events.find((e) => e.type === 'tool/result');
    expect(result?.data).toMatchObject({
      isError: true,
      content: expect.stringMatching(/invalid arguments/),
    });
  });
});

describe('verdict rules: the journal names the deciding rule', () => {
  it('records the rule with file:line:column in approval/asked and in the deny tool/result', async () => {
    await measured('verdict', 'journal: the rule in approval/asked and the deny result', null, async () => {
      const { ctx } = await setup();
      const asked = answerApprovals(ctx, { outcome: 'allowed-once' });
      const session = ctx.sessions.create();
      const { agent } = agentOf(
        ctx,
        [
          { text: 'Writing.', tool_calls: [{ name: 'write', arguments: { path: 'x.txt', content: 'x' } }] },
          { text: 'Planning.', tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: PLAN } }] },
          { text: 'Done.' },
        ],
        { mode: 'plan' },
        session,
      );
      await agent.prompt('plan and write');
      expect(session.file).toBeTruthy();
      const events = journal(session.file!);
      const denied = eventsOf(events, 'tool/result').find((e) => e.data.name === 'write');
      const defaultRule = planRule('default');
      expect(defaultRule.line).toBeGreaterThan(1);
      expect(denied?.data).toEqual({
        callId: 'call_1_1_1',
        name: 'write',
        content: `Error: ${PLAN_WRITE_DENIED}`,
        isError: true,
        // The user's sentence rides beside the rule: the model's `content` says what to do next instead.
        data: {
          rule: defaultRule,
          userReason: 'tool "write" is not available in plan mode until you approve a plan',
        },
      });
      const question = events.find((e) => e.type === 'approval/asked');
      const exitRule = planRule('exit_plan_mode');
      expect(question?.data).toEqual({
        callId: 'call_1_2_1',
        toolName: 'exit_plan_mode',
        reason: "Leaving plan mode needs the user's approval of the plan.",
        rule: exitRule,
      });
      // The approver is told the same rule; the model's transcript shows none of it.
      expect(asked.map((request) => request.rule)).toEqual([exitRule]);
      const toolMessages = eventsOf(agent.session.events, 'tool/result');
      expect(toolMessages.map((e) => e.data.content).join('\n')).not.toContain('plan.yaml');
      return {
        runs: 2,
        violations: 0,
        notes: 'a denied write and an approved exit in plan mode, from the file',
      };
    });
  });
});

describe('verdict rules: ACP clients see the rule in _meta', () => {
  it('puts the rule on the permission request and on the tool_call_updates, to the real SDK client', async () => {
    await measured('verdict', 'acp: the rule in _meta for the SDK client', null, async () => {
      const dir = tempDir('dsh-verdict-');
      mkdirSync(join(dir, '.dsh'), { recursive: true });
      writeFileSync(
        join(dir, 'script.json'),
        JSON.stringify([
          { tool_calls: [{ name: 'write', arguments: { path: 'x.txt', content: 'x' } }] },
          { tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: PLAN } }] },
          { text: 'Done.' },
        ]),
      );
      const { child, stream, exited, stderr } = spawnAcp(['--model-script', join(dir, 'script.json')], dir);
      const updates: Record<string, unknown>[] = [];
      const asked: acp.RequestPermissionRequest[] = [];
      let stop: string | undefined;
      try {
        await acp
          .client({ name: 'verdict-rules' })
          .onNotification(acp.methods.client.session.update, ({ params }) => {
            updates.push(params.update as Record<string, unknown>);
          })
          .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
            asked.push(params);
            return { outcome: { outcome: 'selected', optionId: 'allow' } };
          })
          .connectWith(stream, async (agent) => {
            await agent.request(acp.methods.agent.initialize, {
              protocolVersion: 1,
              clientCapabilities: {},
            });
            const { sessionId } = await agent.request(acp.methods.agent.session.new, {
              cwd: dir,
              mcpServers: [],
            });
            await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' });
            const answer = await agent.request(acp.methods.agent.session.prompt, {
              sessionId,
              prompt: [{ type: 'text', text: 'plan it' }],
            });
            stop = answer.stopReason;
          });
      } catch (error) {
        child.kill();
        throw new Error(
          `the client lost the agent: ${(error as Error).message}\nstderr: ${stderr().slice(-2000)}`,
        );
      }
      expect(stop).toBe('end_turn');
      // The outcomes (in_progress, sent once an approved call starts, carries no rule).
      const results = updates.filter(
        (u) => u.sessionUpdate === 'tool_call_update' && u.status !== 'in_progress',
      );
      expect(results).toHaveLength(2);
      // Named as every output names the built-in plan, never by the package's absolute path.
      const shown = (selector: string) => ({ ...planRule(selector), file: 'dsh-mode:policies/plan.yaml' });
      expect(results[0]).toMatchObject({ status: 'failed', _meta: { 'dsh-mode/rule': shown('default') } });
      expect(asked).toHaveLength(1);
      expect(asked[0]!.toolCall._meta).toEqual({ 'dsh-mode/rule': shown('exit_plan_mode') });
      expect(results[1]).toMatchObject({
        status: 'completed',
        _meta: { 'dsh-mode/rule': shown('exit_plan_mode') },
      });
      // The journal the ACP session wrote holds the same rules.
      const sessions = join(dir, '.dsh', 'sessions');
      const [file] = readdirSync(sessions).filter((name) => name.endsWith('.jsonl'));
      const events = journal(join(sessions, file!));
      expect(events.find((e) => e.type === 'approval/asked')?.data).toMatchObject({
        rule: planRule('exit_plan_mode'),
      });
      // The permission request carries the plan as content, and the decision records its hash.
      expect(asked[0]!.toolCall.content).toEqual([
        { type: 'content', content: { type: 'text', text: PLAN } },
      ]);
      expect(events.find((e) => e.type === 'approval/decided')?.data).toEqual({
        callId: 'call_1_2_1',
        outcome: 'allowed-once',
        sha256: createHash('sha256').update(PLAN, 'utf8').digest('hex'),
        edited: false,
      });
      child.stdin.end();
      expect(await exited).toBe(0);
      return {
        runs: 3,
        violations: 0,
        notes: 'a denied write and an approved exit over the real SDK client',
      };
    });
  });
});
