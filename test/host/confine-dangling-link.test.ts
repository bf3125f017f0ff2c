/**
 * Workspace confinement and dangling symbolic links: `realpath` fails with ENOENT on a dangling link, and resolving
 * it through its parent folder instead would let a link inside the workspace that points at a not-yet-existing file
 * outside pass `confine()`, so that `write` follows it and creates the file outside. The file tools are confined
 * to the workspace: such a write is refused, and a dangling link that points inside still works.
 */
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setup, tempDir } from '../host/setup.js';

describe('a dangling symbolic link does not let a file tool leave the workspace', () => {
  it('write through a link to a missing file outside is refused, and nothing is created there', async () => {
    const { ctx, workspace } = await setup();
    const outside = tempDir('dsh-outside-');
    symlinkSync(join(outside, 'created.txt'), join(workspace, 'dangling.txt'));
    symlinkSync(join(outside, 'missing-dir', 'x'), join(workspace, 'dangling-deep'));
    for (const path of ['dangling.txt', 'dangling-deep', 'dangling-deep/y.txt']) {
      const result = await ctx.tools.execute({
        callId: 'c1',
        name: 'write',
        arguments: { path, content: 'x' },
      });
      expect(result.isError, path).toBe(true);
    }
    expect(existsSync(join(outside, 'created.txt'))).toBe(false);
  });

  it('a dangling link that points inside the workspace still works', async () => {
    const { ctx, workspace } = await setup();
    symlinkSync(join(workspace, 'target.txt'), join(workspace, 'inner-link.txt'));
    const result = await ctx.tools.execute({
      callId: 'c1',
      name: 'write',
      arguments: { path: 'inner-link.txt', content: 'x' },
    });
    expect(result.isError).toBeFalsy();
    expect(existsSync(join(workspace, 'target.txt'))).toBe(true);
  });
});
