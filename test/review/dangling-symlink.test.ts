/**
 * Review finding: workspace confinement resolved a dangling symbolic link through its parent folder (realpath
 * fails with ENOENT on the link itself), so a link inside the workspace pointing at a file that does not exist yet
 * outside it passed `confine()`, and `write` then followed the link and created the file outside the workspace
 * (DESIGN.md section 5: the tools are confined to the workspace).
 */
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setup, tempDir } from '../host/setup.js';

describe('review: a dangling symbolic link does not let a file tool leave the workspace', () => {
  it('write through a link to a missing file outside is refused, and nothing is created there', async () => {
    const { ctx, workspace } = await setup();
    const outside = tempDir('dsh-review-outside-');
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
