/**
 * `dsh-mode` itself: help, version, unknown commands, and `schema`. The binary runs as a child process; the
 * colour test calls `main()` in-process with its own streams.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { dshMode, json, makeTree, ROOT } from './run.js';

describe('dsh-mode', () => {
  it('--help lists every command and exits 0', () => {
    const result = dshMode(['--help'], ROOT);
    expect(result.code).toBe(0);
    for (const name of ['lint', 'check', 'schema'])
      expect(result.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  it('<command> --help prints the command help beside its definition and exits 0', () => {
    const result = dshMode(['lint', '--help'], ROOT);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: dsh-mode lint [PATH...]');
    expect(result.stdout).toContain('--max-warnings N');
    expect(result.stdout).toContain('Exit codes:');
  });

  it('--version prints the package version', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(dshMode(['--version'], ROOT)).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('exits 2 for an unknown command, with a did-you-mean', () => {
    const result = dshMode(['lnit'], ROOT);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: unknown command `lnit`\nhelp: did you mean `lint`?\n');
  });

  it('exits 2 without a command, after printing the help', () => {
    const result = dshMode([], ROOT);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('Commands:');
  });

  it('colours stylish output when the environment says the terminal takes colours', async () => {
    const dir = makeTree({ 'a.yaml': 'mode: review\ntool: {}\n' });
    let out = '';
    const code = await main(['lint', join(dir, 'a.yaml'), '--no-builtin'], {
      stdout: (t) => (out += t),
      stderr: () => {},
      env: { cwd: dir, color: true },
    });
    expect(code).toBe(1);
    expect(out).toContain('\u001b[31merror');
  });
});

describe('dsh-mode schema', () => {
  it('prints the policy schema as shipped', () => {
    const result = dshMode(['schema'], ROOT);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd()).toBe(
      readFileSync(join(ROOT, 'schema/policy.schema.json'), 'utf8').trimEnd(),
    );
    expect(json(result).$id).toEqual(expect.any(String));
  });

  it('writes every schema into --out DIR', () => {
    const dir = makeTree({});
    const result = dshMode(['schema', '--out', 'schemas'], dir);
    expect(result.code).toBe(0);
    const shipped = readdirSync(join(ROOT, 'schema'))
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(readdirSync(join(dir, 'schemas')).sort()).toEqual(shipped);
    expect(result.stdout).toContain(`wrote ${join('schemas', 'policy.schema.json')}`);
  });

  it('exits 2 for an unknown schema name', () => {
    const result = dshMode(['schema', 'polcy'], ROOT);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did you mean `policy`?');
  });
});
