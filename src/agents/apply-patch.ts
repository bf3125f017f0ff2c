/**
 * Codex's `apply_patch` input, read for the paths it changes. The patch names every file it touches on a header
 * line: `*** Add File: P`, `*** Update File: P` (optionally followed by `*** Move to: Q`) and `*** Delete File: P`,
 * between `*** Begin Patch` and `*** End Patch`. Each path is decided as a call of dsh-mode's own file tools: an
 * added file, a deleted file, a moved file (both its old and its new path) as `write`, an updated one as `edit`.
 *
 * The reading is strict, because a line this parser skipped could be one Codex reads as a header: any line that
 * is neither a header nor a hunk line of the section it is in refuses the whole patch, and the hook denies it.
 * @module
 */

/** One file a patch changes, as the call of dsh-mode's tool that decides it. */
export interface PatchChange {
  /** `write` for an added, deleted or moved file, `edit` for one updated in place. */
  tool: 'write' | 'edit';
  /** The path as the patch writes it (relative paths are relative to the session's folder). */
  path: string;
  /** The header that named it. */
  op: 'add' | 'update' | 'delete' | 'move-from' | 'move-to';
}

/** A patch that cannot be read: the hook denies it with this message. */
export class PatchError extends Error {
  override readonly name = 'PatchError';
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const HEADERS: ReadonlyArray<readonly [string, 'add' | 'update' | 'delete']> = [
  ['*** Add File: ', 'add'],
  ['*** Update File: ', 'update'],
  ['*** Delete File: ', 'delete'],
];
const MOVE = '*** Move to: ';
const END_OF_FILE = '*** End of File';

/**
 * The files a patch changes, in the order it names them.
 * @param text the patch text (`tool_input.command`)
 * @returns one change per path (a move gives two)
 * @throws PatchError naming the line that cannot be read
 */
export function patchChanges(text: string): PatchChange[] {
  if (typeof text !== 'string') throw new PatchError('the patch is not text');
  const lines = text
    .trim()
    .split('\n')
    .map((line) => line.replace(/\r$/, ''));
  if (lines[0]?.trim() !== BEGIN) throw new PatchError(`the patch does not start with \`${BEGIN}\``);
  if (lines.at(-1)?.trim() !== END) throw new PatchError(`the patch does not end with \`${END}\``);
  const changes: PatchChange[] = [];
  let section: 'add' | 'update' | 'delete' | undefined;
  for (let i = 1; i < lines.length - 1; i++) {
    const line = lines[i]!;
    const header = HEADERS.find(([prefix]) => line.startsWith(prefix));
    if (header !== undefined) {
      const path = pathOf(line.slice(header[0].length), i);
      section = header[1];
      if (section === 'update' && lines[i + 1]?.startsWith(MOVE)) {
        const to = pathOf(lines[i + 1]!.slice(MOVE.length), i + 1);
        changes.push({ tool: 'write', path, op: 'move-from' }, { tool: 'write', path: to, op: 'move-to' });
        i += 1;
      } else {
        changes.push({ tool: section === 'update' ? 'edit' : 'write', path, op: section });
      }
      continue;
    }
    if (section === 'add' && line.startsWith('+')) continue;
    if (
      section === 'update' &&
      (line.startsWith('@@') || line === END_OF_FILE || /^[ +-]/.test(line) || line === '')
    )
      continue;
    throw new PatchError(
      `line ${i + 1} of the patch is not part of a file section: ${JSON.stringify(line.slice(0, 80))}`,
    );
  }
  if (changes.length === 0) throw new PatchError('the patch names no file');
  return changes;
}

function pathOf(raw: string, index: number): string {
  const path = raw.trim();
  if (path === '') throw new PatchError(`line ${index + 1} of the patch names no path`);
  if (path.includes('\0')) throw new PatchError(`line ${index + 1} of the patch has a NUL in its path`);
  return path;
}
