/**
 * Shared test setup: a real cordis Context with the real host plugins on a fresh temporary workspace, and a
 * logger exporter that collects warnings and errors so tests can assert what was contained. `../engine/setup.ts`
 * builds on it (the mode plugin on top).
 */
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from 'cordis';
import { applyHost, type HostConfig } from '../../src/host/index.js';

export interface HostSetup {
  ctx: Context;
  workspace: string;
  warnings: string[];
}

/** A temporary folder (realpath, so symlink checks compare like with like). */
export function tempDir(prefix = 'dsh-host-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** The host on a new context. */
export async function setup(config: Partial<HostConfig> = {}): Promise<HostSetup> {
  const workspace = config.workspace ?? tempDir();
  const ctx = new Context();
  const warnings: string[] = [];
  ctx.logger.exporter({
    export(message) {
      if (message.type === 'warn' || message.type === 'error')
        warnings.push(message.args.map(String).join(' '));
    },
  });
  await applyHost(ctx, { ...config, workspace });
  return { ctx, workspace, warnings };
}
