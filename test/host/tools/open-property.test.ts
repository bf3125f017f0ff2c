/**
 * The file tools against the kernel, on generated trees with symbolic links (`test/files/trees.ts`): `read`
 * returns what the kernel's own `open` of the same path reads whenever that is a file inside the workspace, and
 * nothing the kernel would not reach; after a successful `write`, the kernel reading the same path finds what
 * was written, and nothing outside the workspace changed.
 */
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relativeTo } from '../../../src/files/resolve-path.js';
import { readTool, writeTool } from '../../../src/host/tools/index.js';
import type { Tool, ToolContext, ToolResult } from '../../../src/host/index.js';
import { build, relativePath, tree } from '../../files/trees.js';

let base: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-open-prop-')));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** What the kernel reads at `path`: the real path and content of a regular file, or undefined. */
function kernelRead(path: string): { real: string; text: string } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    try {
      return { real, text: readFileSync(fd, 'utf8') };
    } catch {
      return undefined; // a folder
    }
  } finally {
    closeSync(fd);
  }
}

/** Every entry below `dir` with its content (what must not change). */
function snapshot(dir: string): string {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(e.parentPath, e.name);
    out.push(`${path}:${e.isFile() ? readFileSync(path, 'utf8') : e.isSymbolicLink() ? 'link' : 'dir'}`);
  }
  return out.sort().join('\n');
}

async function run<A>(tool: Tool<A>, args: A, workspace: string): Promise<ToolResult> {
  const context: ToolContext = { callId: 'c', signal: new AbortController().signal, workspace };
  try {
    return await tool.execute(args, context);
  } catch (error) {
    return { content: `Error: ${(error as Error).message}`, isError: true };
  }
}

describe.runIf(process.platform === 'linux')(
  'the file tools agree with the kernel on generated trees',
  () => {
    it('read returns what open reads inside the workspace; write lands where open then finds it', async () => {
      let count = 0;
      await fc.assert(
        fc.asyncProperty(
          tree,
          fc.array(fc.tuple(relativePath, fc.boolean()), { minLength: 1, maxLength: 8 }),
          async (entries, paths) => {
            const root = join(base, String(count++), 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7');
            const workspace = build(root, entries);
            const outside = () => snapshot(join(root, 'outside'));
            const before = outside();
            const cases = paths
              .filter(([written, absolute]) => written !== '' || absolute)
              // Joined as text: `join` would remove `..` lexically, which the kernel does not do.
              .map(([written, absolute]) => (absolute ? `${workspace}/${written}` : written));
            const readAgrees = async (path: string, where: string) => {
              const full = path.startsWith('/') ? path : `${workspace}/${path}`;
              const writtenInside = relativeTo(workspace, join(workspace, path)) !== undefined;
              const kernel = kernelRead(full);
              const read = await run(readTool, { path }, workspace);
              if (!read.isError) {
                expect(kernel, where).toBeDefined();
                expect(read.content, where).toBe(kernel!.text);
                expect(relativeTo(workspace, kernel!.real), where).toBeDefined();
              } else if (kernel && writtenInside && relativeTo(workspace, kernel.real) !== undefined) {
                throw new Error(
                  `read refused a file the kernel reads inside the workspace: ${where}: ${read.content}`,
                );
              }
            };
            for (const path of cases) {
              const where = `${path} in ${JSON.stringify(entries)}`;
              await readAgrees(path, where);
              const write = await run(writeTool, { path, content: `W:${path}` }, workspace);
              if (!write.isError) {
                const after = kernelRead(path.startsWith('/') ? path : `${workspace}/${path}`);
                expect(after?.text, where).toBe(`W:${path}`);
                expect(relativeTo(workspace, after!.real), where).toBeDefined();
              }
              expect(outside(), where).toBe(before);
            }
            // Again, now that the writes made files where the paths lead.
            for (const path of cases)
              await readAgrees(path, `${path} (after the writes) in ${JSON.stringify(entries)}`);
            rmSync(root, { recursive: true, force: true });
          },
        ),
        { numRuns: 120 },
      );
    });
  },
);
