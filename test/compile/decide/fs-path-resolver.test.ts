// Path rules over a real filesystem: a temp workspace with symlinks that stay inside, point out, loop and dangle,
// judged through fsPathResolver, as hosts and `check --args` do.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideCall } from '../../../src/compile/decide/call.js';
import { fsPathResolver } from '../../../src/compile/decide/fs-path-resolver.js';
import { policy } from '../helpers.js';

let base: string;
let ws: string;
let outside: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-paths-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(join(ws, 'notes'), { recursive: true });
  mkdirSync(join(outside, 'notes'), { recursive: true });
  writeFileSync(join(ws, 'notes', 'a.md'), 'a');
  writeFileSync(join(ws, '.env'), 'SECRET=1');
  writeFileSync(join(outside, 'secret'), 'x');
  writeFileSync(join(outside, 'notes', 'a.md'), 'outside');
  symlinkSync(outside, join(ws, 'out')); // a folder link pointing out
  symlinkSync('../.env', join(ws, 'notes', 'env.md')); // a file link to a denied file, inside
  symlinkSync('a.md', join(ws, 'notes', 'alias.md')); // a link that stays inside and allowed
  symlinkSync(outside, join(ws, 'notes', 'outlink')); // inside an allowed folder, pointing out
  symlinkSync('l2', join(ws, 'l1'));
  symlinkSync('l1', join(ws, 'l2')); // a loop
  symlinkSync(ws, join(base, 'ws-link')); // the workspace given through a link
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const rules = [
  'mode: x',
  'tools:',
  '  read:',
  '    decision: deny',
  '    paths:',
  '      "**": allow',
  '      ".env*": deny',
].join('\n');

function decide(path: string, workspace = ws, text = rules) {
  return decideCall(
    policy('x', text),
    { name: 'read', arguments: { path } },
    {
      resolvePath: fsPathResolver(workspace),
    },
  );
}

describe('fsPathResolver: symlinks and `..` under path rules', () => {
  it('allows a plain file and a link that stays inside on an allowed target', () => {
    expect(decide('notes/a.md').decision).toBe('allow');
    expect(decide('notes/alias.md').decision).toBe('allow');
    expect(decide('notes/not-yet/new.md').decision).toBe('allow'); // the missing rest appends lexically
  });

  it('denies through a link inside the workspace whose target a deny matches', () => {
    const r = decide('notes/env.md');
    expect(r.decision).toBe('deny');
    expect(r.pattern?.selector).toBe('.env*');
    expect(r.note).toBe('it resolves to `.env`');
  });

  it('never allows a path whose target is outside, even when the written path is inside', () => {
    const r = decide('out/secret');
    expect(r.decision).toBe('deny');
    expect(r.pattern).toBeUndefined();
    expect(r.note).toBe('it resolves outside the workspace, through a symbolic link');
  });

  it('needs both forms for an allow in a rule without a base: one allowed form abstains', () => {
    const open = 'mode: x\ntools:\n  write: { paths: { "notes/**": allow } }\n';
    const write = (path: string) =>
      decideCall(
        policy('x', open),
        { name: 'write', arguments: { path } },
        { resolvePath: fsPathResolver(ws) },
      );
    expect(write('notes/a.md').decision).toBe('allow');
    // Written `notes/outlink/x` matches the allow; its target is outside: the rule abstains, nothing else decides.
    expect(write('notes/outlink/x')).toMatchObject({ decision: 'deny', rule: { selector: 'default' } });
  });

  it('applies `..` after following a link, as the kernel does', () => {
    // Lexically `out/../notes/a.md` is `notes/a.md`; the kernel reads `outside/../notes/a.md`, outside.
    expect(decide('out/../notes/a.md').decision).toBe('deny');
    expect(decide('notes/../notes/a.md').decision).toBe('allow');
  });

  it('denies a symlink loop with the reason, whatever the base: the kernel fails it too', () => {
    const r = decide('l1/x');
    expect(r).toMatchObject({
      decision: 'deny',
      unanalysable: true,
      note: 'the path has too many levels of symbolic links',
    });
    const allowBase = 'mode: x\ntools:\n  read: { decision: allow, paths: { ".env*": deny } }\n';
    expect(decide('l1', ws, allowBase).decision).toBe('deny');
    // A rule without a base does not abstain on it either: the rest of the policy cannot allow it.
    const narrowing = 'mode: x\ntools:\n  read: { paths: { ".env*": deny } }\ndefault: allow\n';
    expect(decide('l1', ws, narrowing).decision).toBe('deny');
  });

  it('denies a `..` after a folder that does not exist, naming it', () => {
    const r = decide('notes/nope/../a.md');
    expect(r.decision).toBe('deny');
    expect(r.note).toBe(
      'the path goes through `notes/nope`, which does not exist, and then `..`: write the path without `..`',
    );
  });

  it('judges absolute paths: inside by their workspace-relative form, elsewhere never allowed', () => {
    expect(decide(join(ws, 'notes', 'a.md')).decision).toBe('allow');
    expect(decide(join(ws, '.env')).decision).toBe('deny');
    expect(decide(join(outside, 'notes', 'a.md')).decision).toBe('deny');
  });

  it('accepts a workspace given through a symlink', () => {
    expect(decide('notes/a.md', join(base, 'ws-link')).decision).toBe('allow');
    expect(decide(join(base, 'ws-link', 'notes', 'a.md'), join(base, 'ws-link')).decision).toBe('allow');
  });

  it('catches case variants of a denied name (a case-insensitive filesystem opens the same file)', () => {
    for (const path of ['.ENV', '.Env.local', 'NOTES/../.eNv'])
      expect(decide(path).decision, path).toBe('deny');
  });

  it('judges `list` and `grep` without a path as the workspace root, the folder they read', () => {
    const p = policy('x', 'mode: x\ntools:\n  list: { decision: allow, paths: { ".": deny } }\n');
    const resolvePath = fsPathResolver(ws);
    expect(decideCall(p, { name: 'list', arguments: {} }, { resolvePath }).decision).toBe('deny');
    expect(decideCall(p, { name: 'list', arguments: { path: 'notes' } }, { resolvePath }).decision).toBe(
      'allow',
    );
  });
});

describe('fsPathResolver: one resolution per call', () => {
  it('answers a path asked for again from `record`, so every document of a call decides on one resolution', () => {
    const record = new Map();
    const resolve = fsPathResolver(ws, { record });
    const first = resolve('notes/later');
    expect(first).toMatchObject({ target: { relative: 'notes/later' } });
    // The filesystem changes after the first resolution: the call keeps deciding on what it resolved.
    symlinkSync('../.env', join(ws, 'notes', 'later'));
    try {
      expect(resolve('notes/later')).toEqual(first);
      expect(record.get('notes/later')).toMatchObject({ ok: true, missing: 1 });
      // A fresh resolver (the next call) sees the link.
      expect(fsPathResolver(ws)('notes/later')).toMatchObject({ target: { relative: '.env' } });
    } finally {
      rmSync(join(ws, 'notes', 'later'));
    }
  });

  it('records a refusal with its reason', () => {
    const record = new Map();
    expect(fsPathResolver(ws, { record })('notes/nope/../a.md')).toEqual({
      unresolved:
        'goes through `notes/nope`, which does not exist, and then `..`: write the path without `..`',
    });
    expect(record.get('notes/nope/../a.md')).toMatchObject({ ok: false });
  });
});
