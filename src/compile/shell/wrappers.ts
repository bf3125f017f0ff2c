/**
 * Wrappers: programs that run another program. Each entry reads the wrapper's own options (from its manual page:
 * GNU coreutils, findutils, util-linux, procps, sudo, bash) and says exactly what it runs: words of its own
 * command line, a script string, or nothing. A form an entry does not recognise is a failure, never a guess.
 * The package runners (`npx`, `pnpm dlx`, …) are read in `runners.ts` and registered here with the rest.
 */
import { readOptions, type OptionSpec } from './options.js';
import { RUNNERS } from './runners.js';
import type { ShellWord } from './types.js';
import {
  isFailure,
  rest,
  type Wrapper,
  type WrapperFailure,
  type WrapperResult,
  type WrapperRun,
} from './wrapper-run.js';

function assignmentAt(words: readonly ShellWord[], from: number): number {
  let i = from;
  while (i < words.length && words[i]!.known && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!.value)) i++;
  return i;
}

/** Options, then the command. */
function simple(spec: OptionSpec): Wrapper {
  return (words, name) => {
    const parsed = readOptions(words, 1, spec, name);
    return 'message' in parsed ? parsed : rest(words, parsed.next);
  };
}

const failOption = (name: string, option: string, why: string): WrapperFailure => ({
  kind: 'wrapper',
  message: `\`${name} ${option}\` ${why}, which this analyser does not model`,
  at: 0,
});

const NONE = 'none' as const;
const REQ = 'required' as const;
const OPT = 'optional' as const;

const ENV: OptionSpec = {
  short: { i: NONE, 0: NONE, v: NONE, u: REQ, C: REQ, S: REQ },
  long: {
    'ignore-environment': NONE,
    null: NONE,
    debug: NONE,
    unset: REQ,
    chdir: REQ,
    'split-string': REQ,
    'block-signal': OPT,
    'default-signal': OPT,
    'ignore-signal': OPT,
    'list-signal-handling': NONE,
    help: NONE,
    version: NONE,
  },
};

function env(words: readonly ShellWord[], name: string): WrapperResult {
  const parsed = readOptions(words, 1, ENV, name);
  if ('message' in parsed) return parsed;
  if (parsed.options.some((o) => o.name === 'S' || o.name === 'split-string'))
    return failOption(name, '-S', 'splits a string into a command');
  let i = parsed.next;
  while (i < words.length && words[i]!.known && words[i]!.value === '-') i++;
  const afterAssignments = assignmentAt(words, i);
  if (afterAssignments > i)
    return { kind: 'assignment', message: `\`${name}\` sets a variable: \`${words[i]!.text}\``, at: i };
  if (i < words.length && !words[i]!.known)
    return {
      kind: 'expansion',
      message: `an argument of \`${name}\` with an expansion: \`${words[i]!.text}\``,
      at: i,
    };
  return rest(words, i);
}

const SUDO: OptionSpec = {
  short: {
    A: NONE,
    b: NONE,
    E: NONE,
    H: NONE,
    k: NONE,
    n: NONE,
    P: NONE,
    S: NONE,
    B: NONE,
    N: NONE,
    u: REQ,
    g: REQ,
    C: REQ,
    D: REQ,
    p: REQ,
    r: REQ,
    t: REQ,
    T: REQ,
    U: REQ,
    R: REQ,
  },
  long: {
    askpass: NONE,
    background: NONE,
    'preserve-env': OPT,
    'set-home': NONE,
    'reset-timestamp': NONE,
    'non-interactive': NONE,
    'preserve-groups': NONE,
    stdin: NONE,
    bell: NONE,
    user: REQ,
    group: REQ,
    'close-from': REQ,
    chdir: REQ,
    prompt: REQ,
    role: REQ,
    type: REQ,
    'command-timeout': REQ,
    'other-user': REQ,
    chroot: REQ,
  },
};

function sudo(words: readonly ShellWord[], name: string): WrapperResult {
  // -e (edit), -s/-i (a shell), -l/-v/-K/-V/-h (no command) are left out of SUDO, so they fail as unknown.
  const parsed = readOptions(words, 1, SUDO, name);
  if ('message' in parsed) return parsed;
  const i = parsed.next;
  if (assignmentAt(words, i) > i)
    return { kind: 'assignment', message: `\`${name}\` sets a variable: \`${words[i]!.text}\``, at: i };
  return rest(words, i);
}

function command(words: readonly ShellWord[], name: string): WrapperResult {
  const parsed = readOptions(words, 1, { short: { p: NONE, v: NONE, V: NONE }, long: {} }, name);
  if ('message' in parsed) return parsed;
  // `command -v NAME` only prints how NAME would resolve.
  if (parsed.options.some((o) => o.name === 'v' || o.name === 'V')) return [];
  return rest(words, parsed.next);
}

/**
 * `jobs -x COMMAND [ARG…]` runs COMMAND with each jobspec (`%1`) among its words replaced by a process group ID;
 * `jobs` without `-x` runs nothing.
 */
function jobs(words: readonly ShellWord[], name: string): WrapperResult {
  const parsed = readOptions(
    words,
    1,
    { short: { l: NONE, n: NONE, p: NONE, r: NONE, s: NONE, x: NONE }, long: {} },
    name,
  );
  if ('message' in parsed) return parsed;
  if (!parsed.options.some((o) => o.name === 'x')) return [];
  return parsed.next < words.length
    ? [{ kind: 'argv', from: parsed.next, to: words.length, placeholder: '%' }]
    : [];
}

const SHELL_LETTERS = new Set('abefhkmnptuvxBCEHPT');
const SHELL_LONG = new Set([
  'norc',
  'noprofile',
  'posix',
  'verbose',
  'noediting',
  'restricted',
  'help',
  'version',
]);

/** `sh|bash|dash|zsh|ksh [options] -c STRING [NAME [ARG…]]`; any other form runs commands we cannot see. */
function shell(words: readonly ShellWord[], name: string): WrapperResult {
  let hasC = false;
  let sawShort = false;
  let i = 1;
  for (; i < words.length; i++) {
    const word = words[i]!;
    if (!word.known)
      return {
        kind: 'expansion',
        message: `an argument of \`${name}\` with an expansion: \`${word.text}\``,
        at: i,
      };
    const v = word.value;
    if (v === '--' || v === '-') {
      i++;
      break;
    }
    if (v.startsWith('--')) {
      // bash reads long options only before the short ones.
      if (sawShort || !SHELL_LONG.has(v.slice(2)))
        return {
          kind: 'wrapper',
          message: `an option of \`${name}\` this analyser does not model: \`${v}\``,
          at: i,
        };
      if (v === '--help' || v === '--version') return [];
      continue;
    }
    if (!/^[-+]/.test(v)) break;
    sawShort = true;
    for (const letter of v.slice(1)) {
      if (letter === 'c') hasC = true;
      else if (letter === 'o' || letter === 'O') {
        i++;
        if (i >= words.length || !words[i]!.known)
          return { kind: 'wrapper', message: `\`${name} -${letter}\` needs a known value`, at: i - 1 };
      } else if (!SHELL_LETTERS.has(letter))
        return {
          kind: 'wrapper',
          message: `an option of \`${name}\` this analyser does not model: \`-${letter}\``,
          at: i,
        };
    }
  }
  if (!hasC) {
    const what =
      i < words.length
        ? `runs the script file \`${words[i]!.text}\``
        : 'reads its commands from standard input';
    return {
      kind: 'wrapper',
      message: `\`${name}\` ${what}, whose commands are not known`,
      at: Math.min(i, words.length - 1),
    };
  }
  const script = words[i];
  if (script === undefined)
    return { kind: 'wrapper', message: `\`${name} -c\` has no command string`, at: 0 };
  // `$'…'` and `$"…"` are bash's: dash reads `$'\'` as `$` and a quoted backslash, so a string that is one
  // quoted word to bash can hide commands from it.
  if (name !== 'bash' && /\$['"]/.test(script.value))
    return {
      kind: 'wrapper',
      message: `the command string of \`${name} -c\` has \`$'…'\` or \`$"…"\`, which \`${name}\` reads differently from bash`,
      at: i,
    };
  return [{ kind: 'script', from: i, to: i + 1 }];
}

/** zsh and ksh expand words in ways bash does not (zsh's glob qualifiers run code; both read startup files). */
function otherShell(_words: readonly ShellWord[], name: string): WrapperResult {
  return {
    kind: 'wrapper',
    message: `\`${name}\` reads scripts with a grammar this analyser does not model`,
    at: 0,
  };
}

function evalWords(words: readonly ShellWord[], name: string): WrapperResult {
  for (let i = 1; i < words.length; i++)
    if (!words[i]!.known)
      return {
        kind: 'expansion',
        message: `an argument of \`${name}\` with an expansion: \`${words[i]!.text}\``,
        at: i,
      };
  return words.length > 1 ? [{ kind: 'script', from: 1, to: words.length }] : [];
}

const TIMEOUT: OptionSpec = {
  short: { v: NONE, k: REQ, s: REQ },
  long: {
    'kill-after': REQ,
    signal: REQ,
    'preserve-status': NONE,
    foreground: NONE,
    verbose: NONE,
    help: NONE,
    version: NONE,
  },
};

function timeout(words: readonly ShellWord[], name: string): WrapperResult {
  const parsed = readOptions(words, 1, TIMEOUT, name);
  if ('message' in parsed) return parsed;
  const duration = words[parsed.next];
  if (duration === undefined) return [];
  if (!duration.known)
    return {
      kind: 'expansion',
      message: `an argument of \`${name}\` with an expansion: \`${duration.text}\``,
      at: parsed.next,
    };
  return rest(words, parsed.next + 1);
}

const XARGS: OptionSpec = {
  short: {
    0: NONE,
    o: NONE,
    p: NONE,
    r: NONE,
    t: NONE,
    x: NONE,
    a: REQ,
    d: REQ,
    E: REQ,
    I: REQ,
    L: REQ,
    n: REQ,
    P: REQ,
    s: REQ,
    e: OPT,
    i: OPT,
    l: OPT,
  },
  long: {
    null: NONE,
    'open-tty': NONE,
    interactive: NONE,
    'no-run-if-empty': NONE,
    verbose: NONE,
    exit: NONE,
    'show-limits': NONE,
    'arg-file': REQ,
    delimiter: REQ,
    'max-args': REQ,
    'max-procs': REQ,
    'max-chars': REQ,
    'process-slot-var': REQ,
    'max-lines': OPT,
    replace: OPT,
    eof: OPT,
    help: NONE,
    version: NONE,
  },
};

function xargs(words: readonly ShellWord[], name: string): WrapperResult {
  const parsed = readOptions(words, 1, XARGS, name);
  if ('message' in parsed) return parsed;
  let placeholder: string | undefined;
  for (const o of parsed.options) {
    if (o.name === 'I') placeholder = o.value;
    if (o.name === 'i' || o.name === 'replace') placeholder = o.value ?? '{}';
    if (o.name === 'help' || o.name === 'version' || o.name === 'show-limits') return [];
  }
  // With no command, xargs runs echo; its arguments come from standard input, so they are never known.
  if (parsed.next >= words.length)
    return [{ kind: 'argv', from: words.length, to: words.length, appendsUnknown: true }];
  return [
    {
      kind: 'argv',
      from: parsed.next,
      to: words.length,
      ...(placeholder === undefined ? { appendsUnknown: true } : { placeholder }),
    },
  ];
}

const FIND_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** `find [-H|-L|-P] [-D debug] [-Olevel] [path…] [expression]`: each `-exec…` action runs a command of its own. */
function find(words: readonly ShellWord[], name: string): WrapperResult {
  const runs: WrapperRun[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    // Any word of the expression could be an action, so every one must be known.
    if (!word.known)
      return {
        kind: 'expansion',
        message: `an argument of \`${name}\` with an expansion: \`${word.text}\``,
        at: i,
      };
    if (!FIND_ACTIONS.has(word.value)) continue;
    const from = i + 1;
    let j = from;
    const plusAllowed = word.value === '-exec' || word.value === '-execdir';
    while (j < words.length) {
      const w = words[j]!;
      if (w.known && w.value === ';') break;
      if (plusAllowed && w.known && w.value === '+' && j > from && words[j - 1]!.value === '{}') break;
      j++;
    }
    if (j >= words.length)
      return {
        kind: 'wrapper',
        message: `\`${name} ${word.value}\` has no terminating \`;\` or \`+\``,
        at: i,
      };
    if (j === from) return { kind: 'wrapper', message: `\`${name} ${word.value}\` has no command`, at: i };
    runs.push({ kind: 'argv', from, to: j, placeholder: '{}' });
    i = j;
  }
  return runs;
}

const WATCH: OptionSpec = {
  short: {
    b: NONE,
    c: NONE,
    C: NONE,
    d: OPT,
    e: NONE,
    f: NONE,
    g: NONE,
    p: NONE,
    r: NONE,
    t: NONE,
    w: NONE,
    x: NONE,
    n: REQ,
    q: REQ,
  },
  long: {
    beep: NONE,
    color: NONE,
    'no-color': NONE,
    differences: OPT,
    errexit: NONE,
    follow: NONE,
    chgexit: NONE,
    precise: NONE,
    'no-rerun': NONE,
    'no-title': NONE,
    'no-wrap': NONE,
    exec: NONE,
    interval: REQ,
    equexit: REQ,
    help: NONE,
    version: NONE,
  },
};

/** `watch` runs its words joined by spaces through `sh -c`, or as a command with `-x`. */
function watch(words: readonly ShellWord[], name: string): WrapperResult {
  const parsed = readOptions(words, 1, WATCH, name);
  if ('message' in parsed) return parsed;
  if (parsed.options.some((o) => o.name === 'x' || o.name === 'exec')) return rest(words, parsed.next);
  for (let i = parsed.next; i < words.length; i++)
    if (!words[i]!.known)
      return {
        kind: 'expansion',
        message: `an argument of \`${name}\` with an expansion: \`${words[i]!.text}\``,
        at: i,
      };
  return parsed.next < words.length ? [{ kind: 'script', from: parsed.next, to: words.length }] : [];
}

const FLOCK: OptionSpec = {
  short: { s: NONE, x: NONE, e: NONE, u: NONE, n: NONE, o: NONE, F: NONE, w: REQ, E: REQ, c: REQ },
  long: {
    shared: NONE,
    exclusive: NONE,
    unlock: NONE,
    nonblock: NONE,
    nb: NONE,
    close: NONE,
    'no-fork': NONE,
    verbose: NONE,
    wait: REQ,
    timeout: REQ,
    'conflict-exit-code': REQ,
    command: REQ,
    help: NONE,
    version: NONE,
  },
};

/** `flock [options] FILE COMMAND…`, `flock [options] FILE -c STRING`, or `flock [options] FD` (runs nothing). */
function flock(words: readonly ShellWord[], name: string): WrapperResult {
  const parsed = readOptions(words, 1, FLOCK, name);
  if ('message' in parsed) return parsed;
  if (parsed.options.some((o) => o.name === 'c' || o.name === 'command'))
    return failOption(name, '-c', 'before the lock file');
  const file = parsed.next;
  if (file >= words.length) return [];
  if (!words[file]!.known)
    return {
      kind: 'expansion',
      message: `an argument of \`${name}\` with an expansion: \`${words[file]!.text}\``,
      at: file,
    };
  const next = words[file + 1];
  if (next === undefined) return [];
  if (next.known && (next.value === '-c' || next.value === '--command')) {
    const script = words[file + 2];
    if (script === undefined)
      return { kind: 'wrapper', message: `\`${name} -c\` has no command string`, at: file + 1 };
    if (!script.known)
      return {
        kind: 'expansion',
        message: `the command string of \`${name} -c\` has an expansion: \`${script.text}\``,
        at: file + 2,
      };
    return [{ kind: 'script', from: file + 2, to: file + 3 }];
  }
  return rest(words, file + 1);
}

const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map<string, Wrapper>([
  ['env', env],
  ['sudo', sudo],
  ['command', command],
  ['builtin', simple({ short: {}, long: {} })],
  ['exec', simple({ short: { c: NONE, l: NONE, a: REQ }, long: {} })],
  [
    'nice',
    simple({ short: { n: REQ }, long: { adjustment: REQ, help: NONE, version: NONE }, numeric: true }),
  ],
  ['nohup', simple({ short: {}, long: { help: NONE, version: NONE } })],
  [
    'time',
    simple({
      short: { a: NONE, p: NONE, q: NONE, v: NONE, V: NONE, f: REQ, o: REQ },
      long: {
        append: NONE,
        portability: NONE,
        quiet: NONE,
        verbose: NONE,
        format: REQ,
        output: REQ,
        help: NONE,
        version: NONE,
      },
    }),
  ],
  ['timeout', timeout],
  [
    'stdbuf',
    simple({
      short: { i: REQ, o: REQ, e: REQ },
      long: { input: REQ, output: REQ, error: REQ, help: NONE, version: NONE },
    }),
  ],
  ['xargs', xargs],
  ['find', find],
  ['sh', shell],
  ['bash', shell],
  ['dash', shell],
  ['zsh', otherShell],
  ['ksh', otherShell],
  ['eval', evalWords],
  ['jobs', jobs],
  ['watch', watch],
  [
    'setsid',
    simple({
      short: { c: NONE, f: NONE, w: NONE },
      long: { ctty: NONE, fork: NONE, wait: NONE, help: NONE, version: NONE },
    }),
  ],
  ['flock', flock],
  ...RUNNERS,
]);

/**
 * Programs that run another program in ways not modelled here: a script naming one is unanalysable rather than
 * judged by the runner's name alone.
 */
const UNMODELLED_RUNNERS = new Set([
  'doas',
  'su',
  'runuser',
  'pkexec',
  'chroot',
  'ionice',
  'chrt',
  'taskset',
  'strace',
  'ltrace',
  'gdb',
  'unshare',
  'nsenter',
  'script',
  'parallel',
  'systemd-run',
  'busybox',
  'unbuffer',
  'firejail',
  'fakeroot',
  'proot',
  'caffeinate',
  'csh',
  'tcsh',
  'fish',
  'mksh',
  'rbash',
  'nohup.exe',
]);

/**
 * Reads a wrapper's command line.
 * @param name the command name (basename)
 * @param words the command's words, the name first
 * @returns what it runs (`undefined` when `name` is no wrapper), or why it cannot be told
 */
export function readWrapper(name: string, words: readonly ShellWord[]): WrapperResult | undefined {
  if (UNMODELLED_RUNNERS.has(name))
    return {
      kind: 'wrapper',
      message: `\`${name}\` runs other programs in a way this analyser does not model`,
      at: 0,
    };
  const wrapper = WRAPPERS.get(name);
  return wrapper?.(words, name);
}

/**
 * Every name {@link readWrapper} reads (the wrappers and the unmodelled runners): for any other name it answers
 * `undefined`, whatever the words.
 */
export const WRAPPER_NAMES: ReadonlySet<string> = new Set([...UNMODELLED_RUNNERS, ...WRAPPERS.keys()]);

export { isFailure };
export type { WrapperFailure, WrapperResult, WrapperRun } from './wrapper-run.js';

/** Interpreters that run code read from standard input: a here-document or here-string fed to one is unanalysable. */
export function isInterpreter(name: string): boolean {
  return INTERPRETER.test(name);
}

/** Interpreters, by name; each also with a version after it (`python3.12`, `node20`). */
export const INTERPRETER_NAMES: readonly string[] = [
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'fish',
  'csh',
  'tcsh',
  'python',
  'pypy',
  'node',
  'nodejs',
  'deno',
  'bun',
  'perl',
  'ruby',
  'irb',
  'php',
  'lua',
  'luajit',
  'tclsh',
  'wish',
  'R',
  'Rscript',
  'julia',
  'awk',
  'gawk',
  'mawk',
  'nawk',
  'busybox',
  'osascript',
  'pwsh',
  'powershell',
  'jshell',
  'groovy',
  'scala',
  'guile',
  'racket',
  'ghci',
  'erl',
  'elixir',
  'iex',
  'swift',
  'sqlite3',
  'psql',
  'mysql',
  'expect',
];
// Every interpreter also with a version after its name (`python3.12`, `node20`, `bash5`), as the docs say.
const INTERPRETER = new RegExp(`^(?:${INTERPRETER_NAMES.join('|')})[0-9.]*$`);
