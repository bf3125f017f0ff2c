// The built-in plan's commands through `bash`: every flag by which an allowed program writes files, runs other
// programs or reaches the network is denied, in every form getopt or git's option parser accepts it (separate or
// attached value, `=`, bundled, after a `--` that is an option's value, quoted, long options by prefix); the
// read-only forms are allowed; and a handful of the denied forms are run for real, so the table cannot be wrong
// about what a flag does without this test noticing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicies, loadPolicySources, type CompiledPolicy } from '../../src/compile/api.js';

const loaded = await loadPolicySources([]);
const plan: CompiledPolicy = compilePolicies(loaded.documents).get('plan')!;
const decide = (command: string) => plan.decideCall!({ name: 'bash', arguments: { command } });

/** A dangerous flag: its name, whether it takes a value, and for a long option the shortest prefix accepted. */
interface Flag {
  readonly flag: string;
  readonly value?: boolean;
  /** GNU getopt_long and git's parse-options take any unambiguous prefix: every prefix from this one on. */
  readonly prefix?: string;
}

interface Program {
  /** The command up to the flag (`git log`, `sort`). */
  readonly base: string;
  /** A harmless short option of the program, to bundle a dangerous one with (`-uo x`). */
  readonly bundle?: string;
  readonly allowed: readonly string[];
  readonly denied: readonly Flag[];
}

const DIFF_OPTIONS: readonly Flag[] = [
  { flag: '--output', value: true },
  { flag: '--ext-diff' },
  { flag: '--textconv' },
];
const SIGNATURES: readonly Flag[] = [
  { flag: '--show-signature' },
  { flag: '--format=%G?' },
  { flag: '--pretty=format:%h%x20%GS' },
  // A `+` or `-` after the `%` is a modifier, and the placeholder still runs gpg (a space too: the red-team test).
  { flag: '--format=%+GS' },
  { flag: '--format=%-G?' },
  { flag: '--remerge-diff' },
  { flag: '--diff-merges=remerge' },
  { flag: '--diff-merges=r' },
];

// Options by which git runs in another repository: each alternate object store's (`git for-each-ref` there).
const OTHER_REPOSITORY: readonly Flag[] = [{ flag: '--alternate-refs' }];

const PROGRAMS: readonly Program[] = [
  {
    base: 'git log',
    allowed: ['git log', 'git log --oneline -5', 'git log -p HEAD~3.. -- src', 'git log --format=%h%x20%s'],
    denied: [...DIFF_OPTIONS, ...SIGNATURES, ...OTHER_REPOSITORY],
  },
  {
    base: 'git show',
    allowed: ['git show', 'git show HEAD:README.md', 'git show --stat HEAD~1'],
    denied: [...DIFF_OPTIONS, ...SIGNATURES, ...OTHER_REPOSITORY],
  },
  {
    base: 'git diff',
    allowed: ['git diff', 'git diff --stat HEAD~1', 'git diff --no-index a b', 'git diff --cached -- src'],
    denied: [...DIFF_OPTIONS, ...OTHER_REPOSITORY],
  },
  {
    base: 'git blame',
    allowed: ['git blame -L 1,5 README.md'],
    denied: [...DIFF_OPTIONS, ...OTHER_REPOSITORY],
  },
  {
    // The folder above the top level (`git -C .. ls-files`), and a repository at a path.
    base: 'git rev-parse',
    allowed: [
      'git rev-parse --show-toplevel',
      'git rev-parse --git-dir HEAD',
      'git rev-parse --show-superproject',
    ],
    denied: [{ flag: '--show-superproject-working-tree' }, { flag: '--resolve-git-dir', value: true }],
  },
  {
    base: 'git grep',
    bundle: 'i',
    allowed: ['git grep -n TODO', 'git grep -e x --or -e y -- src', 'git grep --no-index x'],
    denied: [
      { flag: '-O', value: true },
      { flag: '--open-files-in-pager', value: true, prefix: '--op' },
      { flag: '--textconv', prefix: '--textc' },
    ],
  },
  {
    base: 'git branch --list',
    bundle: 'a',
    allowed: [
      'git branch',
      'git branch --list',
      "git branch --list 'feat/*' -v",
      'git branch --show-current',
    ],
    denied: [
      { flag: '-d' },
      { flag: '-D' },
      { flag: '-m' },
      { flag: '-M' },
      { flag: '-c' },
      { flag: '-C' },
      { flag: '-f' },
      { flag: '-t' },
      { flag: '-u', value: true },
      { flag: '--delete', prefix: '--d' },
      { flag: '--move', prefix: '--mo' },
      { flag: '--copy', prefix: '--cop' },
      { flag: '--create-reflog', prefix: '--cr' },
      { flag: '--force', prefix: '--forc' },
      { flag: '--track', prefix: '--t' },
      { flag: '--set-upstream-to', value: true, prefix: '--se' },
      { flag: '--unset-upstream', prefix: '--u' },
      { flag: '--edit-description', prefix: '--e' },
      { flag: '--no-list', prefix: '--no-l' },
    ],
  },
  {
    base: 'git',
    allowed: [
      'git status',
      'git status --porcelain=v1 -uno',
      'git rev-parse --show-toplevel HEAD',
      'git ls-files -z --others',
    ],
    denied: [
      { flag: '-c', value: true },
      { flag: '-C', value: true },
      { flag: '--git-dir', value: true },
      { flag: '--work-tree', value: true },
      { flag: '--exec-path', value: true },
      { flag: '--config-env', value: true },
      { flag: '-p' },
      { flag: '--paginate' },
    ],
  },
  {
    base: 'sort',
    bundle: 'u',
    allowed: [
      'sort',
      'sort -u a',
      'sort -t, -k2,2n a b',
      'sort -rn --stable a',
      'sort --random-source=a -R a',
    ],
    denied: [
      { flag: '-o', value: true },
      { flag: '--output', value: true, prefix: '--o' },
      { flag: '-T', value: true },
      { flag: '--temporary-directory', value: true, prefix: '--t' },
      { flag: '--compress-program', value: true, prefix: '--co' },
    ],
  },
  {
    base: 'uniq',
    allowed: ['uniq', 'uniq a', 'uniq -c', 'uniq --skip-fields=2', 'uniq -', 'uniq --'],
    denied: [],
  },
  {
    base: 'diff',
    bundle: 'u',
    allowed: ['diff a b', 'diff -u a b', 'diff -ru --label x a b', 'diff --palette=ad=1 a b'],
    denied: [{ flag: '-l' }, { flag: '--paginate', prefix: '--pag' }],
  },
  {
    base: 'find .',
    allowed: ['find .', "find . -name '*.ts' -type f", 'find src -maxdepth 2 -print0', 'find . -newer a -ls'],
    denied: [
      { flag: '-exec' },
      { flag: '-execdir' },
      { flag: '-ok' },
      { flag: '-okdir' },
      { flag: '-delete' },
      { flag: '-fprint' },
      { flag: '-fprint0' },
      { flag: '-fprintf' },
      { flag: '-fls' },
    ],
  },
  {
    base: 'file',
    bundle: 'b',
    allowed: ['file a', 'file -b --mime-type a', 'file -L -k a', 'file --print0 a'],
    denied: [
      { flag: '-C' },
      { flag: '--compile', prefix: '--co' },
      { flag: '-z' },
      { flag: '-Z' },
      { flag: '--uncompress', prefix: '--u' },
      { flag: '--uncompress-noreport', prefix: '--uncompress-' },
      { flag: '-p' },
      { flag: '--preserve-date', prefix: '--pre' },
    ],
  },
  {
    base: 'rg',
    bundle: 'n',
    allowed: ['rg TODO', 'rg -n -i --glob "*.ts" TODO src', 'rg --files', 'rg -p TODO'],
    denied: [
      { flag: '--pre', value: true },
      { flag: '--pre-glob', value: true },
      { flag: '-z' },
      { flag: '--search-zip' },
      { flag: '--hostname-bin', value: true },
    ],
  },
  {
    base: 'ls',
    allowed: ['ls', 'ls -la src', 'ls --color=never -R'],
    denied: [],
  },
  { base: 'cat', allowed: ['cat a', 'cat -n a b', 'cat README.md 2>/dev/null'], denied: [] },
  { base: 'head', allowed: ['head a', 'head -n 20 a', 'head -c5 a'], denied: [] },
  { base: 'tail', allowed: ['tail a', 'tail -n +5 a', 'tail -n-3 a'], denied: [] },
  { base: 'wc', allowed: ['wc -l a b'], denied: [] },
  { base: 'grep', allowed: ['grep -rn TODO src', 'grep -E "a|b" a', 'grep -f a b'], denied: [] },
  { base: 'pwd', allowed: ['pwd', 'pwd -P'], denied: [] },
  { base: 'stat', allowed: ['stat a', 'stat -c %s a'], denied: [] },
  { base: 'du', allowed: ['du -sh .', 'du --max-depth=1 src'], denied: [] },
  { base: 'cut', allowed: ['cut -d: -f1 a', 'cut -c1-10 a'], denied: [] },
  { base: 'tr', allowed: ['tr a-z A-Z', "tr -d '\\r'"], denied: [] },
  { base: 'echo', allowed: ['echo hello', 'echo -n "a b"'], denied: [] },
  { base: 'which', allowed: ['which git', 'which -a node'], denied: [] },
];

/** Every way a flag can be written: separate and attached values, bundles, prefixes, quoting. */
function forms(flag: Flag, bundle: string | undefined): string[] {
  const out: string[] = [];
  const long = flag.flag.startsWith('--');
  const names = [flag.flag];
  if (flag.prefix !== undefined)
    for (let n = flag.prefix.length; n < flag.flag.length; n++) names.push(flag.flag.slice(0, n));
  for (const name of names) {
    if (!flag.value) out.push(name);
    else if (long || name.includes('=')) out.push(`${name} x`, `${name}=x`);
    else out.push(`${name} x`, `${name}x`, `${name}=x`);
  }
  if (!long && /^-[A-Za-z]$/.test(flag.flag)) {
    const letter = flag.flag[1]!;
    if (bundle !== undefined) {
      out.push(
        `-${bundle}${letter}${flag.value ? ' x' : ''}`,
        `-${bundle}${letter}${flag.value ? '=x' : ''}`,
      );
      // A `--` that is the value of the option before it does not end the options.
      out.push(`--x -- -${bundle}${letter}${flag.value ? '=x' : ''}`);
    }
    out.push(`-${letter}x`);
  }
  out.push(`'${flag.flag}'${flag.value ? ' x' : ''}`, `"${flag.flag.slice(0, 2)}"${flag.flag.slice(2)}`);
  return out;
}

describe('plan: bash commands', () => {
  for (const program of PROGRAMS) {
    describe(program.base, () => {
      it.each(program.allowed)('allows %j', (command) => {
        expect(decide(command).decision).toBe('allow');
      });

      const denied = program.denied.flatMap((f) => forms(f, program.bundle).map((form) => [f.flag, form]));
      if (denied.length > 0)
        it.each(denied)('denies %s as %j', (_flag, form) => {
          const command = `${program.base} ${form} a`;
          const verdict = decide(command);
          expect(verdict.decision, command).toBe('deny');
          // Denied by a pattern of its own program, not by some accident of the base.
          expect(verdict.pattern?.selector, command).toMatch(new RegExp(`^${program.base.split(' ')[0]}\\b`));
        });

      it('never allows a word whose value is not known', () => {
        // `$((1+2))` is analysable (numbers only) but its value is still not known.
        for (const word of ['$X', '"$(echo -o)"', '*', '`x`', '$((1+2))'])
          expect(decide(`${program.base} ${word}`).decision, word).not.toBe('allow');
      });
    });
  }

  it.each([
    'uniq a out',
    'uniq -c a out',
    'uniq a -c out',
    'uniq - out',
    'uniq -c - out',
    'uniq -- -a -b',
    'uniq -f2 a out',
    'uniq -cd a',
    'uniq -c -d a',
    'uniq -f 2',
  ])('uniq: denies %j (one word at most: a second operand is its output file)', (command) => {
    expect(decide(command).decision).toBe('deny');
  });

  it.each([
    'git branch new-feature',
    'git branch -d main',
    'git branch main --list',
    'git push',
    'git commit -m x',
    'git  push',
    'git log; rm -rf x',
    'git log && rm x',
    'git log | tee out',
    'echo $(rm x)',
    'echo `rm x`',
    'cat <(rm x)',
    'env rm x',
    'env ls',
    'sudo ls',
    'xargs cat',
    'find . -exec cat {} \\;',
    'bash -c "ls"',
    'git -C . push',
    'git -c core.pager=rm log',
    'cat a > b',
    'cat a >> b',
    'ls &> b',
    'cat < /dev/tcp/example.com/80',
    'X=1 ls',
    'GIT_EXTERNAL_DIFF=rm git diff',
    'f() { ls; }; f',
    '/bin/ls',
    './ls',
    'python3 -c "print(1)"',
    'cp a b',
    'tee b',
  ])('denies %j', (command) => {
    expect(decide(command).decision).toBe('deny');
  });
});

// What the README's "a text gate is not a sandbox" says plan does not protect: reads outside the workspace and
// the environment are allowed.
it.each(['cat /home/me/.ssh/id_ed25519', 'grep -r key /etc', 'cat /proc/self/environ'])(
  'plan: bash still reads outside the workspace: %j is allowed',
  (command) => {
    expect(decide(command).decision).toBe('allow');
  },
);

describe('plan: the denied flags really write or run programs', () => {
  let dir: string;
  const sh = (command: string) =>
    spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', command], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
    });
  const files = () => readdirSync(dir).sort();

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dsh-plan-'));
    writeFileSync(join(dir, 'in'), 'b\na\na\n');
    writeFileSync(join(dir, 'magic'), '0 string DSHMAGIC dsh test file\n');
    const git = sh(
      'git init -q . && git add in && git -c user.name=t -c user.email=t@t commit -qm one && echo c >> in',
    );
    expect(git.status, git.stderr).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Each: a command plan denies, and the file it creates when real bash runs it.
  it.each([
    ['sort -o out1 in', 'out1'],
    ['sort --outp=out2 in', 'out2'],
    ['sort -uo=out3 in', '=out3'],
    ['sort --random-source -- -uo=out4 in', '=out4'],
    ['uniq in out5', 'out5'],
    ['find . -maxdepth 1 -name in -fprint out6', 'out6'],
    ['find . -maxdepth 1 -name in -exec touch out7 \\;', 'out7'],
    ['git log --output=out8', 'out8'],
    ['git diff --output=out9', 'out9'],
    ['git blame --output=out10 in', 'out10'],
    ['git grep -O"touch out11" a', 'out11'],
    ['git grep --op="touch out12" a', 'out12'],
    ['file -C -m magic', 'magic.mgc'],
  ])('%j creates %s, and plan denies it', (command, created) => {
    expect(decide(command).decision).toBe('deny');
    expect(files()).not.toContain(created);
    sh(command);
    expect(files()).toContain(created);
  });

  it('`find -delete` deletes, and plan denies it', () => {
    writeFileSync(join(dir, 'doomed'), '');
    const command = 'find . -maxdepth 1 -name doomed -delete';
    expect(decide(command).decision).toBe('deny');
    sh(command);
    expect(files()).not.toContain('doomed');
  });

  it('`diff -l` runs its output through pr, and plan denies it', () => {
    writeFileSync(join(dir, 'other'), 'x\n');
    expect(decide('diff -l in other').decision).toBe('deny');
    // pr adds a page header with the page number; plain diff output has none.
    expect(sh('diff -l in other').stdout).toMatch(/Page 1/);
    expect(sh('diff in other').stdout).not.toMatch(/Page 1/);
  });

  it('the allowed commands leave the workspace as it was', () => {
    const snapshot = () =>
      readdirSync(dir, { recursive: true })
        .map(String)
        .sort()
        .map((f) => {
          const s = statSync(join(dir, f));
          return `${f} ${s.size} ${s.mtimeMs}`;
        });
    const before = snapshot();
    const commands = PROGRAMS.flatMap((p) => p.allowed).filter((c) => !c.startsWith('rg'));
    for (const command of commands) {
      expect(decide(command).decision, command).toBe('allow');
      // git status refreshes the index unless told not to: the host's bash sets this for every command.
      sh(`GIT_OPTIONAL_LOCKS=0 timeout 10 ${command} < /dev/null`);
    }
    expect(snapshot()).toEqual(before);
  });
});
