/**
 * Path rules against the bypasses peers' file rules fell to: a symlink inside the workspace pointing out, `..`
 * through a symlink, absolute paths, case variants, repeated slashes and `./`, a symlink loop, and MCP tools that
 * name their path argument differently. Everything is real: the policy is loaded from YAML text through the
 * loader, compiled, and decided by `authorize()` with the real-filesystem resolver over a temp workspace with
 * real symlinks.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicies } from '../../src/compile/decide/compile.js';
import { fsPathResolver } from '../../src/compile/decide/fs-path-resolver.js';
import { loadPolicyText } from '../../src/compile/language/load.js';
import { authorize } from '../../src/engine/authorize.js';
import { agentOf, setup } from '../engine/setup.js';
import { measured } from './config.js';

const POLICY = `
mode: guarded
tools:
  read:
    decision: allow
    paths:
      ".env*": deny
      "secrets/**": deny
  write:
    decision: deny
    paths:
      "notes/**": allow
  mcp__fs__write_file:
    decision: deny
    argument: file_path
    paths:
      "notes/**": allow
default: deny
`;

let base: string;
let ws: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-arg-paths-')));
  ws = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(ws, 'notes'), { recursive: true });
  mkdirSync(join(ws, 'secrets'));
  mkdirSync(outside);
  writeFileSync(join(ws, '.env'), 'KEY=1');
  writeFileSync(join(ws, 'secrets', 'key'), 'k');
  symlinkSync(outside, join(ws, 'notes', 'out')); // inside `notes/`, pointing out of the workspace
  symlinkSync('../secrets', join(ws, 'notes', 'sec')); // inside `notes/`, pointing at a denied folder
  symlinkSync('../.env', join(ws, 'notes', 'env')); // a link named innocently to a denied file
  symlinkSync('loop-b', join(ws, 'notes', 'loop-a'));
  symlinkSync('loop-a', join(ws, 'notes', 'loop-b'));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

function policies() {
  const load = loadPolicyText(POLICY, 'guarded.yaml');
  expect(load.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return compilePolicies(load.documents);
}

describe('hostile: path rules cannot be bypassed', () => {
  it('never allows a write outside `notes/` or a read of a denied file, however the path is spelt', async () => {
    await measured('hostile', 'paths: symlinks, .., absolute, case and spelling bypasses', null, async () => {
      const set = policies();
      const resolvePath = fsPathResolver(ws);
      const decide = (name: string, args: object) =>
        authorize(set, 'guarded', { name, arguments: args }, { resolvePath }).decision;
      const writes = [
        'notes/out/x', // a symlink inside `notes/` pointing out
        'notes/out/../x', // `..` after the symlink: the kernel lands outside
        'notes/../src/x', // lexical `..` out of `notes/`
        'notes/../../x', // out of the workspace
        join(base, 'outside', 'x'), // absolute, outside
        '/etc/passwd',
        'NOTES/x', // a case variant is not the allowed folder
        'notes/sec/key', // into a denied folder through a link
        'notes/loop-a/x', // a symlink loop
      ];
      let violations = 0;
      for (const path of writes) {
        const got = decide('write', { path });
        if (got === 'allow') violations++;
        expect(got, `write ${path}`).not.toBe('allow');
        expect(decide('mcp__fs__write_file', { file_path: path }), `mcp ${path}`).not.toBe('allow');
      }
      const reads = [
        '.env',
        './.env',
        './/.env',
        'notes/../.env',
        '.ENV',
        '.env.local',
        join(ws, '.env'),
        'notes/env', // a link to `.env`
        'secrets/key',
        'SECRETS/key',
        'notes/sec/key', // a link into `secrets/`
      ];
      for (const path of reads) {
        const got = decide('read', { path });
        if (got !== 'deny') violations++;
        expect(got, `read ${path}`).toBe('deny');
      }
      // The rules still allow what they mean to allow.
      expect(decide('write', { path: 'notes/plan.md' })).toBe('allow');
      expect(decide('write', { path: './notes//plan.md' })).toBe('allow');
      expect(decide('mcp__fs__write_file', { file_path: 'notes/plan.md' })).toBe('allow');
      expect(decide('read', { path: 'notes/plan.md' })).toBe('allow');
      // The MCP tool reads its own argument: `path` is not it, so the call is not analysable and not allowed.
      expect(decide('mcp__fs__write_file', { path: 'notes/plan.md' })).toBe('deny');
      return { runs: writes.length * 2 + reads.length, violations };
    });
  });

  it('quotes the path and names the pattern and its file:line in the deny reason', () => {
    const set = policies();
    const v = authorize(
      set,
      'guarded',
      { name: 'read', arguments: { path: 'notes/env' } },
      {
        resolvePath: fsPathResolver(ws),
      },
    );
    expect(v.decision).toBe('deny');
    expect(v.subject).toBe('notes/env');
    expect(v.reason).toBe(
      'tool "read" is not available in guarded mode: "notes/env" is denied by `.env*` at guarded.yaml:7:7 (it resolves to `.env`)',
    );
  });
});

describe('hostile: the gate judges a call by its arguments, in the agent workspace', () => {
  it('denies a write through a symlink out of `notes/` and hides nothing the patterns may allow', async () => {
    const modes = {
      guarded: {
        tools: {
          write: { decision: 'deny', paths: { 'notes/**': 'allow' } },
          bash: { decision: 'deny', commands: { 'git log **': 'allow' } },
        },
        default: 'deny',
      },
    } as const;
    const { ctx } = await setup({ config: { modes }, workspace: ws });
    const { agent } = agentOf(ctx, [{ text: 'ok' }], { mode: 'guarded' });
    await agent.prompt('land');
    const judge = (name: string, args: object) =>
      ctx.tools.judge({ callId: 'c1', name, arguments: args, agent });
    expect((await judge('write', { path: 'notes/plan.md', content: 'x' })).kind).toBe('allow');
    const out = await judge('write', { path: 'notes/out/x', content: 'x' });
    expect(out.kind).toBe('deny');
    expect(out.kind === 'deny' && out.reason).toContain('"notes/out/x"');
    expect((await judge('bash', { command: 'git log -3' })).kind).toBe('allow');
    const chained = await judge('bash', { command: 'git log -3; rm -rf notes' });
    expect(chained.kind === 'deny' && chained.reason).toContain(
      '"rm -rf notes" matches no pattern of `bash`',
    );
    // Visibility is by name: both tools have calls that pass, so the model sees them.
    const { header } = await ctx.systemPrompt.assemble({ agent });
    const visible = header.tools.map((t) => t.name);
    expect(visible).toContain('write');
    expect(visible).toContain('bash');
    expect(visible).not.toContain('edit'); // denied by default, by name
  });
});
