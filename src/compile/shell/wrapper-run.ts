/**
 * What a wrapper runs, as the wrapper readers (`wrappers.ts`, `runners.ts`) report it to the walk: words of its
 * own command line run as a command, a script string, or why the form cannot be told.
 */
import type { ShellWord, UnanalysableKind } from './types.js';

/** What a wrapper runs. */
export type WrapperRun =
  /** Words `from`..`to` (exclusive) are a command; `placeholder` words become unknown, `appendsUnknown` adds one. */
  | { kind: 'argv'; from: number; to: number; placeholder?: string; appendsUnknown?: boolean }
  /** A script string, parsed as shell, made of words `from`..`to` joined by spaces. */
  | { kind: 'script'; from: number; to: number };

/** Why a wrapper form is not modelled. */
export interface WrapperFailure {
  readonly kind: UnanalysableKind;
  readonly message: string;
  readonly at: number;
}

/** A wrapper's reading of its words: what it runs, or why it cannot be told. */
export type WrapperResult = readonly WrapperRun[] | WrapperFailure;

/** A wrapper's reader: its words (the name first) and its name → what it runs. */
export type Wrapper = (words: readonly ShellWord[], name: string) => WrapperResult;

/** Whether a reading is a failure. */
export const isFailure = (r: unknown): r is WrapperFailure =>
  typeof r === 'object' && r !== null && 'message' in r;

/** The command from `from` on, or nothing when there is no word left. */
export function rest(words: readonly ShellWord[], from: number): WrapperRun[] {
  return from < words.length ? [{ kind: 'argv', from, to: words.length }] : [];
}
