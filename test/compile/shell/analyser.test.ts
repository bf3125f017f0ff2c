import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { parse as parseShell } from 'unbash';
import { describe, expect, it } from 'vitest';
import {
  extractCommands,
  MAX_NESTING,
  MAX_SCRIPT_LENGTH,
  type ScriptAnalysis,
} from '../../../src/compile/shell/index.js';
import { PLAIN_WORD, toShellWord, wordShape } from '../../../src/compile/shell/words.js';

const isPlainWord = (text: string) => wordShape(text) === PLAIN_WORD;

const names = (a: ScriptAnalysis) => a.commands.map((c) => c.name);
const kinds = (script: string) => extractCommands(script).unanalysable.map((r) => r.kind);
const values = (script: string, i = 0) =>
  extractCommands(script).commands[i]!.words.map((w) => (w.known ? w.value : `?${w.text}`));

describe('extractCommands', () => {
  it('lists every simple command with its dequoted words and source text', () => {
    const a = extractCommands(`git log -5 && echo "a b" 'c'`);
    expect(names(a)).toEqual(['git', 'echo']);
    expect(a.commands[1]!.words.map((w) => w.value)).toEqual(['echo', 'a b', 'c']);
    expect(a.commands[1]!.text).toBe(`echo "a b" 'c'`);
    expect(a.unanalysable).toEqual([]);
  });

  it('gives each command and reason its line and column in the script', () => {
    const a = extractCommands('ls\n  cat a > b');
    expect(a.commands[1]!.span).toEqual({ start: 5, end: 14, line: 2, column: 3 });
    expect(a.unanalysable[0]!.span).toMatchObject({ line: 2, column: 9 });
    expect(a.unanalysable[0]!.message).toBe('a redirection of `cat` that writes `b` (`> b`)');
  });

  it('marks words with expansions, globs, braces and `~` as not known', () => {
    // Commands nested in words come first: `a` and `b`, then `ls`.
    expect(values('ls $X "$Y" ${Z} $(a) `b` * ? [ab] {a,b} ~ ~/x a=~ @(x) $"t"', 2)).toEqual([
      'ls',
      '?$X',
      '?"$Y"',
      '?${Z}',
      '?$(a)',
      '?`b`',
      '?*',
      '??',
      '?[ab]',
      '?{a,b}',
      '?~',
      '?~/x',
      '?a=~',
      '?@(x)',
      '?$"t"',
    ]);
    expect(values(`ls '*' "*" \\* \\~ {} -I{} $'a\\tb' "a"'b'c`)).toEqual([
      'ls',
      '*',
      '*',
      '*',
      '~',
      '{}',
      '-I{}',
      'a\tb',
      'abc',
    ]);
  });

  it('knows a `~` that bash leaves alone: after any character but `=` and `:`', () => {
    // bash expands `~` at the start of a word and after `=` or `:` in an assignment-like word, nowhere else.
    expect(values('git diff HEAD~1 a~ x=~ a:~ x=a:~ "a"~')).toEqual([
      'git',
      'diff',
      'HEAD~1',
      'a~',
      '?x=~',
      '?a:~',
      '?x=a:~',
      '?"a"~',
    ]);
  });

  it('gives every word it calls known the value real bash expands it to', () => {
    const script = `printf '%s\\n' HEAD~1 a~ @{u}~2 x=~ a:~ ~ ~/x '~' \\~ -I{} a=b "a"'b' $'a\\tb' x,y`;
    const words = extractCommands(script).commands[0]!.words.slice(2);
    const bash = spawnSync('/bin/bash', ['--norc', '--noprofile', '-c', script], {
      env: { HOME: '/nonexistent-home', PATH: '/usr/bin:/bin' },
      encoding: 'utf8',
    });
    const expanded = bash.stdout.split('\n').slice(0, -1);
    expect(expanded).toHaveLength(words.length);
    // Unknown words may expand or not (`a:~` stays as it is); a known word must be exactly what bash passes.
    words.forEach((w, i) => {
      if (w.known) expect(w.value, w.text).toBe(expanded[i]);
    });
    expect(words.filter((w) => w.known).length).toBe(words.length - 4);
  });

  it('names the wrapper each wrapped command runs under, and its index', () => {
    const a = extractCommands('sudo -u root env -u X -- nice -n 5 rm x');
    expect(names(a)).toEqual(['sudo', 'env', 'nice', 'rm']);
    expect(a.commands.map((c) => c.via)).toEqual([[], ['sudo'], ['sudo', 'env'], ['sudo', 'env', 'nice']]);
    expect(a.commands.map((c) => c.parent)).toEqual([undefined, 0, 1, 2]);
    expect(a.commands[3]!.text).toBe('rm x');
  });

  it('finds the command behind each wrapper option form', () => {
    const cases: [string, string[]][] = [
      ['timeout -s KILL 5 rm x', ['rm', 'x']],
      ['timeout --kill-after=1 -v 5 rm', ['rm']],
      ['nice -n 5 rm', ['rm']],
      ['nice --adjustment=3 rm', ['rm']],
      ['nice -5 rm', ['rm']],
      ['stdbuf -oL -e0 rm', ['rm']],
      ['exec -cl -a name rm', ['rm']],
      ['command -p rm', ['rm']],
      ['builtin echo hi', ['echo', 'hi']],
      ['nohup rm', ['rm']],
      ['setsid -w rm', ['rm']],
      ['\\time -f %e -o /dev/null rm', ['rm']],
      ['xargs -0 -n 1 -P 2 rm', ['rm', '?<arguments from standard input>']],
      ['xargs -I{} rm {} x{}', ['rm', '?{}', '?x{}']],
      ['xargs -i rm {}', ['rm', '?{}']],
      ['xargs --replace=@ rm @', ['rm', '?@']],
      ['xargs', ['echo', '?<arguments from standard input>']],
      ['watch -x rm x', ['rm', 'x']],
      ['flock -n /tmp/l rm x', ['rm', 'x']],
      ['sudo -E -- rm', ['rm']],
    ];
    for (const [script, expected] of cases) {
      const a = extractCommands(script);
      expect(a.unanalysable, script).toEqual([]);
      expect(values(script, a.commands.length - 1), script).toEqual(expected);
    }
  });

  it('finds the program a package runner runs', () => {
    const cases: [string, string[][]][] = [
      ['npx git push', [['git', 'push']]],
      ['npx -y --package=x -- git push', [['git', 'push']]],
      ['npx -p x git push origin', [['git', 'push', 'origin']]],
      [
        'npx -c "git push; rm x"',
        [
          ['git', 'push'],
          ['rm', 'x'],
        ],
      ],
      ['npm exec -- git --no-pager push', [['git', '--no-pager', 'push']]],
      ['npm x -y -- git push', [['git', 'push']]],
      ['npm exec git push', [['git', 'push']]],
      ['npm exec -c "rm x"', [['rm', 'x']]],
      ['pnpm dlx git push', [['git', 'push']]],
      ['pnpm --package=x -s exec git push', [['git', 'push']]],
      ['pnpm -c exec "git push | cat"', [['git', 'push'], ['cat']]],
      ['yarn dlx -p x git push', [['git', 'push']]],
      ['bunx --bun git push', [['git', 'push']]],
      ['bun x git push', [['git', 'push']]],
      [
        'sudo npx git push',
        [
          ['npx', 'git', 'push'],
          ['git', 'push'],
        ],
      ],
    ];
    for (const [script, expected] of cases) {
      const a = extractCommands(script);
      expect(a.unanalysable, script).toEqual([]);
      const ran = a.commands.filter((c) => c.via.at(-1) === a.commands[0]!.name || c.via.at(-1) === 'npx');
      expect(
        ran.map((c) => c.words.map((w) => w.value)),
        script,
      ).toEqual(expected);
    }
    // Runner forms that run nothing modelled are commands of their own.
    for (const script of [
      'npm test',
      'npm --silent test',
      'pnpm install',
      'pnpm -C x test',
      'yarn install',
      'bun run x',
      'npx',
    ])
      expect(extractCommands(script).commands, script).toHaveLength(1);
  });

  it('fails closed on package runner forms it cannot read exactly', () => {
    for (const script of [
      'npx --frob git push', // an option npx's table does not list
      'npx cowsay@1 hi', // a package spec: its program's name is the registry's
      'npx @scope/tool',
      'npx github:u/r',
      'npx -p x "git push"', // npx runs its first operand as shell text
      'npx -c "rm x" git', // npm refuses a program beside a command string
      'npm exec git --no-pager push', // npm reads `--no-pager` as its own option
      'npm --silent exec -- git push',
      'pnpm dlx --package=x git push', // an option after `dlx`
      'pnpm -C x exec git push', // `-C` runs in another folder
      'pnpm dlx @scope/tool',
      'yarn exec git push', // yarn's own shell
      'yarn --cwd x dlx git',
      'bun --bun x git push',
    ])
      expect(kinds(script), script).toEqual(['wrapper']);
    for (const script of ['npx $X push', 'npx -c "$S"', 'pnpm -c exec "$S"', 'bunx -p $P git'])
      expect(kinds(script), script).toEqual(['expansion']);
  });

  it('runs nothing for wrapper forms that only print', () => {
    for (const script of [
      'command -v rm',
      'command -V rm',
      'xargs --help',
      'bash --version',
      'timeout',
      'flock 3',
      'flock /tmp/l',
      'env',
      'eval',
      'watch -n 1',
    ])
      expect(extractCommands(script).commands, script).toHaveLength(1);
  });

  it('parses the script strings of `bash -c`, `eval`, `watch` and `flock -c`, and spans them by the string', () => {
    const a = extractCommands(`ls; bash -xc 'git log | rm x'`);
    expect(names(a)).toEqual(['ls', 'bash', 'git', 'rm']);
    expect(a.commands[3]!.text).toBe('rm x');
    expect(a.commands[3]!.span).toMatchObject({ start: 13, column: 14 });
    expect(a.commands[3]!.via).toEqual(['bash']);
    expect(names(extractCommands('eval rm x\\; ls'))).toEqual(['eval', 'rm', 'ls']);
    expect(names(extractCommands('watch -n 1 git status'))).toEqual(['watch', 'git']);
    expect(names(extractCommands(`flock /tmp/l -c 'rm x'`))).toEqual(['flock', 'rm']);
    expect(extractCommands(`bash -c 'f() { :; }'`).unanalysable[0]!.message).toBe(
      'a function definition: `f` (inside the script of `bash`)',
    );
  });

  it('finds each command of `find -exec`, `-execdir`, `-ok` and `-okdir`', () => {
    const a = extractCommands(
      `find -L . -name x -exec grep a {} + -ok rm {} ';' -execdir cat \\; -okdir ls {} \\;`,
    );
    expect(names(a)).toEqual(['find', 'grep', 'rm', 'cat', 'ls']);
    expect(a.commands[1]!.words.map((w) => w.known)).toEqual([true, true, false]);
    expect(a.commands.every((c, i) => i === 0 || c.parent === 0)).toBe(true);
  });

  it.each([
    [
      'env -S "rm x"',
      'wrapper',
      '`env -S` splits a string into a command, which this analyser does not model',
    ],
    ['env X=1 rm', 'assignment', '`env` sets a variable: `X=1`'],
    ['env $X rm', 'expansion', 'an argument of `env` with an expansion: `$X`'],
    ['env - rm', undefined, undefined],
    ['sudo -s rm', 'wrapper', 'an option of `sudo` this analyser does not know: `-s`'],
    ['sudo X=1 rm', 'assignment', '`sudo` sets a variable: `X=1`'],
    [
      'timeout --sig=KILL 5 rm',
      'wrapper',
      'an option of `timeout` this analyser does not know: `--sig=KILL`',
    ],
    ['timeout $T rm', 'expansion', 'an argument of `timeout` with an expansion: `$T`'],
    ['timeout -s', 'wrapper', '`timeout` option `-s` needs a value'],
    ['timeout --signal', 'wrapper', '`timeout` option `--signal` needs a value'],
    ['timeout --signal $S 5 rm', 'expansion', 'an argument of `timeout` with an expansion: `$S`'],
    ['timeout -s $S 5 rm', 'expansion', 'an argument of `timeout` with an expansion: `$S`'],
    ['timeout --foreground=1 5 rm', 'wrapper', '`timeout` option `--foreground` takes no value'],
    ['nice -n $N rm', 'expansion', 'an argument of `nice` with an expansion: `$N`'],
    ['find . -name x -exec rm {}', 'wrapper', '`find -exec` has no terminating `;` or `+`'],
    ['find . -exec \\;', 'wrapper', '`find -exec` has no command'],
    ['find . $(echo -delete)', 'expansion', 'an argument of `find` with an expansion: `$(echo -delete)`'],
    ['bash x.sh', 'wrapper', '`bash` runs the script file `x.sh`, whose commands are not known'],
    ['bash', 'wrapper', '`bash` reads its commands from standard input, whose commands are not known'],
    ['bash -c', 'wrapper', '`bash -c` has no command string'],
    ['bash -c "$S"', 'expansion', 'an argument of `bash` with an expansion: `"$S"`'],
    ['bash -i -c ls', 'wrapper', 'an option of `bash` this analyser does not model: `-i`'],
    ['bash --login -c ls', 'wrapper', 'an option of `bash` this analyser does not model: `--login`'],
    ['bash -x --norc -c ls', 'wrapper', 'an option of `bash` this analyser does not model: `--norc`'],
    ['bash -o', 'wrapper', '`bash -o` needs a known value'],
    ['bash $F -c ls', 'expansion', 'an argument of `bash` with an expansion: `$F`'],
    ['sh -- x.sh', 'wrapper', '`sh` runs the script file `x.sh`, whose commands are not known'],
    ['eval "$S"', 'expansion', 'an argument of `eval` with an expansion: `"$S"`'],
    ['watch ls $X', 'expansion', 'an argument of `watch` with an expansion: `$X`'],
    ['flock -c ls /tmp/l', 'wrapper', '`flock -c` before the lock file, which this analyser does not model'],
    ['flock $L rm', 'expansion', 'an argument of `flock` with an expansion: `$L`'],
    ['flock /tmp/l -c', 'wrapper', '`flock -c` has no command string'],
    ['flock /tmp/l -c "$S"', 'expansion', 'the command string of `flock -c` has an expansion: `"$S"`'],
    ['doas rm', 'wrapper', '`doas` runs other programs in a way this analyser does not model'],
    ['$X rm', 'expansion', 'a command name with an expansion: `$X`'],
  ])('%j is unanalysable: %s', (script, kind, message) => {
    const reasons = extractCommands(script).unanalysable;
    if (kind === undefined) expect(reasons).toEqual([]);
    else expect(reasons.map((r) => [r.kind, r.message])).toContainEqual([kind, message]);
  });

  it('lists redirections and accepts only input, descriptors and /dev/null', () => {
    const a = extractCommands('cat <a 2>/dev/null >&2 3>&- 4<&0 <<<s >out 2>>log &>x');
    expect(a.redirects.map((r) => [r.operator, r.fd ?? null, r.target.value, r.output, r.accepted])).toEqual([
      ['<', null, 'a', false, true],
      ['>', 2, '/dev/null', true, true],
      ['>&', null, '2', false, true],
      ['>&', 3, '-', false, true],
      ['<&', 4, '0', false, true],
      ['<<<', null, 's', false, true],
      ['>', null, 'out', true, false],
      ['>>', 2, 'log', true, false],
      ['&>', null, 'x', true, false],
    ]);
    expect(a.unanalysable.map((r) => r.kind)).toEqual(['redirect', 'redirect', 'redirect']);
    expect(kinds('ls >&file')).toEqual(['redirect']);
    expect(kinds('ls > $F')).toEqual(['redirect']);
    expect(kinds('{fd}>/dev/null ls')).toEqual(['assignment']);
    expect(kinds('exec 3<>/dev/null')).toEqual([]);
  });

  it('does not accept reading from a network socket, or from a file whose name is not known', () => {
    // bash opens /dev/tcp/HOST/PORT itself, so `cat < /dev/tcp/…` reaches the network with only `cat` run.
    expect(extractCommands('cat < /dev/tcp/example.com/80').unanalysable.map((r) => r.message)).toEqual([
      'a redirection of `cat` that opens a network connection to `/dev/tcp/example.com/80` (`< /dev/tcp/example.com/80`)',
    ]);
    expect(kinds('cat 3</dev/udp/1.2.3.4/53')).toEqual(['redirect']);
    expect(kinds('cat <"$F"')).toEqual(['redirect']);
    expect(kinds('cat <a <&0 <<<"$S"')).toEqual([]);
  });

  it('walks here-document bodies unless the delimiter is quoted', () => {
    expect(names(extractCommands('cat <<EOF\n$(rm x)\nEOF'))).toEqual(['rm', 'cat']);
    expect(names(extractCommands("cat <<'EOF'\n$(rm x)\nEOF"))).toEqual(['cat']);
    expect(extractCommands('cat <<EOF\nx\nEOF').redirects[0]).toMatchObject({
      operator: '<<',
      target: { value: 'EOF' },
    });
  });

  it('fails closed on interpreters fed a here-document, a here-string or a pipe', () => {
    expect(kinds('python3 <<EOF\nprint(1)\nEOF')).toEqual(['heredoc-interpreter']);
    expect(kinds("node <<< 'x'")).toEqual(['heredoc-interpreter']);
    expect(kinds("{ ruby; } <<< 'x'")).toEqual(['heredoc-interpreter']);
    expect(kinds('cat a | python3 -')).toEqual(['heredoc-interpreter']);
    expect(kinds('cat a | python3 script.py')).toEqual([]);
    expect(kinds("cat <<< 'x'")).toEqual([]);
  });

  it('fails closed on assignments, definitions and builtins that change the shell', () => {
    expect(kinds('X=1')).toEqual(['assignment']);
    expect(kinds('a=(1 $(rm x))')).toEqual(['assignment']);
    expect(names(extractCommands('a=(1 $(rm x))'))).toEqual(['rm']);
    expect(kinds('declare -a a[1]=x b+=y')).toEqual(['assignment']);
    expect(values('declare a[1]=x b+=y c=(1)')).toEqual(['declare', 'a[1]=x', 'b+=y', '?c=(1)']);
    expect(kinds('printf -v x hi')).toEqual(['assignment']);
    expect(kinds('printf hi')).toEqual([]);
    expect(kinds('alias ll=ls')).toEqual(['definition']);
    expect(kinds('f() { rm x; }')).toEqual(['definition']);
    expect(names(extractCommands('f() ( rm x )'))).toEqual(['rm']);
    for (const s of [
      'set -e',
      'shopt -s expand_aliases',
      'hash -r',
      'source x',
      '. x',
      'trap ls EXIT',
      'enable -n echo',
      'unalias ls',
    ])
      expect(kinds(s), s).toEqual(['shell-state']);
    expect(kinds('coproc rm x')).toEqual(['coproc']);
    expect(names(extractCommands('coproc rm x'))).toEqual(['rm']);
    expect(kinds('for x in a; do ls; done')).toEqual(['assignment']);
    expect(kinds('select x in a; do ls; done')).toEqual(['assignment']);
  });

  it('judges commands nested in tests and fails closed on arithmetic that runs or assigns', () => {
    expect(names(extractCommands('[[ -n $(rm x) && ! ( -f a || $(ls) == b ) ]]'))).toEqual(['rm', 'ls']);
    expect(kinds('[[ -n $(rm x) ]]')).toEqual([]);
    expect(kinds("[[ 1 -eq 'a[$(rm x)]' ]]")).toEqual(['arithmetic']);
    expect(kinds("[[ -v 'a[`rm x`]' ]]")).toEqual(['arithmetic']);
    expect(kinds('(( 1 + 2 ))')).toEqual([]);
    expect(kinds('(( x = 1 ))')).toContain('assignment');
    expect(kinds('(( i++ ))')).toContain('assignment');
    // A variable's value is evaluated as an expression too, and `$_` is the last argument of the previous
    // command: `echo 'a[$(rm x)]'; (( _ ))` runs `rm x`. Numbers in any base are fine.
    expect(kinds('(( x == 1 ))')).toEqual(['arithmetic']);
    expect(kinds("echo 'a[$(rm x)]'; (( _ ))")).toEqual(['arithmetic']);
    expect(kinds('[[ 1 -eq _ ]]')).toEqual(['arithmetic']);
    expect(kinds('[[ -v a[_] ]]')).toEqual(['arithmetic']);
    expect(kinds('[[ -v a ]]')).toEqual([]);
    expect(kinds('[[ -v $_ ]]')).toEqual(['arithmetic']);
    expect(kinds('[[ -R "$_" ]]')).toEqual(['arithmetic']);
    expect(kinds("test -v 'a[_]'")).toEqual(['arithmetic']);
    expect(kinds('cat <<< $[_]')).toEqual(['arithmetic']);
    expect(kinds('for (( ; _ ; )); do ls; done')).toEqual(['arithmetic']);
    expect(kinds('(( 0x1f + 16#ff + 2#101 )); for ((;;)); do ls; done')).toEqual([]);
    // `${!x}` uses the value as a name (with its subscript), `${x@P}` expands it as a prompt (`$(…)` runs), and
    // `${x:=v}` assigns; names and keys (`${!p*}`, `${!a[@]}`) are fine.
    expect(kinds('case ${!_} in *) ls;; esac')).toEqual(['unsupported']);
    expect(kinds('[[ -n ${_@P} ]]')).toEqual(['unsupported']);
    expect(kinds('cat <<E\n"${_@P}"\nE')).toEqual(['unsupported']);
    expect(kinds('case ${PATH:=/tmp} in *) ls;; esac')).toEqual(['assignment']);
    expect(kinds('cat <<< "${!BASH*} ${!a[@]} ${a[@]} ${a@Q}"')).toEqual([]);
    expect(kinds('echo $(( $(rm x) ))')).toEqual(['arithmetic']);
    // The reason names what is there: `$((`'s own `$(` is no command substitution, so numbers alone are fine
    // (the word is still unknown, so no allow pattern matches it) and a variable is reported as one.
    expect(extractCommands('echo $((1 + 2)) $[3]').unanalysable).toEqual([]);
    expect(extractCommands('echo $((x))').unanalysable.map((r) => r.message)).toEqual([
      'an arithmetic expression that reads a variable, whose value bash evaluates as an expression (and runs the substitutions in its subscripts): `x`',
    ]);
    expect(extractCommands('echo $(( $(rm x) ))').unanalysable.map((r) => r.message)).toEqual([
      'a command substitution inside an arithmetic expression: `$(rm x)`',
    ]);
    expect(extractCommands('echo $(( $((1)) ))').unanalysable.map((r) => r.message)).toEqual([
      'an arithmetic expansion inside an arithmetic context: `$((1))`',
    ]);
    expect(kinds('echo ${a[$(rm x)]}')).toContain('arithmetic');
    expect(kinds('echo ${a:$(rm x)}')).toContain('arithmetic');
    expect(names(extractCommands('echo ${a/$(rm x)/$(ls)} ${a^^$(cat)} ${a@Q} ${#a}'))).toEqual([
      'rm',
      'ls',
      'cat',
      'echo',
    ]);
    expect(kinds('let x=1')).toContain('assignment');
    expect(kinds('let "a[$(rm x)]"')).toContain('arithmetic');
  });

  it('walks every compound command', () => {
    const script = [
      'if a; then b; elif c; then d; else e; fi',
      'while f; do g; done; until h; do i; done',
      'case $(j) in k) l;; esac',
      '(m) | { n; } || ! o &',
      'time -p p',
      'echo @(q|$(r)) {s,$(t)} [$(u)]',
    ].join('\n');
    expect(names(extractCommands(script))).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
      'g',
      'h',
      'i',
      'j',
      'l',
      'm',
      'n',
      'o',
      'p',
      'r',
      't',
      'u',
      'echo',
    ]);
  });

  it('maps commands inside escaped backticks to the substitution in the script', () => {
    const a = extractCommands('echo `echo \\`rm x\\``');
    expect(names(a)).toEqual(['rm', 'echo', 'echo']);
    expect(a.commands[0]!.span).toMatchObject({ start: 5, column: 6 });
  });

  it('reports the first parse error with its column', () => {
    const reasons = extractCommands('ls; echo "open').unanalysable;
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatchObject({ kind: 'parse-error', span: { column: 10 } });
    expect(reasons[0]!.message).toMatch(/^the shell cannot parse this script: /);
  });

  it('stops at its limits in bounded time', () => {
    expect(kinds('x'.repeat(MAX_SCRIPT_LENGTH + 1))).toEqual(['limit']);
    const deep = 'eval '.repeat(MAX_NESTING + 2) + 'rm';
    expect(kinds(deep)).toEqual(['limit']);
    const subst = '$('.repeat(MAX_NESTING + 2) + 'rm' + ')'.repeat(MAX_NESTING + 2);
    expect(kinds(subst)).toContain('limit');
    const long = Array.from({ length: 5000 }, () => 'a $(b) | c').join('; ');
    expect(extractCommands(long).commands).toHaveLength(15000);
  });
});

describe('plain words', () => {
  it('reads a plain word as the parser would: its value is its text, known, with only literal parts', () => {
    // The analyser skips the parser's (lazy) word parts for plain words; this checks the shortcut against them.
    const alphabet = [...'aZ09_.-/,:=+%@^', ...'~*?[]{}$`\'"\\!#()<>|&;  \t'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 8 }), (chars) => {
        const text = chars.join('');
        const script = parseShell(`echo ${text}`);
        const cmd = script.commands[0]?.command;
        if (cmd?.type !== 'Command') return;
        for (const item of cmd.suffix) {
          if (item.type !== 'Word' || !isPlainWord(item.text)) continue;
          expect(item.value).toBe(item.text);
          expect((item.parts ?? []).every((p) => p.type === 'Literal' && p.text === item.text)).toBe(true);
          // Known as the parts would say: literal parts with no `~` bash may expand.
          expect(/(?:^|[=:])~/.test(item.text)).toBe(false);
          expect(toShellWord(item)).toEqual({ text: item.text, value: item.text, known: true });
        }
      }),
      { numRuns: 3000 },
    );
    expect(isPlainWord('src/a-b_c.ts')).toBe(true);
    for (const w of ['~', 'a*', '$x', '{a,b}', "'a'", 'a\\b', '!x', '#x', ''])
      expect(isPlainWord(w), w).toBe(false);
  });
});
