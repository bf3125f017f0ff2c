/**
 * Global options (`global-options.ts`): a command read past its program's options before the subcommand, in their
 * exact forms, and checked against real git: where git runs a subcommand, the reading places it at the same word.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readGlobalOptions, type ShellWord } from '../../../src/compile/shell/index.js';

const known = (value: string): ShellWord => ({ text: value, value, known: true });
const words = (s: string): ShellWord[] =>
  s.split(' ').map((w) => (w.startsWith('$') ? { text: w, value: '', known: false } : known(w)));
const read = (s: string) => {
  const ws = words(s);
  const r = readGlobalOptions(ws[0]!.value, ws);
  return r && { words: r.words.map((w) => w.value).join(' '), unknown: r.unknown?.text };
};

describe('readGlobalOptions', () => {
  it.each([
    ['git -C . push origin main', 'git push origin main'],
    ['git --no-pager push', 'git push'],
    ['git -c x=y push', 'git push'],
    ['git -c x=y -c a=b -P -p --paginate push -f', 'git push -f'],
    ['git --git-dir=.git --work-tree . --namespace=n --bare push', 'git push'],
    ['git --git-dir .git --work-tree=. --namespace n push', 'git push'],
    ['git --config-env x=Y --config-env=a=B --super-prefix p/ push', 'git push'],
    ['git --exec-path=/x --exec-path --html-path push', 'git push'],
    ['git --no-replace-objects --literal-pathspecs --icase-pathspecs --no-optional-locks log', 'git log'],
    ['git --help push', 'git help push'],
    ['git -v', 'git version'],
    ['git -C', 'git'],
    ['git push -C x', 'git push -C x'],
    ['docker --context prod -D rm x', 'docker rm x'],
    ['docker -H tcp://h --tls --tlscert=c ps', 'docker ps'],
    ['kubectl --context prod -n kube-system delete pod x', 'kubectl delete pod x'],
    ['npm publish', 'npm publish'],
  ])('%s is %s', (command, expected) => {
    expect(read(command)).toEqual({ words: expected, unknown: undefined });
  });

  it.each([
    ['git --frob push', '--frob'],
    ['git -cx=y push', '-cx=y'],
    ['git -- push', '--'],
    ['git --no-pager=1 push', '--no-pager=1'],
    ['git -C . $X push', '$X'],
    ['docker -Dc prod rm x', '-Dc'],
    ['kubectl --insecure-skip-tls-verify=true delete pod', '--insecure-skip-tls-verify=true'],
    ['npm --otp 1 publish', '--otp'],
    ['pnpm -C x publish', '-C'],
  ])('%s has an option it does not know: %s', (command, unknown) => {
    expect(read(command)).toEqual({ words: command.split(' ')[0], unknown });
  });

  it('reads no program without a table', () => {
    expect(readGlobalOptions('ls', words('ls -la'))).toBeUndefined();
  });
});

describe('git’s global options, against git itself', () => {
  const repo = mkdtempSync(join(tmpdir(), 'dsh-global-'));
  spawnSync('git', ['init', '-q', repo]);
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  /** Where git placed its subcommand: the probe's name when it tried to run it, otherwise undefined. */
  function gitRuns(args: string[]): string | undefined {
    const r = spawnSync('git', args, {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, Y: '1', GIT_CONFIG_NOSYSTEM: '1', HOME: repo, GIT_PAGER: 'cat', PAGER: 'cat' },
    });
    return /'(probe-\d)' is not a git command/.exec(r.stderr)?.[1];
  }

  // git 2.39's options with values git accepts here; the later ones (`--no-lazy-fetch`, `--attr-source`,
  // `--no-advice`) are unknown to it, and the ones that print and exit run no subcommand.
  const option = fc.constantFrom(
    ['-C', '.'],
    ['-c', 'x.y=z'],
    ['--no-pager'],
    ['-P'],
    ['-p'],
    ['--paginate'],
    ['--git-dir=.git'],
    ['--git-dir', '.git'],
    ['--work-tree=.'],
    ['--work-tree', '.'],
    ['--namespace=n'],
    ['--namespace', 'n'],
    ['--bare'],
    ['--no-replace-objects'],
    ['--literal-pathspecs'],
    ['--no-literal-pathspecs'],
    ['--glob-pathspecs'],
    ['--noglob-pathspecs'],
    ['--icase-pathspecs'],
    ['--no-optional-locks'],
    ['--config-env', 'x.y=Y'],
    ['--config-env=x.y=Y'],
    ['--exec-path=/usr/lib/git-core'],
    ['--shallow-file', 'x'],
    ['--frob'],
    ['-x'],
    ['-cx.y=z'],
    ['--'],
    ['probe-2'],
  );

  it('places the subcommand where git does, or finds an option it does not know', () => {
    let placed = 0;
    fc.assert(
      fc.property(fc.array(option, { maxLength: 4 }), (opts) => {
        const args = [...opts.flat(), 'probe-1', 'x'];
        const reading = readGlobalOptions('git', ['git', ...args].map(known))!;
        const ran = gitRuns(args);
        // Where git ran a subcommand, the reading knows every option before it and places it there. Where git
        // ran none (an unknown option, or one that prints and exits), any reading only adds matches.
        if (ran !== undefined) {
          placed++;
          expect(reading.unknown, args.join(' ')).toBeUndefined();
          expect(reading.words[1]?.value, args.join(' ')).toBe(ran);
        }
      }),
      { numRuns: 60 },
    );
    // Most sequences hold only options git knows: the comparison ran.
    expect(placed).toBeGreaterThan(10);
  });
});

const hasDocker = spawnSync('docker', ['--version']).status === 0;

describe.skipIf(!hasDocker)('docker’s global options, against docker itself', () => {
  // docker names the word it took for its subcommand (`unknown command: docker probe-1`) before it connects.
  const option = fc.constantFrom(
    ['-c', 'default'],
    ['--context', 'default'],
    ['--context=default'],
    ['-H', 'unix:///nonexistent'],
    ['--host=unix:///nonexistent'],
    ['-D'],
    ['--debug'],
    ['--tls'],
    ['--tlsverify'],
    ['-l', 'info'],
    ['--log-level=info'],
    ['--config', '/nonexistent'],
    ['--tlscacert', 'x'],
    ['--tlscert=x'],
    ['--tlskey', 'x'],
    ['--frob'],
    ['probe-2'],
  );

  it('places the subcommand where docker does', () => {
    let placed = 0;
    fc.assert(
      fc.property(fc.array(option, { maxLength: 3 }), (opts) => {
        const args = [...opts.flat(), 'probe-1', 'x'];
        const r = spawnSync('docker', args, {
          encoding: 'utf8',
          env: { ...process.env, DOCKER_CONFIG: tmpdir() },
        });
        const ran = /unknown command: docker (probe-\d)/.exec(r.stderr)?.[1];
        const reading = readGlobalOptions('docker', ['docker', ...args].map(known))!;
        if (ran !== undefined) {
          placed++;
          expect(reading.unknown, args.join(' ')).toBeUndefined();
          expect(reading.words[1]?.value, args.join(' ')).toBe(ran);
        }
      }),
      { numRuns: 30 },
    );
    expect(placed).toBeGreaterThan(5);
  });
});
