/**
 * Red team: symbolic links a cloned repository ships, against path rules (issue 27). The gate and the file tools
 * once resolved paths differently: the tools removed `..` from the text and then followed links, the rule's
 * resolver followed a link before a later `..` and stopped looking after a missing folder. So with a lint-clean
 * mode that allows writes only under `docs/**`, `write docs/nope/../g/config` (with `docs/g` → `../.git`)
 * overwrote `.git/config`, and `read docs/nope/../up/.env` (with `docs/up` → `..`) returned `.env` despite
 * `".env*": deny`.
 *
 * Everything is real: a cordis host with the mode plugin loading the policy from a YAML file (no lint finding),
 * an agent landed in the mode, calls through `ctx.tools.execute` (the gate, the waterfall, the tool), and a
 * workspace of real files and links. Every call below is denied or refused with nothing written or returned,
 * except the controls, which do what they say where they say.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'cordis';
import { describe, expect, it } from 'vitest';
import type { Agent, ToolResult } from '../../src/host/index.js';
import { agentOf, setup, tempDir } from '../engine/setup.js';
import { measured } from './config.js';

const POLICY = `mode: docs
tools:
  read:
    decision: allow
    paths:
      ".env*": deny
  list:
    decision: allow
    paths:
      ".git": deny
      ".git/**": deny
  grep:
    decision: allow
    paths:
      ".env*": deny
      ".git": deny
      ".git/**": deny
  write:
    decision: deny
    paths:
      "docs/**": allow
  edit:
    decision: deny
    paths:
      "docs/**": allow
default: deny
`;

const GIT_CONFIG = '[core]\n\tbare = false\n';
const SECRET = 'API_KEY=sk-red-team';

/** A workspace as a hostile repository would check it out, and a folder beside it. */
function workspace(): { root: string; ws: string; outside: string } {
  const root = tempDir('dsh-path-links-');
  const ws = join(root, 'ws');
  const outside = join(root, 'outside');
  mkdirSync(join(ws, 'docs', 'deep'), { recursive: true });
  mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, '.git', 'config'), GIT_CONFIG);
  writeFileSync(join(ws, '.env'), `${SECRET}\n`);
  writeFileSync(join(ws, 'docs', 'a.md'), 'alpha\n');
  writeFileSync(join(outside, 'secret'), `${SECRET}\n`);
  // The links the repository ships.
  symlinkSync('../.git', join(ws, 'docs', 'g'));
  symlinkSync('..', join(ws, 'docs', 'up'));
  symlinkSync('../.env', join(ws, 'docs', 'env'));
  symlinkSync('deep', join(ws, 'docs', 'd'));
  symlinkSync('../../outside', join(ws, 'docs', 'out'));
  symlinkSync('../../outside/planted', join(ws, 'docs', 'dangling'));
  symlinkSync('../.git/config', join(ws, 'docs', 'config.md'));
  return { root, ws, outside };
}

async function host(ws: string): Promise<{ ctx: Context; agent: Agent; warnings: string[] }> {
  const file = join(tempDir('dsh-path-links-policy-'), 'docs-mode.yaml');
  writeFileSync(file, POLICY);
  const { ctx, warnings } = await setup({ workspace: ws, config: { policies: [file] } });
  const { agent } = agentOf(ctx, [{ text: 'ok' }], { mode: 'docs' });
  await agent.prompt('land');
  return { ctx, agent, warnings };
}

function call(ctx: Context, agent: Agent, name: string, args: object): Promise<ToolResult> {
  return ctx.tools.execute({ callId: `c-${name}`, name, arguments: args, agent });
}

/** Every file below `dir`, with its content, links as `-> target` (what must not change). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile()) out[path] = readFileSync(path, 'utf8');
    else if (entry.isSymbolicLink()) out[path] = '-> link';
    else if (entry.isDirectory()) out[path] = '/';
  }
  return out;
}

/** The attacks: each call must be denied or refused, returning no secret. */
const ATTACKS: { name: string; args: object; why: string }[] = [
  // The two findings of the review.
  {
    name: 'write',
    args: { path: 'docs/nope/../g/config', content: 'pwned' },
    why: '`..` after a missing folder, then a link to .git',
  },
  {
    name: 'read',
    args: { path: 'docs/nope/../up/.env' },
    why: '`..` after a missing folder, then a link to the root',
  },
  // `..` after a link: the kernel leaves the link target's parent.
  {
    name: 'write',
    args: { path: 'docs/d/../g/config', content: 'pwned' },
    why: 'd → deep, `..` is docs, g → .git',
  },
  {
    name: 'edit',
    args: { path: 'docs/d/../g/config', old_string: 'bare', new_string: 'pwned' },
    why: 'as above, edit',
  },
  { name: 'read', args: { path: 'docs/g/../.env' }, why: 'g → .git, `..` is the root' },
  // Links straight to .git, .env and outside.
  { name: 'write', args: { path: 'docs/g/config', content: 'pwned' }, why: 'a link to .git' },
  {
    name: 'write',
    args: { path: 'docs/g/hooks/pre-commit', content: '#!/bin/sh\ntouch pwned' },
    why: 'a new file through a link to .git',
  },
  { name: 'write', args: { path: 'docs/config.md', content: 'pwned' }, why: 'a file link to .git/config' },
  {
    name: 'edit',
    args: { path: 'docs/config.md', old_string: 'bare', new_string: 'pwned' },
    why: 'a file link to .git/config, edit',
  },
  {
    name: 'edit',
    args: { path: 'docs/up/.git/config', old_string: 'bare', new_string: 'pwned' },
    why: 'a link to the root',
  },
  { name: 'write', args: { path: 'docs/out/secret', content: 'pwned' }, why: 'a link out of the workspace' },
  {
    name: 'write',
    args: { path: 'docs/dangling', content: 'pwned' },
    why: 'a dangling link out of the workspace',
  },
  {
    name: 'write',
    args: { path: 'docs/out/../ws/.git/config', content: 'pwned' },
    why: 'out and back in through `..`',
  },
  { name: 'read', args: { path: 'docs/env' }, why: 'a file link to .env' },
  { name: 'read', args: { path: 'docs/up/.env' }, why: 'a link to the root, then .env' },
  { name: 'read', args: { path: 'docs/out/secret' }, why: 'a link out of the workspace' },
  { name: 'list', args: { path: 'docs/g' }, why: 'a link to .git' },
  { name: 'list', args: { path: 'docs/nope/../g' }, why: '`..` after a missing folder' },
  { name: 'list', args: { path: 'docs/out' }, why: 'a link out of the workspace' },
  { name: 'grep', args: { pattern: 'API_KEY', path: 'docs/env' }, why: 'a file link to .env' },
  { name: 'grep', args: { pattern: 'API_KEY', path: 'docs/up/.env' }, why: 'a link to the root, then .env' },
  { name: 'grep', args: { pattern: 'bare', path: 'docs/g' }, why: 'a link to .git' },
  {
    name: 'grep',
    args: { pattern: 'API_KEY', path: 'docs/nope/../up/.env' },
    why: '`..` after a missing folder',
  },
  { name: 'grep', args: { pattern: 'API_KEY', path: 'docs/out' }, why: 'a link out of the workspace' },
];

describe('red team: repository-shipped links against path rules, through the gate', () => {
  it('denies every attack with nothing written or returned, and the policy is lint-clean', async () => {
    await measured(
      'hostile',
      'paths: repository-shipped links through the gate (read, list, grep, write, edit)',
      null,
      async () => {
        const { root, ws, outside } = workspace();
        const { ctx, agent, warnings } = await host(ws);
        expect(warnings).toEqual([]);
        const before = snapshot(root);
        for (const attack of ATTACKS) {
          const result = await call(ctx, agent, attack.name, attack.args);
          const label = `${attack.name} ${JSON.stringify(attack.args)} (${attack.why})`;
          expect(result.isError, label).toBe(true);
          expect(result.content, label).not.toContain('sk-red-team');
          expect(result.content, label).not.toContain('bare = false');
          // Denied by the gate, or (a link out of the workspace under an allowing base) refused by the tool;
          // either way the error never names the workspace's location.
          expect(result.content, label).not.toContain(root);
        }
        expect(snapshot(root)).toEqual(before);
        expect(existsSync(join(outside, 'planted'))).toBe(false);
        expect(existsSync(join(ws, 'docs', 'nope'))).toBe(false);
        return { runs: ATTACKS.length, violations: 0 };
      },
    );
  });

  it('names why a path with `..` after a missing folder is denied', async () => {
    const { root, ws } = workspace();
    const { ctx, agent } = await host(ws);
    const write = await call(ctx, agent, 'write', { path: 'docs/nope/../g/config', content: 'pwned' });
    // The text docs/argument-rules.md shows.
    expect(write.content).toBe(
      'Error: tool "write" is not available in docs mode: "docs/nope/../g/config" cannot be analysed: the path goes through `docs/nope`, which does not exist, and then `..`: write the path without `..`',
    );
    expect(write.data?.rule).toMatchObject({ selector: 'write' });
    const read = await call(ctx, agent, 'read', { path: 'docs/nope/../up/.env' });
    expect(read.data?.rule).toMatchObject({ selector: 'read' });
    expect(read.content).toContain('`docs/nope`, which does not exist, and then `..`');
  });

  it('still does what the controls ask, where the links really lead', async () => {
    const { root, ws } = workspace();
    const { ctx, agent } = await host(ws);
    expect((await call(ctx, agent, 'read', { path: 'docs/a.md' })).content).toBe('alpha\n');
    expect((await call(ctx, agent, 'list', { path: 'docs' })).content).toContain('g@');
    expect((await call(ctx, agent, 'grep', { pattern: 'alpha', path: 'docs' })).content).toBe(
      'docs/a.md:1: alpha',
    );
    // A new folder and file under docs/, and one through a link that stays under docs/ (d → deep).
    expect((await call(ctx, agent, 'write', { path: 'docs/new/x.md', content: 'x' })).isError).toBeFalsy();
    expect(readFileSync(join(ws, 'docs', 'new', 'x.md'), 'utf8')).toBe('x');
    const viaLink = await call(ctx, agent, 'write', { path: 'docs/d/y.md', content: 'y' });
    expect(viaLink.content).toBe('Wrote 1 bytes to docs/deep/y.md');
    expect(readFileSync(join(ws, 'docs', 'deep', 'y.md'), 'utf8')).toBe('y');
    // `docs/g/../docs/z.md` is docs/z.md (g → .git, `..` the root), where the text alone says docs/docs/z.md.
    await call(ctx, agent, 'write', { path: 'docs/g/../docs/z.md', content: 'z' });
    expect(readFileSync(join(ws, 'docs', 'z.md'), 'utf8')).toBe('z');
    expect(existsSync(join(ws, 'docs', 'docs'))).toBe(false);
    const edit = await call(ctx, agent, 'edit', {
      path: 'docs/a.md',
      old_string: 'alpha',
      new_string: 'beta',
    });
    expect(edit.isError).toBeFalsy();
    expect(readFileSync(join(ws, 'docs', 'a.md'), 'utf8')).toBe('beta\n');
  });

  it('a link flipped between the gate and the tool makes the tool refuse: nothing is written or read', async () => {
    await measured('hostile', 'paths: a link flipped between the check and the open', null, async () => {
      const { root, ws } = workspace();
      const { ctx, agent } = await host(ws);
      mkdirSync(join(ws, 'docs', 'sub'));
      writeFileSync(join(ws, 'docs', 'sub', 'page.md'), 'page\n');
      // Runs after the gate (a guard) judged the call and before the tool opens its path: the race, in order.
      let flip: (() => void) | undefined;
      ctx.on('tools/pre-execute', async (_exec, next) => {
        flip?.();
        flip = undefined;
        return next();
      });
      const cases: { flip: () => void; name: string; args: object; check: (r: ToolResult) => void }[] = [
        {
          // docs/sub is a folder at the check; a link to .git at the open.
          flip: () => {
            renameSync(join(ws, 'docs', 'sub'), join(ws, 'docs', 'sub-old'));
            symlinkSync('../.git', join(ws, 'docs', 'sub'));
          },
          name: 'write',
          args: { path: 'docs/sub/config', content: 'pwned' },
          check: () => expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG),
        },
        {
          // docs/a.md is a file at the check; a link to .env at the open.
          flip: () => {
            rmSync(join(ws, 'docs', 'a.md'));
            symlinkSync('../.env', join(ws, 'docs', 'a.md'));
          },
          name: 'read',
          args: { path: 'docs/a.md' },
          check: (r) => expect(r.content).not.toContain('sk-red-team'),
        },
        {
          // docs/fresh does not exist at the check; a link to .git/hooks appears before the open.
          flip: () => symlinkSync('../.git/hooks', join(ws, 'docs', 'fresh')),
          name: 'write',
          args: { path: 'docs/fresh/pre-commit', content: '#!/bin/sh\ntouch pwned' },
          check: () => expect(existsSync(join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false),
        },
        {
          // docs/deep is a folder at the check; .git is renamed into its place (no link at all).
          flip: () => {
            renameSync(join(ws, 'docs', 'deep'), join(ws, 'docs', 'deep-old'));
            renameSync(join(ws, '.git'), join(ws, 'docs', 'deep'));
          },
          name: 'edit',
          args: { path: 'docs/deep/config', old_string: 'bare', new_string: 'pwned' },
          check: () => expect(readFileSync(join(ws, 'docs', 'deep', 'config'), 'utf8')).toBe(GIT_CONFIG),
        },
      ];
      for (const c of cases) {
        if (c.name === 'edit') writeFileSync(join(ws, 'docs', 'deep', 'config'), 'bare\n');
        flip = c.flip;
        const result = await call(ctx, agent, c.name, c.args);
        const label = `${c.name} ${JSON.stringify(c.args)}`;
        expect(result.isError, label).toBe(true);
        expect(result.content, label).toMatch(/changed since it was checked/);
        c.check(result);
      }
      return { runs: cases.length, violations: 0 };
    });
  });
});
