/**
 * `dsh-mode hook` decided in process (src/agents/hook.ts) and run as the binary: the session's modes, the
 * journal, each agent's dialect, and every failure answered with a deny.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  readdirSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideHook } from '../../../src/agents/hook.js';
import { journalPath, readAgentJournal } from '../../../src/agents/journal.js';
import { setSessionMode } from '../../../src/agents/session.js';
import { ROOT } from '../../cli/run.js';

let dir: string;
let ws: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-hook-')));
  ws = join(dir, 'project');
  mkdirSync(ws);
  writeFileSync(join(ws, 'README.md'), '# x\n');
  writeFileSync(join(ws, '.env'), 'SECRET=1\n');
  execFileSync('git', ['init', '-q'], { cwd: ws });
  env = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_CONFIG_HOME: join(dir, 'config'),
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function startIn(mode: string, agent = 'claude-code'): void {
  mkdirSync(join(ws, '.dsh', 'agents'), { recursive: true });
  writeFileSync(join(ws, '.dsh', 'agents', `${agent}.json`), JSON.stringify({ mode }));
}

const claude = (tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  session_id: 's1',
  cwd: ws,
  hook_event_name: 'PreToolUse',
  permission_mode: 'bypassPermissions',
  tool_name: tool,
  tool_input: input,
  ...extra,
});

async function decide(agent: 'claude-code' | 'codex' | 'gemini' | 'opencode', value: unknown) {
  return decideHook(agent, value, { cwd: ws, env });
}

describe('the session mode', () => {
  it('is default without an install: every call allowed, and journaled', async () => {
    const out = await decide('claude-code', claude('Bash', { command: 'rm -rf build' }));
    expect(out.reply).toEqual({ stdout: '{}\n', stderr: '', exitCode: 0, told: 'allow' });
    const { events } = readAgentJournal(journalPath(ws, 'claude-code', 's1'));
    expect(events.map((e) => e.type)).toEqual(['session/start', 'mode/set', 'hook/decision']);
  });

  it('starts in the mode install configured: plan allows git status and denies rm, quoting it', async () => {
    startIn('plan');
    const ok = await decide('claude-code', claude('Bash', { command: 'git status' }));
    expect(ok.answer.decision).toBe('allow');
    const no = await decide('claude-code', claude('Bash', { command: 'git status; rm README.md' }));
    expect(no.answer.decision).toBe('deny');
    const out = JSON.parse(no.reply.stdout) as { hookSpecificOutput: Record<string, string> };
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(out.hookSpecificOutput.permissionDecisionReason).toContain('"rm README.md"');
    expect(no.record).toMatchObject({ decidedBy: 'rm README.md', mode: 'plan', rule: { selector: 'bash' } });
  });

  it('denies in plan a tool no table knows, an MCP tool (no hints reach a hook) and a write, naming its path', async () => {
    startIn('plan');
    expect((await decide('claude-code', claude('Agent', { prompt: 'x' }))).answer.decision).toBe('deny');
    expect((await decide('claude-code', claude('mcp__gh__list_issues', {}))).answer.decision).toBe('deny');
    const write = await decide(
      'claude-code',
      claude('Write', { file_path: join(ws, 'a.txt'), content: 'x' }),
    );
    expect(write.answer.reason).toContain(JSON.stringify(join(ws, 'a.txt')));
    // Outside Claude Code's own plan mode the way out is the user's command.
    expect(write.answer.reason).toContain('dsh-mode mode default --agent claude-code --session s1');
  });

  it("takes Claude Code's plan permission mode as dsh-mode's plan, the stricter source winning", async () => {
    const out = await decide(
      'claude-code',
      claude('Write', { file_path: 'a.txt', content: 'x' }, { permission_mode: 'plan' }),
    );
    expect(out.answer.decision).toBe('deny');
    expect(out.record?.source).toBe('permission_mode plan');
    expect(out.answer.reason).toContain('ExitPlanMode');
    // Its plan approval asks (Claude Code asks its user), where the default mode alone would deny the exit.
    const exit = await decide(
      'claude-code',
      claude('ExitPlanMode', { plan: '# p' }, { permission_mode: 'plan' }),
    );
    expect(exit.answer.decision).toBe('ask');
  });

  it('leaves plan when Claude Code leaves its plan mode, and only then; dsh-mode mode changes it too', async () => {
    startIn('plan');
    await decide('claude-code', claude('Bash', { command: 'ls' }, { permission_mode: 'plan' }));
    const after = await decide(
      'claude-code',
      claude('Write', { file_path: 'a.txt', content: 'x' }, { permission_mode: 'acceptEdits' }),
    );
    expect(after.answer.decision).toBe('allow');
    const events = readAgentJournal(journalPath(ws, 'claude-code', 's1')).events;
    expect(
      events.filter((e) => e.type === 'mode/flip').map((e) => (e.data as { by: string }).by)[0],
    ).toContain('Claude Code left its plan mode');
    // A session that never was in Claude Code's plan stays in dsh-mode's plan until the user switches.
    const other = { ...claude('Write', { file_path: 'a.txt', content: 'x' }), session_id: 's2' };
    expect((await decide('claude-code', other)).answer.decision).toBe('deny');
    await setSessionMode({ agent: 'claude-code', workspace: ws, session: 's2' }, 'default', env);
    expect((await decide('claude-code', other)).answer.decision).toBe('allow');
  });

  it('refuses to set a mode the policies do not define', async () => {
    await expect(
      setSessionMode({ agent: 'codex', workspace: ws, session: 's9' }, 'plam', env),
    ).rejects.toThrow(/do not define the mode `plam`/);
  });
});

describe('the dialects', () => {
  it('Codex: allow is no output, deny carries a reason, an ask is a deny that says how to allow it, a bad patch is denied', async () => {
    startIn('plan', 'codex');
    const codex = (tool: string, command: string) => ({
      session_id: 'c1',
      cwd: ws,
      hook_event_name: 'PreToolUse',
      permission_mode: 'bypassPermissions',
      tool_name: tool,
      tool_input: { command },
    });
    expect((await decide('codex', codex('Bash', 'git status'))).reply).toEqual({
      stdout: '',
      stderr: '',
      exitCode: 0,
      told: 'allow',
    });
    const patch = await decide(
      'codex',
      codex('apply_patch', '*** Begin Patch\n*** Add File: notes.txt\n+hi\n*** End Patch\n'),
    );
    expect(JSON.parse(patch.reply.stdout).hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect(patch.record).toMatchObject({ tool: 'write', subject: 'notes.txt' });
    const bad = await decide('codex', codex('apply_patch', 'rm -rf /'));
    expect(JSON.parse(bad.reply.stdout).hookSpecificOutput.permissionDecisionReason).toContain(
      'the patch cannot be read',
    );
    // The exit asks in plan; Codex cannot ask from a hook.
    const ask = await decide('codex', codex('exit_plan_mode', ''));
    expect(ask.answer.decision).toBe('ask');
    expect(ask.reply.told).toBe('deny');
    expect(JSON.parse(ask.reply.stdout).hookSpecificOutput.permissionDecisionReason).toContain(
      'dsh-mode mode default --agent codex --session c1',
    );
  });

  it('Gemini: deny is decision/reason JSON; OpenCode: the answer the plugin throws on', async () => {
    startIn('plan', 'gemini');
    const gem = {
      session_id: 'g1',
      cwd: ws,
      hook_event_name: 'BeforeTool',
      tool_name: 'write_file',
      tool_input: { file_path: join(ws, 'x'), content: '' },
    };
    expect(JSON.parse((await decide('gemini', gem)).reply.stdout)).toMatchObject({ decision: 'deny' });
    startIn('plan', 'opencode');
    const oc = await decide('opencode', {
      input: { tool: 'bash', sessionID: 'ses_1', callID: 'c' },
      output: { args: { command: 'rm x' } },
    });
    expect(oc.answer.decision).toBe('deny');
  });
});

describe('failing closed', () => {
  it('denies, in each dialect, what it cannot read', async () => {
    for (const agent of ['claude-code', 'codex', 'gemini', 'opencode'] as const) {
      const out = await decide(agent, 'not an object');
      expect(out.answer.decision).toBe('deny');
      expect(out.answer.reason).toContain('dsh-mode could not decide this call');
    }
    expect(
      JSON.parse((await decide('claude-code', 42)).reply.stdout).hookSpecificOutput.permissionDecision,
    ).toBe('deny');
  });

  it('denies in plan when cordis.yml is untrusted, changed or broken, and when .dsh is a link', async () => {
    startIn('plan');
    writeFileSync(join(ws, 'cordis.yml'), '- name: host\n- name: demo\n- name: mode\n  config: {}\n');
    const untrusted = await decide('claude-code', claude('Bash', { command: 'git status' }));
    expect(untrusted.answer.decision).toBe('deny');
    expect(untrusted.answer.reason).toContain('is not trusted');
    const trust = spawnSync(process.execPath, [join(ROOT, 'bin/dsh-mode.mjs'), 'trust', 'cordis.yml'], {
      cwd: ws,
      env,
      encoding: 'utf8',
    });
    expect(trust.status, trust.stderr).toBe(0);
    expect((await decide('claude-code', claude('Bash', { command: 'git status' }))).answer.decision).toBe(
      'allow',
    );
    writeFileSync(
      join(ws, 'cordis.yml'),
      '- name: host\n- name: demo\n- name: mode\n  config: { policies: [nope] }\n',
    );
    expect((await decide('claude-code', claude('Bash', { command: 'git status' }))).answer.reason).toContain(
      'changed since you trusted it',
    );
    rmSync(join(ws, '.dsh'), { recursive: true });
    mkdirSync(join(dir, 'elsewhere'));
    symlinkSync(join(dir, 'elsewhere'), join(ws, '.dsh'));
    const linked = await decide('claude-code', claude('Bash', { command: 'ls' }));
    expect(linked.answer.decision).toBe('deny');
    expect(linked.answer.reason).toContain('symbolic link');
  });

  it('the binary answers garbage, an unknown agent and an oversized input with a deny, exit 2 always with stderr', () => {
    const bin = join(ROOT, 'bin/dsh-mode.mjs');
    const run = (args: string[], input: string) =>
      spawnSync(process.execPath, [bin, ...args], { cwd: ws, env, input, encoding: 'utf8' });
    const garbage = run(['hook', 'claude-code'], 'not json');
    expect(garbage.status).toBe(0);
    expect(JSON.parse(garbage.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    const gem = run(['hook', 'gemini'], '{');
    expect(JSON.parse(gem.stdout)).toMatchObject({ decision: 'deny' });
    const unknown = run(['hook', 'cursor'], '{}');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('needs an agent');
    const big = run(['hook', 'codex'], 'x'.repeat(9 * 1024 * 1024));
    expect(JSON.parse(big.stdout).hookSpecificOutput.permissionDecisionReason).toContain('larger than');
  });
  it('blocks with exit 2 and the reason on stderr when its answer cannot be written (stdout closed)', async () => {
    // An agent that stopped reading: a stream's write error would end the process with exit 1, which every agent
    // takes as "go on"; the JSON deny never arrives, so only exit 2 with a reason blocks the call.
    const input = JSON.stringify(claude('Bash', { command: 'rm README.md' }));
    for (const agent of ['claude-code', 'codex', 'gemini']) {
      startIn('plan', agent);
      const child = spawn(process.execPath, [join(ROOT, 'bin/dsh-mode-hook.cjs'), 'hook', agent], {
        cwd: ws,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdin.end(input);
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code, agent).toBe(2);
      expect(stderr, agent).toContain('denied');
    }
  });
});

describe('the hook command without its script', () => {
  it('still denies, in each form, with the reason on stderr', async () => {
    const { copyFileSync } = await import('node:fs');
    mkdirSync(join(dir, 'pkg', 'bin'), { recursive: true });
    for (const f of ['dsh-mode.mjs', 'dsh-mode-hook.cjs'])
      copyFileSync(join(ROOT, 'bin', f), join(dir, 'pkg', 'bin', f));
    const run = (agent: string, bin = 'dsh-mode-hook.cjs') =>
      spawnSync(process.execPath, [join(dir, 'pkg', 'bin', bin), 'hook', agent], {
        input: '{}',
        encoding: 'utf8',
        env,
      });
    const claudeOut = run('claude-code');
    expect(claudeOut.status).toBe(0);
    expect(JSON.parse(claudeOut.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    const codexOut = run('codex');
    expect(codexOut.status).toBe(2);
    expect(codexOut.stderr).toContain('its hook did not load');
    expect(JSON.parse(run('gemini').stdout)).toMatchObject({ decision: 'deny' });
    expect(run('gemini', 'dsh-mode.mjs').status).toBe(2);
  });

  it('runs through the code cache: the second call uses what the first wrote, and decides the same', () => {
    startIn('plan');
    const input = JSON.stringify(claude('Bash', { command: 'git status; rm README.md' }));
    const once = () =>
      spawnSync(process.execPath, [join(ROOT, 'bin', 'dsh-mode-hook.cjs'), 'hook', 'claude-code'], {
        cwd: ws,
        env,
        input,
        encoding: 'utf8',
      });
    const first = once();
    expect(readdirSync(join(dir, 'cache', 'dsh-mode', 'v8'))).toHaveLength(1);
    expect(once().stdout).toBe(first.stdout);
    expect(JSON.parse(first.stdout).hookSpecificOutput.permissionDecisionReason).toContain('rm README.md');
  });
});

describe('the journal tail', () => {
  it('folds to the mode the whole journal folds to, a mode/set written beside a decision included', async () => {
    const { appendAgentJournal, journalMode, readJournalTail } =
      await import('../../../src/agents/journal.js');
    const { statSync } = await import('node:fs');
    const file = journalPath(ws, 'codex', 't1');
    const whole = () => journalMode(readAgentJournal(file).events);
    appendAgentJournal(ws, file, [{ type: 'mode/set', data: { mode: 'plan' } }]);
    const seen = statSync(file).size;
    // A user's switch lands while a hook decides under plan: the hook's decision comes after it.
    appendAgentJournal(ws, file, [{ type: 'mode/set', data: { mode: 'default' } }]);
    const decision = (of: string, at: number) => ({
      type: 'hook/decision',
      data: { agentTool: 'Bash', of, seen: at, pad: 'x'.repeat(3000) },
    });
    appendAgentJournal(ws, file, [decision('plan', seen)]);
    expect(readJournalTail(file).mode).toBe(whole());
    expect(whole()).toBe('default');
    for (let i = 0; i < 60; i++) appendAgentJournal(ws, file, [decision('default', statSync(file).size)]);
    expect(readJournalTail(file).mode).toBe('default');
    appendAgentJournal(ws, file, [{ type: 'mode/set', data: { mode: 'review' } }]);
    expect(readJournalTail(file)).toMatchObject({ empty: false, mode: 'review' });
    expect(readJournalTail(file).lastDecision).toMatchObject({ of: 'default' });
    // A last line without its newline is a write in progress: not read.
    const { appendFileSync } = await import('node:fs');
    appendFileSync(file, '{"type":"mode/set","time":"t","data":{"mode":"x"}');
    expect(readJournalTail(file).mode).toBe('review');
    expect(readJournalTail(journalPath(ws, 'codex', 'none')).empty).toBe(true);
  });
});
