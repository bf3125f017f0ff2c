/**
 * The `mcp` plugin's configuration (schema/cordis.schema.json, `mcpConfig`, checked by the deployment loader
 * before anything starts), and how one server entry becomes a launch: paths, environment, time limits.
 *
 * Paths: `command` and `cwd` written as `./…` or `../…` are relative to the cordis.yml folder (the deployment
 * loader in src/deploy resolves them); a bare `command` is looked up on `PATH`; a `cwd` that is still relative is relative to
 * the workspace, which is also the default `cwd`. `args` are passed as written.
 * @module
 */
import { isAbsolute, resolve } from 'node:path';
import type { ServerLaunch } from './server.js';

/** One server entry of `servers`. */
export interface McpServerConfig {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Count the server's tool annotations as hints (default false). */
  trusted?: boolean;
  startTimeoutMs?: number;
  callTimeoutMs?: number;
}

/** The plugin's config. */
export interface McpConfig {
  servers?: Record<string, McpServerConfig>;
  /** Names of editor-provided (ACP) servers whose annotations count as hints. */
  trustedEditorServers?: string[];
}

/** A server ready to start, with whether its hints count. */
export interface ServerPlan {
  launch: ServerLaunch;
  trusted: boolean;
}

export const DEFAULT_START_TIMEOUT_MS = 30_000;
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** A server name as the schema allows it: no `__`, so `mcp__<server>__<tool>` splits one way only. */
export const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/**
 * The launch of one configured server.
 * @param name the server's name
 * @param server its entry
 * @param workspace the folder a relative or absent `cwd` means
 */
export function planServer(name: string, server: McpServerConfig, workspace: string): ServerPlan {
  const cwd =
    server.cwd === undefined
      ? workspace
      : isAbsolute(server.cwd)
        ? server.cwd
        : resolve(workspace, server.cwd);
  return {
    trusted: server.trusted === true,
    launch: {
      name,
      command: server.command,
      args: server.args ?? [],
      env: server.env ?? {},
      cwd,
      startTimeoutMs: server.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
      callTimeoutMs: server.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    },
  };
}
