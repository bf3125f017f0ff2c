/**
 * `dsh-mode` itself: help, version, unknown commands, and `schema`, in process through `main()`; `--version` and
 * `schema` also run the built binary as a child process.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-in-process.js';
import { dshMode, json, makeTree, ROOT } from './run.js';

describe('dsh-mode', () => {
  it('--help lists every command and exits 0', async () => {
    const result = await runCli(['--help'], { cwd: ROOT });
    expect(result.code).toBe(0);
    for (const name of ['lint', 'check', 'schema'])
      expect(result.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  it('<command> --help prints the command help beside its definition and exits 0', async () => {
    const result = await runCli(['lint', '--help'], { cwd: ROOT });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: dsh-mode lint [PATH...]');
    expect(result.stdout).toContain('--max-warnings N');
    expect(result.stdout).toContain('Exit codes:');
  });

  it('--version prints the package version (the built binary)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(dshMode(['--version'], ROOT)).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('exits 2 for an unknown command, with a did-you-mean', async () => {
    const result = await runCli(['lnit'], { cwd: ROOT });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: unknown command `lnit`\nhelp: did you mean `lint`?\n');
  });

  it('exits 2 without a command, after printing the help', async () => {
    const result = await runCli([], { cwd: ROOT });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('Commands:');
  });

  it('colours stylish output when the environment says the terminal takes colours', async () => {
    const dir = makeTree({ 'a.yaml': 'mode: review\ntool: {}\n' });
    const { code, stdout: out } = await runCli(['lint', join(dir, 'a.yaml'), '--no-builtin'], {
      cwd: dir,
      env: { FORCE_COLOR: '1' },
    });
    expect(code).toBe(1);
    expect(out).toContain('\u001b[31merror');
  });
});

describe('dsh-mode schema', () => {
  it('prints the policy schema as shipped (the built binary)', () => {
    const result = dshMode(['schema'], ROOT);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd()).toBe(
      readFileSync(join(ROOT, 'schema/policy.schema.json'), 'utf8').trimEnd(),
    );
    expect(json(result).$id).toEqual(expect.any(String));
  });

  it('writes every schema into --out DIR', async () => {
    const dir = makeTree({});
    const result = await runCli(['schema', '--out', 'schemas'], { cwd: dir });
    expect(result.code).toBe(0);
    const shipped = readdirSync(join(ROOT, 'schema'))
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(readdirSync(join(dir, 'schemas')).sort()).toEqual(shipped);
    expect(result.stdout).toContain(`wrote ${join('schemas', 'policy.schema.json')}`);
  });

  it('exits 2 for an unknown schema name', async () => {
    const result = await runCli(['schema', 'polcy'], { cwd: ROOT });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did you mean `policy`?');
  });
});
