/**
 * What `dsh-mode install AGENT --mode MODE` configures besides the hook registration: the mode new sessions of
 * that agent start in, and for Claude Code how its own `permission_mode` maps onto dsh-mode's modes. It lives
 * beside the journals, never in the hook's command (a changed Codex hook command loses its trust and is then
 * skipped silently): `<workspace>/.dsh/agents/<agent>.json` for `--project`, `<config dir>/agents/<agent>.json`
 * for `--user` (the folder of the trust records).
 *
 * `{"mode": "plan", "permissionModes": {"plan": "plan"}}`: `permissionModes` maps a Claude Code permission mode to a
 * dsh-mode mode; absent, its `plan` is dsh-mode's plan and nothing else maps.
 *
 * Both files may exist. A project's file may come from a cloned repository, so it never makes a session start
 * less restricted than the user's own choice: when both name a mode, the user's wins unless it is `default`; a
 * project's `permissionModes` can add a mapping but not change Claude Code's `plan` → plan.
 * @module
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from '../apps/trust.js';
import { DEFAULT_MODE } from '../engine/vocabulary.js';
import { readRegularFileSync } from '../files/read-file.js';
import type { AgentName } from './tables.js';

/** What one settings file says. */
export interface AgentSettings {
  mode?: string;
  permissionModes?: Record<string, string>;
}

/** The settings a session starts with, and where each came from. */
export interface StartSettings {
  /** The mode a new session starts in. */
  mode: string;
  /** The file that set it, or `default` when none did. */
  from: string;
  /** Claude Code's permission modes mapped to dsh-mode modes. */
  permissionModes: Readonly<Record<string, string>>;
}

/** Claude Code's `plan` is dsh-mode's plan unless configured otherwise. */
export const DEFAULT_PERMISSION_MODES: Readonly<Record<string, string>> = Object.freeze({ plan: 'plan' });

const MAX_SETTINGS_BYTES = 64 * 1024;

/** The settings file of `--project` installs. */
export function projectSettingsPath(workspace: string, agent: AgentName): string {
  return join(workspace, '.dsh', 'agents', `${agent}.json`);
}

/** The settings file of `--user` installs. */
export function userSettingsPath(env: NodeJS.ProcessEnv, agent: AgentName): string {
  return join(configDir(env), 'agents', `${agent}.json`);
}

/**
 * Reads one settings file.
 * @returns its settings, or undefined when it does not exist
 * @throws Error naming the file when it is not a settings file
 */
export function readSettings(file: string): AgentSettings | undefined {
  // Most sessions have one settings file or none: a missing one is found without an exception.
  if (lstatSync(file, { throwIfNoEntry: false }) === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(file, MAX_SETTINGS_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${file} cannot be read: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new Error(`${file} is not JSON: ${(error as Error).message}`);
  }
  const shape = `${file} must be {"mode": "MODE", "permissionModes": {"PERMISSION_MODE": "MODE"}}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(shape);
  const { mode, permissionModes } = value as Record<string, unknown>;
  const out: AgentSettings = {};
  if (mode !== undefined) {
    if (typeof mode !== 'string' || mode === '') throw new Error(shape);
    out.mode = mode;
  }
  if (permissionModes !== undefined) {
    if (typeof permissionModes !== 'object' || permissionModes === null || Array.isArray(permissionModes))
      throw new Error(shape);
    const map: Record<string, string> = {};
    for (const [k, v] of Object.entries(permissionModes)) {
      if (typeof v !== 'string' || v === '') throw new Error(shape);
      map[k] = v;
    }
    out.permissionModes = map;
  }
  return out;
}

/**
 * The settings a session of `agent` in `workspace` starts with.
 * @throws Error when a settings file cannot be read
 */
export function startSettings(workspace: string, agent: AgentName, env: NodeJS.ProcessEnv): StartSettings {
  const projectFile = projectSettingsPath(workspace, agent);
  const userFile = userSettingsPath(env, agent);
  const project = readSettings(projectFile);
  const user = readSettings(userFile);
  const userMode = user?.mode !== undefined && user.mode !== DEFAULT_MODE ? user.mode : undefined;
  const chosen =
    userMode !== undefined
      ? { mode: userMode, from: userFile }
      : project?.mode !== undefined
        ? { mode: project.mode, from: projectFile }
        : user?.mode !== undefined
          ? { mode: user.mode, from: userFile }
          : { mode: DEFAULT_MODE, from: 'default' };
  return {
    ...chosen,
    // A project's map adds to the built-in one and never replaces it; the user's own map replaces both.
    permissionModes: { ...project?.permissionModes, ...DEFAULT_PERMISSION_MODES, ...user?.permissionModes },
  };
}
