/**
 * Package runners: `npx`, `npm exec` (`x`), `pnpm dlx`, `pnpm exec`, `yarn dlx`, `bunx` and `bun x` run a program
 * (from the project, from a package they fetch, or from `PATH`), so they are wrappers, and the program they run is
 * judged as a command of its own (`npx git push` runs `git push`). Each reads only the forms its own parser reads
 * exactly (`readExactOptions`): a runner option not listed here, an option after `pnpm dlx`, or a form whose
 * program cannot be named is unanalysable, never a guess.
 *
 * The program is named as written. Without `--package`, the word names a package too, and a runner runs that
 * package's program, which the registry decides: a plain name (`npx git push`) is judged by that name; a package
 * spec with a version, scope, path or URL (`npx cowsay@1`, `npx @scope/tool`) names no program, so it is
 * unanalysable. The sources read: npm 11's `bin/npx-cli.js` and `libnpmexec` (the first operand is shell text run
 * by `sh -c`, the rest are quoted), pnpm 9's `dlx` and `exec` (options go before the command word; `-c` runs the
 * words through `sh`), yarn 4's `dlx`, bun 1's `bunx`.
 * @module
 */
import { readExactOptions, type ExactOptions } from './global-options.js';
import type { ShellWord } from './types.js';
import { rest, type Wrapper, type WrapperFailure, type WrapperResult } from './wrapper-run.js';

/** A word the shell reads as itself, one literal word: no quoting, expansion, operator, `=` or leading `~`. */
const SHELL_PLAIN = /^[A-Za-z0-9_%+,./:@-]+$/;
/** A package name that is also the program's name: no version, scope, path or URL. */
const PLAIN_PACKAGE = /^[A-Za-z0-9._-]+$/;

const notModelled = (name: string, what: string, at: number): WrapperFailure => ({
  kind: 'wrapper',
  message: `\`${name}\` ${what}, which this analyser does not model`,
  at,
});

/** Options read; a failure for an unknown option or an option value with an expansion. */
function options(
  words: readonly ShellWord[],
  from: number,
  spec: ExactOptions,
  name: string,
): ReturnType<typeof readExactOptions> | WrapperFailure {
  const read = readExactOptions(words, from, spec);
  if (read.unknown !== undefined) {
    const word = words[read.unknown]!;
    if (!word.known)
      return {
        kind: 'expansion',
        message: `an argument of \`${name}\` with an expansion: \`${word.text}\``,
        at: read.unknown,
      };
    return notModelled(name, `option \`${word.value}\``, read.unknown);
  }
  for (const o of read.options)
    if (o.value !== undefined && !o.value.known)
      return {
        kind: 'expansion',
        message: `an argument of \`${name}\` with an expansion: \`${o.value.text}\``,
        at: from,
      };
  return read;
}

/** How a runner runs the words from its program on. */
interface Program {
  /** Whether a `--package` option names the package, so the first word is a program and not a package spec. */
  readonly packageGiven: boolean;
  /** Whether the first word is shell text (`npx`: `sh -c` runs it, with the rest quoted). */
  readonly shellText: boolean;
}

/** The program at `at` and its arguments, or why it cannot be named. */
function program(words: readonly ShellWord[], at: number, name: string, how: Program): WrapperResult {
  const first = words[at];
  if (first === undefined) return [];
  if (!first.known)
    return {
      kind: 'expansion',
      message: `an argument of \`${name}\` with an expansion: \`${first.text}\``,
      at,
    };
  if (how.shellText && !SHELL_PLAIN.test(first.value))
    return notModelled(name, `runs \`${first.value}\` as shell text with quoted arguments`, at);
  if (!how.packageGiven && !PLAIN_PACKAGE.test(first.value))
    return notModelled(
      name,
      `runs the program of the package \`${first.value}\`, whose name is not known`,
      at,
    );
  return rest(words, at);
}

const NPX: ExactOptions = {
  flags: ['-y', '--yes', '--no-install', '-q', '--quiet'],
  values: ['-p', '--package', '-c', '--call'],
  endsWithDashDash: true,
};

/** `npx [options] [--] PROGRAM ARGS…`, `npx -c STRING`: npm's exec, with npx's own options before the program. */
function npx(words: readonly ShellWord[], name: string): WrapperResult {
  return npmExec(words, 1, NPX, name);
}

/** The options and program of npm's exec, from `from` on (npx, or after `npm exec`). */
function npmExec(words: readonly ShellWord[], from: number, spec: ExactOptions, name: string): WrapperResult {
  const read = options(words, from, spec, name);
  if ('message' in read) return read;
  const packageGiven = read.options.some((o) => o.name === '-p' || o.name === '--package');
  const call = read.options.find((o) => o.name === '-c' || o.name === '--call');
  if (call !== undefined) {
    // The string must be its own word (`-c STRING`), so the walk can span it; npm refuses a program beside it.
    if (call.valueAt === undefined || read.next < words.length)
      return notModelled(name, '`-c` written other than as `-c STRING` with no program', from);
    return [{ kind: 'script', from: call.valueAt, to: call.valueAt + 1 }];
  }
  return program(words, read.next, name, { packageGiven, shellText: true });
}

/** npm's exec reads its options anywhere before `--`, so only `--` or option-free words place the program. */
const NPM_EXEC: ExactOptions = {
  flags: ['-y', '--yes'],
  values: ['--package', '-c', '--call'],
  endsWithDashDash: true,
};
const NPM_EXEC_NAMES = new Set(['exec', 'exe', 'x']);

/** `npm exec|x [options] -- PROGRAM ARGS…` (or with no option-like word after the program), `npm exec -c STRING`. */
function npm(words: readonly ShellWord[], name: string): WrapperResult {
  const sub = words[1];
  if (sub === undefined) return [];
  if (!sub.known || sub.value.startsWith('-'))
    return words.some((w, i) => i > 0 && (!w.known || NPM_EXEC_NAMES.has(w.value)))
      ? notModelled(name, 'options before `exec`', 1)
      : [];
  if (!NPM_EXEC_NAMES.has(sub.value)) return [];
  const read = options(words, 2, NPM_EXEC, name);
  if ('message' in read) return read;
  if (!read.ended)
    for (let i = read.next + 1; i < words.length; i++)
      if (!words[i]!.known || words[i]!.value.startsWith('-'))
        return notModelled(
          name,
          `reads \`${words[i]!.text}\` as its own option (write \`--\` before the program)`,
          i,
        );
  return npmExec(words, 2, NPM_EXEC, name);
}

const PNPM: ExactOptions = { flags: ['-c', '--shell-mode', '-s', '--silent'], values: ['--package'] };

/**
 * `pnpm [options] dlx PROGRAM ARGS…` and `pnpm [options] exec PROGRAM ARGS…`: pnpm passes every word after `dlx`
 * or `exec` to the program; `-c` (`--shell-mode`) runs them joined through `sh`.
 */
function pnpm(words: readonly ShellWord[], name: string): WrapperResult {
  const isRun = (w: ShellWord) => !w.known || w.value === 'dlx' || w.value === 'exec';
  const read = options(words, 1, PNPM, name);
  if ('message' in read) return words.slice(read.at).some(isRun) ? read : [];
  const sub = words[read.next];
  if (sub === undefined || !isRun(sub)) return [];
  if (!sub.known)
    return {
      kind: 'expansion',
      message: `an argument of \`${name}\` with an expansion: \`${sub.text}\``,
      at: read.next,
    };
  const at = read.next + 1;
  const first = words[at];
  if (first === undefined) return [];
  if (first.known && first.value.startsWith('-'))
    return notModelled(name, `option \`${first.value}\` after \`${sub.value}\``, at);
  if (read.options.some((o) => o.name === '-c' || o.name === '--shell-mode')) {
    for (let i = at; i < words.length; i++)
      if (!words[i]!.known)
        return {
          kind: 'expansion',
          message: `an argument of \`${name}\` with an expansion: \`${words[i]!.text}\``,
          at: i,
        };
    return [{ kind: 'script', from: at, to: words.length }];
  }
  const packageGiven = sub.value === 'exec' || read.options.some((o) => o.name === '--package');
  return program(words, at, name, { packageGiven, shellText: false });
}

const YARN_DLX: ExactOptions = { flags: ['-q', '--quiet'], values: ['-p', '--package'] };

/** `yarn dlx [options] PROGRAM ARGS…`; `yarn exec` runs yarn's own shell, which is not modelled. */
function yarn(words: readonly ShellWord[], name: string): WrapperResult {
  const sub = words[1];
  if (sub === undefined) return [];
  const isRun = (w: ShellWord) => !w.known || w.value === 'dlx' || w.value === 'exec';
  if (!sub.known || sub.value.startsWith('-'))
    return words.slice(1).some(isRun) ? notModelled(name, 'options before `dlx` or `exec`', 1) : [];
  if (sub.value === 'exec') return notModelled(name, '`exec` runs a script in yarn’s own shell', 1);
  if (sub.value !== 'dlx') return [];
  const read = options(words, 2, YARN_DLX, name);
  if ('message' in read) return read;
  const packageGiven = read.options.some((o) => o.name === '-p' || o.name === '--package');
  return program(words, read.next, name, { packageGiven, shellText: false });
}

const BUNX: ExactOptions = {
  flags: ['--bun', '--no-install', '--verbose', '--silent'],
  values: ['-p', '--package'],
};

/** `bunx [options] PROGRAM ARGS…` (and `bun x …`). */
function bunx(words: readonly ShellWord[], name: string, from = 1): WrapperResult {
  const read = options(words, from, BUNX, name);
  if ('message' in read) return read;
  const packageGiven = read.options.some((o) => o.name === '-p' || o.name === '--package');
  return program(words, read.next, name, { packageGiven, shellText: false });
}

/** `bun x …` is `bunx`; bun's other forms run code of their own (bun is an interpreter), not a program. */
function bun(words: readonly ShellWord[], name: string): WrapperResult {
  const sub = words[1];
  if (sub === undefined) return [];
  if (!sub.known || sub.value.startsWith('-'))
    return words.some((w, i) => i > 0 && (!w.known || w.value === 'x'))
      ? notModelled(name, 'options before `x`', 1)
      : [];
  return sub.value === 'x' ? bunx(words, name, 2) : [];
}

/** The package runners, by command name. */
export const RUNNERS: readonly (readonly [string, Wrapper])[] = [
  ['npx', npx],
  ['npm', npm],
  ['pnpm', pnpm],
  ['yarn', yarn],
  ['bunx', (words, name) => bunx(words, name)],
  ['bun', bun],
];
