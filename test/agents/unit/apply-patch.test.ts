/** Codex's apply_patch read for its paths (src/agents/apply-patch.ts): every path decided, anything else refused. */
import { describe, expect, it } from 'vitest';
import { patchChanges, PatchError } from '../../../src/agents/apply-patch.js';

describe('patchChanges', () => {
  it('names every added, updated, deleted and moved file', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: README.md',
      '@@',
      '-# scratch',
      '+# edited',
      '*** Add File: docs/new.md',
      '+new',
      '*** Delete File: notes.txt',
      '*** Update File: a.txt',
      '*** Move to: b/a.txt',
      '@@ x',
      ' keep',
      '*** End of File',
      '*** End Patch',
      '',
    ].join('\n');
    expect(patchChanges(patch)).toEqual([
      { tool: 'edit', path: 'README.md', op: 'update' },
      { tool: 'write', path: 'docs/new.md', op: 'add' },
      { tool: 'write', path: 'notes.txt', op: 'delete' },
      { tool: 'write', path: 'a.txt', op: 'move-from' },
      { tool: 'write', path: 'b/a.txt', op: 'move-to' },
    ]);
  });

  it.each([
    ['no begin', '*** Add File: a\n+x\n*** End Patch'],
    ['no end', '*** Begin Patch\n*** Add File: a\n+x'],
    ['no file', '*** Begin Patch\n*** End Patch'],
    ['an empty path', '*** Begin Patch\n*** Add File:  \n+x\n*** End Patch'],
    ['a line outside a section', '*** Begin Patch\nrm -rf /\n*** Add File: a\n+x\n*** End Patch'],
    ['a header it does not know', '*** Begin Patch\n*** Rename File: a\n*** End Patch'],
    ['a context line in an added file', '*** Begin Patch\n*** Add File: a\n x\n*** End Patch'],
  ])('refuses a patch with %s', (_what, patch) => {
    expect(() => patchChanges(patch)).toThrow(PatchError);
  });
});
