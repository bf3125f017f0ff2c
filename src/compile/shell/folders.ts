/**
 * Commands that run a program in another folder than the script's own. The analyser lists every command a script
 * runs; a check of the workspace (git's repository configuration) holds only for a program that runs in the
 * workspace. These move: `cd`, `pushd` and `popd` (for every command after them), `env -C`/`--chdir`, `sudo
 * -D`/`--chdir` and `-R`/`--chroot` (for the command they run), `find -execdir`/`-okdir` (for theirs), and git's
 * own `-C`, `--git-dir`, `--work-tree` and `--bare` (for itself, read from its table of global options). A word
 * that cannot be read (an expansion, or an option git's table does not know) where such an option may stand counts
 * as a move.
 * @module
 */
import { GLOBAL_OPTIONS, readGlobalOptions } from './global-options.js';
import type { ShellWord, SimpleCommand } from './types.js';

/** Options of a program: which take a value (as the next word when not attached), and which of them move. */
interface MovingOptions {
  /** Short options that take a value. */
  readonly shortValue: string;
  /** Short options that move (a subset of, or besides, {@link shortValue}). */
  readonly shortMoves: string;
  /** Long options (without `--`) that take a value. */
  readonly longValue: readonly string[];
  /** Long options (without `--`) that move. */
  readonly longMoves: readonly string[];
}

const ENV: MovingOptions = {
  shortValue: 'uCS',
  shortMoves: 'C',
  longValue: ['unset', 'chdir', 'split-string'],
  longMoves: ['chdir'],
};
const SUDO: MovingOptions = {
  shortValue: 'ugCDprtTUR',
  shortMoves: 'DR',
  longValue: [
    'user',
    'group',
    'close-from',
    'chdir',
    'prompt',
    'role',
    'type',
    'command-timeout',
    'other-user',
    'chroot',
  ],
  longMoves: ['chdir', 'chroot'],
};

/**
 * Whether the options before a command's first operand move it (see {@link MovingOptions}); `--` or the first word
 * that is no option ends them.
 */
function optionsMove(words: readonly ShellWord[], spec: MovingOptions): boolean {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (!w.known) return true;
    const v = w.value;
    if (v === '--' || v.length < 2 || v[0] !== '-') return false;
    if (v[1] === '-') {
      const eq = v.indexOf('=');
      const long = eq < 0 ? v.slice(2) : v.slice(2, eq);
      if (spec.longMoves.includes(long)) return true;
      if (eq < 0 && spec.longValue.includes(long)) i++;
      continue;
    }
    // A bundle of short options: the first that takes a value takes the rest of the word, or the next word.
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      if (spec.shortMoves.includes(c)) return true;
      if (spec.shortValue.includes(c)) {
        if (k === v.length - 1) i++;
        break;
      }
    }
  }
  return false;
}

/** Whether git's global options (see `global-options.ts`) move it; one it does not know, or cannot read, counts. */
function gitMoves(words: readonly ShellWord[]): boolean {
  const reading = readGlobalOptions('git', words);
  const moves = GLOBAL_OPTIONS.get('git')?.moves ?? [];
  return (
    reading !== undefined && (reading.unknown !== undefined || reading.options.some((o) => moves.includes(o)))
  );
}

/**
 * How a command makes programs run in another folder, for a note (`cd`, `env -C`, …), or undefined when it does
 * not: for `cd`, `pushd` and `popd` every later command of the script, for the others the command they run.
 * @param command one command of an analysis
 * @returns the move, or undefined
 */
export function folderMove(command: SimpleCommand): string | undefined {
  const name = command.name;
  const words = command.words;
  switch (name) {
    case 'cd':
    case 'pushd':
    case 'popd':
      return `\`${name}\``;
    case 'env':
      return optionsMove(words, ENV) ? '`env -C`' : undefined;
    case 'sudo':
      return optionsMove(words, SUDO) ? '`sudo -D` or `-R`' : undefined;
    case 'git':
      return gitMoves(words) ? 'git’s own `-C`, `--git-dir`, `--work-tree` or `--bare`' : undefined;
    case 'find':
      for (let i = 1; i < words.length; i++) {
        const w = words[i]!;
        if (!w.known || w.value === '-execdir' || w.value === '-okdir') return '`find -execdir`';
      }
      return undefined;
    default:
      return undefined;
  }
}
