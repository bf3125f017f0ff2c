/**
 * The sandbox from the verdict to the tool, through the real host: the gate carries a mode's `sandbox:
 * read-only` on an allowed or asked `bash` call, the runtime denies it where no sandbox can start (the probe runs
 * for real, with a PATH that has no `bwrap`), records the deny with its reason and the `sandbox` key as the rule,
 * and nothing runs; where the sandbox works, `bash` runs in it. A judge can add a requirement, never lift one.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModePlugin, type ModeConfig } from '../../src/engine/index.js';
import { sandboxSupport } from '../../src/host/sandbox/index.js';
import type { Agent, PreExecuteResult } from '../../src/host/index.js';
import { setup as hostSetup } from '../host/setup.js';
import { scratch } from '../host/sandbox/helpers.js';
import { agentOf, answerApprovals, eventsOf, PLAN_FILE, resultOf, tempDir } from './setup.js';

const MODES: ModeConfig = {
  modes: {
    boxed: { sandbox: 'read-only', tools: { bash: 'allow' }, default: 'deny' },
    asked: { sandbox: 'read-only', tools: { bash: 'ask' }, default: 'deny' },
    bare: { sandbox: 'none', tools: { bash: 'allow', write: 'allow' }, default: 'deny' },
  },
};

/** A PATH with no `bwrap` (nor anything else): the probe and the runner must refuse. */
function pathWithoutBwrap(): string {
  return mkdtempSync(join(tempDir('dsh-nopath-'), 'bin-'));
}

async function world(options: { sandbox: 'real' | 'missing' }) {
  const missing = { PATH: pathWithoutBwrap() };
  const host = await hostSetup({
    // The workspace lies outside /tmp, so a marker planted beside it is not hidden by the sandbox's own /tmp.
    workspace: scratch('gate-'),
    ...(options.sandbox === 'missing' ? { sandboxSupport: () => sandboxSupport({ hostEnv: missing }) } : {}),
  });
  await host.ctx.plugin(ModePlugin, MODES);
  const run = async (mode: string, command: string, answer = false): Promise<Agent> => {
    if (answer) answerApprovals(host.ctx, { outcome: 'allowed-once' });
    const { agent } = agentOf(
      host.ctx,
      [{ tool_calls: [{ name: 'bash', arguments: { command } }] }, { text: 'done' }],
      { mode },
    );
    await agent.prompt('go');
    return agent;
  };
  return { ...host, run };
}

describe('a mode that requires a sandbox where none can start', () => {
  it('denies bash at the gate with how to install one, records the deny, and nothing runs', async () => {
    const { run, workspace } = await world({ sandbox: 'missing' });
    const marker = join(workspace, '..', 'ran-boxed');
    const agent = await run('boxed', `touch ${marker}`);
    const result = resultOf(agent.session.events, 'bash')!;
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Error: tool "bash" must run in a read-only OS sandbox in this mode/);
    expect(result.content).toContain('bubblewrap (`bwrap`) is not on the PATH');
    expect(result.content).toContain('Install bubblewrap: `sudo apt-get install bubblewrap`');
    expect(result.data?.rule).toMatchObject({ selector: 'sandbox' });
    expect(existsSync(marker)).toBe(false);
  });

  it('runs the same command in a mode with `sandbox: none` (the test can fail)', async () => {
    const { run, workspace } = await world({ sandbox: 'missing' });
    const marker = join(workspace, '..', 'ran-bare');
    const agent = await run('bare', `touch ${marker}`);
    expect(resultOf(agent.session.events, 'bash')!.isError).toBe(false);
    expect(existsSync(marker)).toBe(true);
  });

  it('denies an asked call before asking', async () => {
    const { run, workspace, ctx } = await world({ sandbox: 'missing' });
    const asked: unknown[] = [];
    ctx.on('approval/request', async (request) => {
      asked.push(request);
      return { outcome: 'allowed-once' };
    });
    const marker = join(workspace, '..', 'ran-asked');
    const agent = await run('asked', `touch ${marker}`);
    expect(resultOf(agent.session.events, 'bash')!.content).toMatch(/none can start on this machine/);
    expect(asked).toEqual([]);
    expect(eventsOf(agent.session.events, 'approval/asked')).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it('denies plan’s allowed `ls` with the built-in plan.yaml as the rule', async () => {
    const { run } = await world({ sandbox: 'missing' });
    const agent = await run('plan', 'ls');
    const result = resultOf(agent.session.events, 'bash')!;
    expect(result.isError).toBe(true);
    expect(result.content).toContain(`\`sandbox: read-only\` at ${PLAN_FILE}:`);
    expect(result.data?.rule).toMatchObject({ selector: 'sandbox', file: PLAN_FILE });
  });
});

describe('a mode that requires a sandbox where it works', () => {
  it('runs bash in the read-only sandbox: it reads the workspace and cannot write it', async () => {
    const { run, workspace } = await world({ sandbox: 'real' });
    writeFileSync(join(workspace, 'notes.txt'), 'b\na\n');
    const sorted = resultOf((await run('boxed', 'sort notes.txt')).session.events, 'bash')!;
    expect(sorted).toMatchObject({ isError: false, content: 'a\nb\n\n[exit code 0; read-only sandbox]' });
    const write = resultOf((await run('boxed', 'echo x > notes.txt')).session.events, 'bash')!;
    expect(write.isError).toBe(true);
    expect(write.content).toMatch(/Read-only file system/);
    const plan = resultOf((await run('plan', 'sort notes.txt')).session.events, 'bash')!;
    expect(plan.content).toBe('a\nb\n\n[exit code 0; read-only sandbox]');
  });

  it('runs an approved ask in the sandbox too', async () => {
    const { run, workspace } = await world({ sandbox: 'real' });
    const agent = await run('asked', `touch ${join(workspace, 'x')}`, true);
    const result = resultOf(agent.session.events, 'bash')!;
    expect(result.content).toMatch(/Read-only file system[\s\S]*read-only sandbox\]$/);
    expect(existsSync(join(workspace, 'x'))).toBe(false);
  });

  it('keeps running bare in a mode with `sandbox: none`', async () => {
    const { run, workspace } = await world({ sandbox: 'real' });
    const agent = await run('bare', 'echo x > made.txt');
    expect(resultOf(agent.session.events, 'bash')).toMatchObject({ isError: false });
    expect(existsSync(join(workspace, 'made.txt'))).toBe(true);
  });
});

describe('judges add a sandbox, never lift one', () => {
  const judge = (ctx: import('cordis').Context, agent: Agent) =>
    ctx.tools.judge({ callId: 'c', name: 'bash', arguments: { command: 'ls' }, agent });

  it('a pre-execute allow without a sandbox keeps the gate’s', async () => {
    const { ctx, run } = await world({ sandbox: 'real' });
    ctx.on('tools/pre-execute', async () => ({ kind: 'allow' }));
    const agent = await run('boxed', 'true');
    expect(await judge(ctx, agent)).toMatchObject({ kind: 'allow', sandbox: { kind: 'read-only' } });
  });

  it('a pre-execute listener can require one in a bare mode', async () => {
    const { ctx, run, workspace } = await world({ sandbox: 'real' });
    ctx.on('tools/pre-execute', async () => ({ kind: 'allow', sandbox: { kind: 'read-only' } }));
    const agent = await run('bare', 'echo x > made.txt');
    expect(resultOf(agent.session.events, 'bash')!.content).toMatch(/read-only sandbox\]$/);
    expect(existsSync(join(workspace, 'made.txt'))).toBe(false);
  });

  it('a tool that cannot run in a sandbox is refused when one is required, and nothing runs', async () => {
    const { ctx, workspace } = await world({ sandbox: 'real' });
    ctx.on('tools/pre-execute', async () => ({ kind: 'allow', sandbox: { kind: 'read-only' } }));
    const { agent } = agentOf(
      ctx,
      [{ tool_calls: [{ name: 'write', arguments: { path: 'w.txt', content: 'x' } }] }, { text: 'done' }],
      { mode: 'bare' },
    );
    await agent.prompt('go');
    expect(resultOf(agent.session.events, 'write')).toMatchObject({
      isError: true,
      content:
        'Error: `write` must run in a read-only OS sandbox here, and this tool cannot, so it was denied and nothing ran',
    });
    expect(existsSync(join(workspace, 'w.txt'))).toBe(false);
  });

  it('a malformed requirement denies', async () => {
    const { ctx, run } = await world({ sandbox: 'real' });
    ctx.on(
      'tools/pre-execute',
      async () => ({ kind: 'allow', sandbox: { kind: 'loose' } }) as unknown as PreExecuteResult,
    );
    const agent = await run('bare', 'true');
    expect((await judge(ctx, agent)).kind).toBe('deny');
  });
});
