/**
 * The bash tool told to sandbox (`context.sandbox: 'read-only'`), called directly as the runtime calls it: it
 * runs the script through `runSandboxed` (read-only, private /tmp, `GIT_OPTIONAL_LOCKS=0`), reports a timeout
 * like the unsandboxed path, and refuses, running nothing, where the sandbox cannot start (a PATH without
 * `bwrap`). Real child processes on real folders.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBashTool } from '../../src/host/tools/bash.js';
import type { ToolContext } from '../../src/host/index.js';
import { scratch } from './sandbox/helpers.js';

function context(workspace: string, sandbox?: 'read-only'): ToolContext {
  return {
    callId: 'c1',
    signal: new AbortController().signal,
    workspace,
    ...(sandbox ? { sandbox } : {}),
  };
}

describe('bash in the read-only sandbox', () => {
  it('runs the script with the workspace readable and not writable', async () => {
    const workspace = scratch('bash-');
    writeFileSync(join(workspace, 'a.txt'), 'hello\n');
    const bash = createBashTool();
    const result = await bash.execute(
      { command: 'cat a.txt; echo "$GIT_OPTIONAL_LOCKS"; echo x > b.txt' },
      context(workspace, 'read-only'),
    );
    expect(result.content).toMatch(
      /^hello\n0\n.*Read-only file system\n\n\[exit code 1; read-only sandbox\]$/s,
    );
    expect(result.isError).toBe(true);
    expect(existsSync(join(workspace, 'b.txt'))).toBe(false);
  });

  it('gives the script a private /tmp that leaves nothing in the host’s', async () => {
    const workspace = scratch('bash-');
    const name = `dsh-bash-${process.pid}-${Date.now()}`;
    const result = await createBashTool().execute(
      { command: `echo x > /tmp/${name} && cat /tmp/${name}` },
      context(workspace, 'read-only'),
    );
    expect(result.content).toBe('x\n\n[exit code 0; read-only sandbox]');
    expect(readdirSync(tmpdir())).not.toContain(name);
  });

  it('ends a call at its timeout and says so', async () => {
    const workspace = scratch('bash-');
    const result = await createBashTool().execute(
      { command: 'echo started; sleep 30', timeout_ms: 500 },
      context(workspace, 'read-only'),
    );
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^started\n\n\[timed out after 500 ms; the command and every process it started were killed; read-only sandbox\]$/,
    );
  });

  it('refuses, running nothing, where the sandbox cannot start', async () => {
    const workspace = scratch('bash-');
    const marker = join(workspace, '..', `ran-${Date.now()}`);
    const bare = mkdtempSync(join(tmpdir(), 'dsh-nobwrap-'));
    const bash = createBashTool({ hostEnv: { ...process.env, PATH: bare } });
    const result = await bash.execute({ command: `touch ${marker}` }, context(workspace, 'read-only'));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(
      /^Error: this mode runs bash in a read-only OS sandbox, which cannot start here, so nothing ran: bubblewrap \(`bwrap`\) is not on the PATH; Install bubblewrap/,
    );
    expect(existsSync(marker)).toBe(false);
    // The same tool and PATH without the requirement runs bare (so the marker would have shown a run).
    await createBashTool().execute({ command: `touch ${marker}` }, context(workspace));
    expect(existsSync(marker)).toBe(true);
  });
});
