/**
 * Red team of the shell analyser's and the call memo's fast paths (the speed push after e8ead58): each test is an
 * attack. Where it shows a hole, the script really runs a program under /bin/bash in a temp folder, and the decision
 * (through `decideCall`, with the gate's real workspace check) must not allow it. Attacks that held stay as tests,
 * so a later shortcut that opens them fails here.
 */
import fc from 'fast-check';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compilePolicies, fsPathResolver, type CompiledPolicy } from '../../src/compile/api.js';
import { fsProgramCheck } from '../../src/compile/decide/fs-program-check.js';
import { builtinPlan, hostBash } from './host-bash.js';
import { extractCommands } from '../../src/compile/shell/index.js';
import { policy } from '../compile/helpers.js';

const plan = builtinPlan;

let dir: string;
const bash = (command: string, cwd = dir) => hostBash(command, cwd, dir);
const git = (cwd: string, command: string) => {
  const run = bash(`git -c user.name=t -c user.email=t@t ${command}`, cwd);
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
};
/** A clean repository with one commit at `at`. */
const repository = (at: string) => {
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, 'a'), 'a\n');
  git(at, 'init -q . && git add a && git -c user.name=t -c user.email=t@t commit -qm one');
};
/** Makes `at`'s repository run `touch <marker>` on `git status` (its fsmonitor hook). */
const hostile = (at: string, marker: string) =>
  git(at, `config core.fsmonitor 'touch ${join(dir, marker)}; false'`);
const ran = (marker: string) => existsSync(join(dir, marker));
/** The gate's decision: the real workspace check and path resolver over `workspace`. */
const gate = (p: CompiledPolicy, command: string, workspace = dir) =>
  p.decideCall!(
    { name: 'bash', arguments: { command } },
    { checkProgram: fsProgramCheck(workspace), resolvePath: fsPathResolver(workspace) },
  );

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-red-shell-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the call memo keeps a text from its second call: the workspace is asked on every call', () => {
  it('a hostile .git/config that appears after the text is memoised withholds the third call', () => {
    repository(dir);
    const command = 'git status --short';
    expect(gate(plan, command).decision).toBe('allow');
    expect(gate(plan, command).decision).toBe('allow'); // memoised from here on
    hostile(dir, 'late');
    bash(command);
    expect(ran('late')).toBe(true);
    const third = gate(plan, command);
    expect(third.decision).toBe('deny');
    expect(third.note).toContain('`core.fsmonitor`');
    // Cleaned again, the memoised allow comes back.
    git(dir, 'config --unset core.fsmonitor');
    expect(gate(plan, command).decision).toBe('allow');
  });

  it('two workspaces with the same text, interleaved, each get their own answer', () => {
    const clean = join(dir, 'clean');
    const evil = join(dir, 'evil');
    repository(clean);
    repository(evil);
    hostile(evil, 'evil-ran');
    const command = 'ls && git log -1 --oneline';
    for (let round = 0; round < 4; round++) {
      expect(gate(plan, command, clean).decision, `round ${round}`).toBe('allow');
      expect(gate(plan, command, evil).decision, `round ${round}`).toBe('deny');
    }
  });

  it('a path decision is not memoised: a symlink that appears after two calls is followed on the third', () => {
    const notes = policy(
      'n',
      'mode: n\ntools:\n  read:\n    decision: deny\n    paths: { "notes/**": allow }\n',
    );
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'notes/a.md'), 'a\n');
    writeFileSync(join(dir, 'secret'), 's\n');
    const read = () =>
      notes.decideCall!(
        { name: 'read', arguments: { path: 'notes/b.md' } },
        { resolvePath: fsPathResolver(dir), checkProgram: fsProgramCheck(dir) },
      ).decision;
    expect(read()).toBe('allow');
    expect(read()).toBe('allow');
    symlinkSync(join(dir, 'secret'), join(dir, 'notes/b.md'));
    expect(read()).toBe('deny');
  });

  it('a decision memoised in one mode is not another mode’s, nor another policy’s with the same text', () => {
    const text = [
      'mode: a\ntools:\n  bash:\n    decision: deny\n    commands: { "ls **": allow }\n',
      'mode: b\ntools:\n  bash:\n    decision: deny\n    commands: { "ls **": deny, "cat **": allow }\n',
    ];
    const a = policy('a', ...text);
    const b = policy('b', ...text);
    const call = { name: 'bash', arguments: { command: 'ls -la' } };
    for (let i = 0; i < 3; i++) {
      expect(a.decideCall!(call).decision).toBe('allow');
      expect(b.decideCall!(call).decision).toBe('deny');
    }
    const other = policy('a', 'mode: a\ntools:\n  bash: { decision: deny, commands: { "ls -l": allow } }\n');
    for (let i = 0; i < 3; i++) expect(other.decideCall!(call).decision).toBe('deny');
  });
});

describe('git run in another folder than the workspace the check looked at', () => {
  // The workspace check asks the workspace's repository. A script that moves first (`cd`, `pushd`, `env -C`,
  // `sudo -D`, `find -execdir`, git's own `-C`) runs git in a repository nobody checked: a nested one that a
  // download, an archive or a test fixture brought along. A policy that allows `cd` (agents cd all the time) and a
  // git read let it run the nested repository's fsmonitor. Fixed: such a script's git is never allowed.
  const dev = policy(
    'dev',
    'mode: dev\ntools:\n  bash:\n    decision: deny\n    commands:\n' +
      '      "cd **": allow\n      "pushd **": allow\n      "popd": allow\n      "env **": allow\n' +
      '      "sudo **": allow\n      "find **": allow\n      "ls **": allow\n      "git status **": allow\n' +
      '      "git -C ** status **": allow\n      "git --git-dir* ** status **": allow\n',
  );
  const nested = () => {
    repository(dir);
    repository(join(dir, 'nested'));
    hostile(join(dir, 'nested'), 'nested-ran');
  };

  it.each([
    'cd nested && git status --short',
    'cd nested; git status',
    '(cd nested && git status)',
    'ls && { cd nested; ls; } && git status',
    'pushd nested >/dev/null && git status',
    'env -C nested git status',
    'env -iC nested git status',
    'env --chdir=nested git status',
    'env -u X --chdir nested git status',
    'find nested -maxdepth 1 -name a -execdir git status \\;',
    'git -C nested status',
    'git --git-dir=nested/.git --work-tree=nested status',
  ])('%j runs the nested repository’s fsmonitor, and is not allowed', (command) => {
    nested();
    // The workspace's own repository is clean: the check passes it, and a plain read is allowed.
    expect(gate(dev, 'git status --short && ls').decision).toBe('allow');
    bash(command);
    expect(ran('nested-ran'), command).toBe(true);
    const verdict = gate(dev, command);
    expect(verdict.decision).toBe('deny');
    expect(verdict.unanalysable).toBe(true);
    expect(verdict.note).toContain('another folder than the workspace');
  });

  it('`sudo -D`, `sudo --chroot`, `popd` and `${ cd …; }` move too (judged as text: no sudo, no bash 5.3 here)', () => {
    nested();
    for (const command of [
      'sudo -D nested git status',
      'sudo -u root --chdir=nested git status',
      'sudo -R / git status',
      'pushd nested; popd; git status',
    ])
      expect(gate(dev, command).decision, command).toBe('deny');
    // bash 5.3's `${ …; }` runs in the current shell (this machine's bash 5.2 refuses it): a move inside it counts,
    // and git is denied for the move (not only for the assignment around it).
    for (const command of ['X=${ cd nested; }; git status', 'X=$(cd nested); git status']) {
      const verdict = gate(dev, command);
      expect(verdict.decision, command).toBe('deny');
      expect(verdict.note, command).toContain('another folder than the workspace');
    }
  });

  it('what does not move keeps its allow: other commands after a cd, options that only look alike', () => {
    nested();
    for (const command of [
      'cd nested && ls',
      'git status && ls',
      'env -u C git status',
      'env -i git status',
      'sudo -u D git status',
      'find . -name a -print && git status',
    ])
      expect(gate(dev, command).decision, command).toBe('allow');
    // Plan: `git log -C` is copy detection (an option of log, after the subcommand), not git's `-C`.
    repository(join(dir, 'p'));
    expect(gate(plan, 'git log -C -1 --oneline', join(dir, 'p')).decision).toBe('allow');
  });
});

describe('builtins that run or assign through their options', () => {
  const jobsy = policy(
    'jobsy',
    'mode: jobsy\ntools:\n  bash:\n    decision: deny\n    commands:\n' +
      '      "jobs **": allow\n      "wait **": allow\n      "ls **": allow\n      "builtin **": allow\n' +
      '      "command **": allow\n',
  );
  const decide = (command: string) => jobsy.decideCall!({ name: 'bash', arguments: { command } });

  it.each([
    'jobs -x touch pwned',
    'jobs -x -- touch pwned',
    'builtin jobs -x touch pwned',
    'command jobs -x touch pwned',
  ])('%j runs `touch` (bash’s `jobs -x` runs a command), and is not allowed', (command) => {
    bash(command);
    expect(ran('pwned'), command).toBe(true);
    const verdict = decide(command);
    expect(verdict.decision).toBe('deny');
    expect(verdict.subject).toBe('touch pwned');
  });

  it('`jobs` without `-x` runs nothing and stays allowed; a jobspec word is not known', () => {
    expect(decide('jobs -l').decision).toBe('allow');
    expect(decide('jobs').decision).toBe('allow');
    expect(decide('jobs -x ls %1').decision).toBe('deny');
  });

  it('`wait -p NAME` assigns (it clobbers PATH), and is not allowed', () => {
    const run = bash('true & wait -n -p PATH; ls');
    expect(run.stderr).toContain('ls: command not found');
    for (const command of ['true & wait -n -p PATH; ls', 'wait -np PATH', 'wait -p PATH'])
      expect(decide(command).decision, command).toBe('deny');
    expect(decide('wait -n').decision).toBe('allow');
    expect(decide('wait').decision).toBe('allow');
  });
});

describe('git after a write in the same script (open)', () => {
  // The workspace check runs before the script: a script that first writes the repository's configuration with an
  // allowed program (`cp`, `tee`, `sed -i`, …) and then runs git gets the check's answer for the configuration as
  // it was. Plan allows no program that writes, so only a policy that allows a writer and git is open. No small fix
  // (which programs write is not known to the analyser): pinned, it starts failing once closed.
  const dev = policy(
    'dev',
    'mode: dev\ntools:\n  bash:\n    decision: deny\n    commands:\n      "cp **": allow\n      "git status **": allow\n',
  );

  it.fails('`cp evil .git/config && git status` runs the copied fsmonitor, and is not allowed', () => {
    repository(dir);
    writeFileSync(join(dir, 'evil'), `[core]\n\tfsmonitor = "touch ${join(dir, 'copied-ran')}; false"\n`);
    const command = 'cp evil .git/config && git status --short';
    const verdict = gate(dev, command);
    bash(command);
    expect(ran('copied-ran')).toBe(true);
    expect(verdict.decision).not.toBe('allow');
  });
});

describe('plan: git branch formats that run gpg (git 2.42 and later)', () => {
  // `git branch --format` and `--sort` take ref-filter atoms; from git 2.42 `%(signature…)` verifies each branch
  // tip's signature with gpg, as `%G` does in `git log --format` (which plan denies). This machine's git (2.39)
  // predates the atom, so the test judges the text.
  const decide = (command: string) => plan.decideCall!({ name: 'bash', arguments: { command } }).decision;

  it.each([
    "git branch --list --format='%(signature)'",
    'git branch --list "--format=%(signature:grade)"',
    "git branch --list -v --format='%(refname) %(*signature:signer)'",
    'git branch --list --sort=signature:key',
    'git branch --list --sort signature',
    "git branch --list 'feat/*' --sort=-signature:trustlevel",
  ])('%j is denied', (command) => {
    expect(decide(command)).toBe('deny');
  });

  it('other formats and sort keys stay allowed', () => {
    expect(decide("git branch --list --format='%(refname:short) %(objectname)'")).toBe('allow');
    expect(decide('git branch --list --sort=-committerdate')).toBe('allow');
  });
});

describe('names the fast path must still check, however they are written (held)', () => {
  // `needsNameChecks` skips the checks for names no check reacts to, by a filter on the name's first and last
  // characters: a name written with quotes, escapes or a path is checked by its value, and a versioned interpreter
  // (ending in a digit or `.`) always is.
  it.each([
    ["'e'nv rm x", 'rm x'],
    ['\\env rm x', 'rm x'],
    ['"env" rm x', 'rm x'],
    ["/usr/bin/e'n'v rm x", 'rm x'],
    ["'jobs' -x rm x", 'rm x'],
    ['\\builtin \\command r\\m x', 'r\\m x'],
    ["x'args' rm < a", 'rm'],
    ['"ti"me\\out 5 rm x', 'rm x'],
    ['e"val" "rm x"', 'rm x'],
    ["s'h' -c 'rm x'", 'rm x'],
  ])('%j: the wrapped command is judged (%j)', (command, subject) => {
    const verdict = plan.decideCall!({ name: 'bash', arguments: { command } });
    expect(verdict.decision).toBe('deny');
    // The wrapper is a command of its own (first, and denied too); the one it runs is listed after it.
    expect(verdict.commands?.map((c) => c.text)).toContain(subject);
  });

  it.each([
    ['\\declare x=1; ls', 'assignment'],
    ["'s'et -x; ls", 'shell-state'],
    ['"."  a', 'shell-state'],
    ['sou\\rce a', 'shell-state'],
    ["ena'ble' -f x.so x", 'shell-state'],
    ['python3.12 <<< x', 'heredoc-interpreter'],
    ['perl5.36 <<E\nx\nE', 'heredoc-interpreter'],
    ['ls | /usr/bin/pypy3 -', 'heredoc-interpreter'],
    ["wa'it' -p PATH", 'assignment'],
    ["'a'lias ls=rm", 'definition'],
    // Every interpreter takes a version suffix, as the docs say (only python, pypy, perl, ruby, php, lua and tclsh
    // did): a here-document fed to `node20` or `bash5` is code they run.
    ['node20 <<< \'require("fs").rmSync("x")\'', 'heredoc-interpreter'],
    ['bash5 <<E\nrm x\nE', 'heredoc-interpreter'],
    ['ls | nodejs18', 'heredoc-interpreter'],
    ['cat a | /usr/local/bin/gawk5.1', 'heredoc-interpreter'],
  ])('%j is unanalysable (%s)', (command, kind) => {
    const verdict = plan.decideCall!({ name: 'bash', arguments: { command } });
    expect(verdict.decision).toBe('deny');
    expect(extractCommands(command).unanalysable.map((r) => r.kind)).toContain(kind);
  });
});

describe('the call memo against a fresh decision (property)', () => {
  // Generated policies and scripts, each script decided several times in one compiled policy (noted, then
  // memoised, then answered from the memo) with a workspace check that withholds git on some calls and not on
  // others: every answer must be the one a freshly compiled policy gives on its first call, with the same check.
  const patternWord = fc.constantFrom(
    'git',
    'ls',
    'log',
    'status',
    'rm',
    '-a',
    '-l',
    '*',
    'g*',
    '**',
    'cd',
    'x',
  );
  const commandWord = fc.constantFrom(
    'git',
    'ls',
    'log',
    'status',
    'rm',
    '-a',
    '-la',
    'x',
    '$X',
    'cd',
    '"g"it',
  );
  const decision = fc.constantFrom('allow', 'ask', 'deny');
  const document = fc.record({
    base: fc.option(decision, { nil: undefined }),
    commands: fc.dictionary(
      fc.array(patternWord, { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')),
      decision,
      { maxKeys: 6 },
    ),
  });
  const script = fc
    .array(fc.array(commandWord, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 })
    .chain((cs) => fc.constantFrom('; ', ' | ', ' && ').map((j) => cs.map((c) => c.join(' ')).join(j)));
  const compile = (d: { base?: string; commands: Record<string, string> }) => {
    const rule = { ...(d.base === undefined ? {} : { decision: d.base }), commands: d.commands };
    const source = { file: 'g.yaml', document: { mode: 'g', tools: { bash: rule }, default: 'deny' } };
    return compilePolicies([{ ...source, locate: () => undefined } as never]).get('g')!;
  };

  it('every call answers as a fresh policy does, whatever the check says this time', () => {
    fc.assert(
      fc.property(
        document,
        fc.array(script, { minLength: 1, maxLength: 4 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        (d, scripts, withhold) => {
          const kept = compile(d);
          let n = 0;
          for (let round = 0; round < 3; round++)
            for (const command of scripts) {
              const bad = withhold[n++ % withhold.length]!;
              const options = { checkProgram: (p: string) => (bad && p === 'git' ? 'hostile' : undefined) };
              const call = { name: 'bash', arguments: { command } };
              const got = kept.decideCall!(call, options);
              const fresh = compile(d).decideCall!(call, options);
              // A memoised deny may name another of the script's denied commands than a fresh one (it was decided
              // without the check: a deny needs none); an allow or ask is the same answer, subject and all.
              const subject = (v: typeof got) => (v.decision === 'deny' ? undefined : v.subject);
              expect([command, round, bad, got.decision, subject(got)]).toEqual([
                command,
                round,
                bad,
                fresh.decision,
                subject(fresh),
              ]);
            }
        },
      ),
      { numRuns: 400 },
    );
  });
});
