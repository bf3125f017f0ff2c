/**
 * The command line answers for the folder it is given, not the process's: `main(argv, io)` with `io.env.cwd`
 * elsewhere loads `policies/`, catalogs and diff sides from that folder, and the stylish, SARIF and GitHub outputs
 * name files relative to it. Colour follows `FORCE_COLOR` and `NO_COLOR`.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { dshMode, makeTree } from '../cli/run.js';
import { measured } from './config.js';

const BAD = 'mode: review\ntool: {}\n';

async function run(argv: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { cwd, color: false },
  });
  return { code, stdout, stderr };
}

describe('the format context: one folder for loading and output', () => {
  it('lints policies/ of the given folder and names its files relative to it in every format', async () => {
    await measured('hostile', 'cli: commands run for a folder other than the process', null, async () => {
      const dir = makeTree({ 'policies/review.yaml': BAD });
      expect(dir).not.toBe(process.cwd());

      const stylish = await run(['lint', '--no-builtin'], dir);
      expect(stylish.code).toBe(1);
      expect(stylish.stdout.split('\n').slice(0, 3)).toEqual([
        '',
        'policies/review.yaml',
        '  2:1  error    unknown key `tool`: did you mean `tools`?  unknown-key',
      ]);

      const sarif = JSON.parse((await run(['lint', '--no-builtin', '--format', 'sarif'], dir)).stdout) as {
        runs: {
          originalUriBaseIds: Record<string, { uri: string }>;
          results: { locations: { physicalLocation: { artifactLocation: unknown } }[] }[];
        }[];
      };
      expect(sarif.runs[0]!.originalUriBaseIds).toEqual({
        '%SRCROOT%': { uri: `${pathToFileURL(dir).href}/` },
      });
      expect(sarif.runs[0]!.results.map((r) => r.locations[0]!.physicalLocation.artifactLocation)).toEqual([
        { uri: 'policies/review.yaml', uriBaseId: '%SRCROOT%' },
      ]);

      // An absolute path inside the folder is shown relative to it, as the binary run there would show it.
      const github = await run(
        ['lint', join(dir, 'policies/review.yaml'), '--no-builtin', '--format', 'github'],
        dir,
      );
      expect(github.stdout).toBe(
        '::error file=policies/review.yaml,line=2,col=1,endLine=2,endColumn=4,title=unknown-key::unknown key `tool`: did you mean `tools`?%0Aallowed keys here: `$schema`, `mode`, `description`, `section`, `tools`, `effects`, `default`, `override`, `sandbox`, `tests`\n',
      );
      return { runs: 3, violations: 0 };
    });
  });

  it('reads catalogs, check paths and both diff sides from the given folder', async () => {
    const dir = makeTree({
      'tools.json': [{ name: 'deploy' }],
      'old.yaml': 'mode: ship\ntools:\n  deploy: deny\n',
      'new.yaml': 'mode: ship\ntools:\n  deploy: allow\n',
    });
    const lint = await run(
      ['lint', 'old.yaml', '--tools', 'tools.json', '--no-builtin', '--format', 'json'],
      dir,
    );
    expect(lint.code).toBe(0);
    const check = await run(['check', 'ship', 'deploy', 'new.yaml', '--no-builtin', '--format', 'json'], dir);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({
      decision: 'allow',
      rule: { file: 'new.yaml', line: 3 },
    });
    const matrix = await run(
      ['matrix', 'new.yaml', '--tools', 'tools.json', '--no-builtin', '--format', 'json'],
      dir,
    );
    expect(matrix.code).toBe(0);
    const diff = await run(
      ['diff', 'old.yaml', 'new.yaml', '--tools', 'tools.json', '--no-builtin', '--format', 'json'],
      dir,
    );
    expect(diff.code).toBe(0);
    expect(JSON.parse(diff.stdout)).toMatchObject({
      counts: { escalation: 1 },
      old: { files: ['old.yaml'] },
      new: { files: ['new.yaml'] },
    });
  });
});

describe('colour', () => {
  it('follows FORCE_COLOR in a pipe, and NO_COLOR or FORCE_COLOR=0 turn it off', () => {
    const dir = makeTree({ 'a.yaml': BAD });
    expect(dshMode(['lint', 'a.yaml', '--no-builtin'], dir, { FORCE_COLOR: '1' }).stdout).toContain(
      '\u001b[31merror',
    );
    expect(dshMode(['lint', 'a.yaml', '--no-builtin'], dir, { FORCE_COLOR: '0' }).stdout).not.toContain(
      '\u001b[',
    );
    expect(dshMode(['lint', 'a.yaml', '--no-builtin'], dir, { NO_COLOR: '1' }).stdout).not.toContain(
      '\u001b[',
    );
  });
});
