/**
 * An `ask` on an argument rule shows what is being approved: the approval question names the command and the
 * sub-command and pattern that ask, in the chat (the binary, answers on piped stdin) and over ACP (the real SDK
 * client over pipes, on the `session/request_permission` tool call). The answer is no, so nothing runs.
 */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { spawnAcp } from '../../reliability/acp-client.js';

const BIN = resolve(import.meta.dirname, '../../../bin/dsh-mode.mjs');
const COMMAND = 'ls && make test';

/** A deployment whose `review` mode asks about `make`, and a model that runs COMMAND. */
function deployment(): { dir: string; config: string } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-ask-')));
  writeFileSync(
    join(dir, 'script.json'),
    JSON.stringify([{ tool_calls: [{ name: 'bash', arguments: { command: COMMAND } }] }, { text: 'Ok.' }]),
  );
  const config = join(dir, 'cordis.yml');
  writeFileSync(
    config,
    [
      '- name: host',
      '- name: mode',
      '  config:',
      '    modes:',
      '      review:',
      '        tools:',
      '          bash:',
      '            decision: deny',
      '            commands:',
      '              "ls **": allow',
      '              "make **": ask',
      '- name: scripted',
      '  config: { script: script.json }',
      '',
    ].join('\n'),
  );
  return { dir, config };
}

const ASKED = /"make test" matches `make \*\*` at .*cordis\.yml:11:15/;

describe('an ask shows the command and what in it asks', () => {
  it('in the chat: the question names the sub-command and the pattern', () => {
    const { dir, config } = deployment();
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.DEEPSEEK_API_KEY;
    const run = spawnSync(
      process.execPath,
      [BIN, 'chat', '--config', config, '--mode', 'review', '--prompt', 'build it'],
      { cwd: dir, input: 'n\n', encoding: 'utf8', env },
    );
    expect(run.status, run.stderr).toBe(0);
    const question = run.stdout.split('\n').find((line) => line.startsWith('Allow bash'));
    expect(question).toBeDefined();
    expect(question).toContain(COMMAND);
    expect(question).toMatch(ASKED);
    expect(run.stdout).toContain('→ rejected');
  });

  it('over ACP: the permission request shows the command in its title and the reason in its content', async () => {
    const { dir, config } = deployment();
    const { child, stream, exited, stderr } = spawnAcp(['--config', config], dir);
    const asked: acp.RequestPermissionRequest[] = [];
    try {
      await acp
        .client({ name: 'ask-shows-subject' })
        .onNotification(acp.methods.client.session.update, () => {})
        .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
          asked.push(params);
          return { outcome: { outcome: 'selected', optionId: 'reject' } };
        })
        .connectWith(stream, async (agent) => {
          await agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
          const { sessionId } = await agent.request(acp.methods.agent.session.new, {
            cwd: dir,
            mcpServers: [],
          });
          await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'review' });
          await agent.request(acp.methods.agent.session.prompt, {
            sessionId,
            prompt: [{ type: 'text', text: 'build it' }],
          });
        });
    } catch (error) {
      child.kill();
      throw new Error(
        `the client lost the agent: ${(error as Error).message}\nstderr: ${stderr().slice(-2000)}`,
      );
    }
    expect(asked).toHaveLength(1);
    const call = asked[0]!.toolCall;
    expect(call.title).toBe(`bash: ${COMMAND}`);
    const content = (call.content ?? []).map((c) => (c.type === 'content' ? c.content : undefined));
    expect(content).toHaveLength(1);
    const shown = content[0]?.type === 'text' ? content[0].text : '';
    expect(shown.startsWith(`${COMMAND}\n\n`)).toBe(true);
    expect(shown).toMatch(ASKED);
    child.stdin.end();
    expect(await exited).toBe(0);
  });
});
