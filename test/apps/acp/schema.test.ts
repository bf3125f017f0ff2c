/**
 * The ACP test helper's schema check (test/reliability/acp-schema.ts) catches what it must: every ACP test relies
 * on it to fail on a malformed agent message, so it is tried here on messages that are wrong in one place each.
 */
import { describe, expect, it } from 'vitest';
import { AgentMessageChecker } from '../../reliability/acp-schema.js';

const update = (u: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId: 's1', update: u },
});
const option = {
  id: 'mode',
  name: 'Mode',
  category: 'mode',
  type: 'select',
  currentValue: 'plan',
  options: [{ value: 'plan', name: 'plan' }],
};

function problems(sent: unknown[], received: unknown[]): string[] {
  const checker = new AgentMessageChecker();
  for (const m of sent) checker.sent(m);
  for (const m of received) checker.received(m);
  return checker.problems;
}

describe('the ACP schema check of agent messages', () => {
  it('passes well-formed messages', () => {
    expect(
      problems(
        [{ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/', mcpServers: [] } }],
        [
          update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' }),
          update({ sessionUpdate: 'config_option_update', configOptions: [option] }),
          { jsonrpc: '2.0', id: 1, result: { sessionId: 's1', configOptions: [option] } },
          { jsonrpc: '2.0', id: 2, error: { code: -32002, message: 'Resource not found' } },
        ],
      ),
    ).toEqual([]);
  });

  it.each([
    [
      'a status ACP does not have',
      update({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'running' }),
    ],
    ['an unknown update kind', update({ sessionUpdate: 'mode_changed', mode: 'plan' })],
    [
      'a select without a current value',
      update({
        sessionUpdate: 'config_option_update',
        configOptions: [{ ...option, currentValue: undefined }],
      }),
    ],
    ['a method agents do not send', { jsonrpc: '2.0', method: 'session/mode_changed', params: {} }],
    ['no jsonrpc field', { method: 'session/update', params: { sessionId: 's', update: {} } }],
    ['an error without a message', { jsonrpc: '2.0', id: 3, error: { code: -32002 } }],
  ])('reports %s', (_name, message) => {
    expect(problems([], [JSON.parse(JSON.stringify(message))])).toHaveLength(1);
  });

  it('checks a result by the method of the request it answers', () => {
    const request = { jsonrpc: '2.0', id: 7, method: 'session/set_config_option', params: {} };
    expect(problems([request], [{ jsonrpc: '2.0', id: 7, result: {} }])).toHaveLength(1);
    expect(problems([request], [{ jsonrpc: '2.0', id: 7, result: { configOptions: [option] } }])).toEqual([]);
    const created = { jsonrpc: '2.0', id: 8, method: 'session/new', params: {} };
    expect(problems([created], [{ jsonrpc: '2.0', id: 8, result: { modes: null } }])).toHaveLength(1);
  });
});
