/**
 * `dsh-mode install AGENT` and `uninstall AGENT`: exactly one hook registration written or removed, and the mode
 * new sessions start in (`settings.ts`). What each agent reads (verified against the pinned versions; docs/agents.md):
 * - Claude Code: `.claude/settings.json` (`--project`) or `$CLAUDE_CONFIG_DIR/settings.json` (default
 *   `~/.claude/settings.json`): a `PreToolUse` command hook, `matcher: "*"`, with `onFailure: "block"`, so a
 *   crash or a timeout blocks the call;
 * - Codex: `.codex/hooks.json` or `$CODEX_HOME/hooks.json` (default `~/.codex`): the same JSON shape. Codex runs a
 *   hook only after the user trusts it (`/hooks`), and skips an untrusted one silently, so install prints that
 *   step and never takes it for the user;
 * - Gemini CLI: `.gemini/settings.json` or `~/.gemini/settings.json`: a `BeforeTool` hook named `dsh-mode`, its
 *   timeout in milliseconds;
 * - OpenCode: `.opencode/plugin/dsh-mode.js` or `$XDG_CONFIG_HOME/opencode/plugin/dsh-mode.js`: a plugin file with
 *   no static import that loads the engine in process (`opencode-plugin.ts`).
 *
 * The hook command is the same whatever the mode or the policy (a changed Codex command loses its trust): the
 * absolute path of this package's `bin/dsh-mode-hook.cjs`, run by the node that runs install. dsh-mode's own entry is
 * the one whose command runs `dsh-mode … hook AGENT` (for OpenCode, the file with dsh-mode's header); nothing else
 * in a file is touched, an entry in the place of ours that is not ours is refused, and JSON is edited in place
 * (comments and formatting kept). Install refuses a workspace whose policies do not load (a policy with an error,
 * an untrusted `cordis.yml`) and a `--mode` they do not define.
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { applyEdits, modify, parse, type ParseError } from 'jsonc-parser';
import { DEFAULT_MODE } from '../engine/vocabulary.js';
import { opencodePluginText, OPENCODE_PLUGIN_MARK } from './opencode-plugin.js';
import { agentPolicies } from './compiled.js';
import { ensureSecret, SECRET_ENV } from './serve.js';
import { packageVersion } from '../apps/version.js';
import { projectSettingsPath, readSettings, userSettingsPath } from './settings.js';
import type { AgentName } from './tables.js';

/** Where an install goes. */
export type InstallScope = 'project' | 'user';

/** What install and uninstall need to know. */
export interface InstallOptions {
  agent: AgentName;
  scope: InstallScope;
  /** The project folder (for `--project`, and whose policies are checked). */
  workspace: string;
  env: NodeJS.ProcessEnv;
  /** The mode new sessions start in (install only; default `default`). */
  mode?: string;
  /** The command the hook runs; default this package's binary. */
  command?: string;
  /** The engine module OpenCode's plugin imports; default this package's bundle. */
  engineUrl?: string;
  /** Claude Code only: register the `http` hook of `dsh-mode serve` on this port instead of the command hook. */
  http?: number;
}

/** What install or uninstall did: one line per change, and notes the user must read. */
export interface InstallReport {
  changes: string[];
  notes: string[];
}

/** An install that cannot be done: nothing was written. */
export class InstallError extends Error {
  override readonly name = 'InstallError';
}

/** The hook's time limit, in seconds: a cold decision takes a fraction of one; git's checks are bounded by ten. */
export const HOOK_TIMEOUT_SECONDS = 30;

const PACKAGE_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

/** The command the hook runs: this package's binary, by absolute paths, quoted for a shell. */
export function defaultHookCommand(agent: AgentName): string {
  const bin = join(PACKAGE_ROOT, 'bin', 'dsh-mode-hook.cjs');
  return `${shellQuote(process.execPath)} ${shellQuote(bin)} hook ${agent}`;
}

/** The engine OpenCode's plugin imports. */
export function defaultEngineUrl(): string {
  return pathToFileURL(join(PACKAGE_ROOT, 'dist', 'bundle', 'agents', 'opencode.js')).href;
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Whether a hook command is dsh-mode's for this agent. */
export function isOurCommand(command: unknown, agent: AgentName): boolean {
  return (
    typeof command === 'string' &&
    new RegExp(`dsh-mode(?:-hook\\.cjs|\\.mjs)?'? hook ${agent}$`).test(command.trim())
  );
}

/** Whether an http hook's URL is `dsh-mode serve`'s. */
export function isOurUrl(url: unknown): boolean {
  return typeof url === 'string' && /^http:\/\/127\.0\.0\.1:\d+\/hook\/claude-code$/.test(url);
}

/** The http hook of `dsh-mode serve` on a port. */
export function httpHookEntry(port: number): Record<string, unknown> {
  return {
    type: 'http',
    url: `http://127.0.0.1:${port}/hook/claude-code`,
    timeout: HOOK_TIMEOUT_SECONDS,
    headers: { Authorization: `Bearer $${SECRET_ENV}` },
    allowedEnvVars: [SECRET_ENV],
    onFailure: 'block',
  };
}

/** The file an agent's registration lives in. */
export function registrationFile(
  agent: AgentName,
  scope: InstallScope,
  workspace: string,
  env: NodeJS.ProcessEnv,
): string {
  const home = env.HOME || homedir();
  switch (agent) {
    case 'claude-code':
      return scope === 'project'
        ? join(workspace, '.claude', 'settings.json')
        : join(absoluteOr(env.CLAUDE_CONFIG_DIR, join(home, '.claude')), 'settings.json');
    case 'codex':
      return scope === 'project'
        ? join(workspace, '.codex', 'hooks.json')
        : join(absoluteOr(env.CODEX_HOME, join(home, '.codex')), 'hooks.json');
    case 'gemini':
      return scope === 'project'
        ? join(workspace, '.gemini', 'settings.json')
        : join(home, '.gemini', 'settings.json');
    case 'opencode':
      return scope === 'project'
        ? join(workspace, '.opencode', 'plugin', 'dsh-mode.js')
        : join(absoluteOr(env.XDG_CONFIG_HOME, join(home, '.config')), 'opencode', 'plugin', 'dsh-mode.js');
  }
}

function absoluteOr(value: string | undefined, fallback: string): string {
  return value && isAbsolute(value) ? value : fallback;
}

/** The hook entry dsh-mode writes for a JSON-configured agent. */
export function hookEntry(agent: Exclude<AgentName, 'opencode'>, command: string): Record<string, unknown> {
  switch (agent) {
    case 'claude-code':
      return { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS, onFailure: 'block' };
    case 'codex':
      return { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
    case 'gemini':
      return { type: 'command', name: 'dsh-mode', command, timeout: HOOK_TIMEOUT_SECONDS * 1000 };
  }
}

const EVENT: Readonly<Record<Exclude<AgentName, 'opencode'>, string>> = {
  'claude-code': 'PreToolUse',
  codex: 'PreToolUse',
  gemini: 'BeforeTool',
};
const MATCHER: Readonly<Record<Exclude<AgentName, 'opencode'>, string>> = {
  'claude-code': '*',
  codex: '*',
  gemini: '.*',
};

/**
 * Installs the hook and the starting mode.
 * @throws InstallError when the policies do not load, the mode is not defined, or a file in the way is not ours
 */
export async function install(options: InstallOptions): Promise<InstallReport> {
  const { agent, scope, workspace, env } = options;
  const mode = options.mode ?? DEFAULT_MODE;
  const report: InstallReport = { changes: [], notes: [] };
  let loaded;
  try {
    loaded = await agentPolicies(workspace, env, packageVersion());
  } catch (error) {
    throw new InstallError(`${(error as Error).message}\nnothing was installed`);
  }
  if (mode !== DEFAULT_MODE && loaded.policies.get(mode) === undefined) {
    const modes = [DEFAULT_MODE, ...loaded.policies.modes.keys()].map((m) => `\`${m}\``).join(', ');
    throw new InstallError(
      `the policies (${loaded.source}) do not define the mode \`${mode}\`: the modes are ${modes}\nnothing was installed`,
    );
  }
  const file = registrationFile(agent, scope, workspace, env);
  if (agent === 'opencode') {
    const text = opencodePluginText(options.engineUrl ?? defaultEngineUrl());
    report.changes.push(writeOwnFile(file, text));
  } else {
    const entry =
      agent === 'claude-code' && options.http !== undefined
        ? httpHookEntry(options.http)
        : hookEntry(agent, options.command ?? defaultHookCommand(agent));
    report.changes.push(upsertJsonHook(file, agent, entry));
    if (options.http !== undefined) {
      const secret = ensureSecret(env);
      if (secret.created) report.changes.push(`${secret.file}: wrote the secret dsh-mode serve requires`);
      report.notes.push(
        `start the server with \`dsh-mode serve --port ${options.http}\`, and Claude Code with ${SECRET_ENV} set to the secret: ${SECRET_ENV}=$(cat ${secret.file}) claude`,
      );
    }
  }
  const settingsFile =
    scope === 'project' ? projectSettingsPath(workspace, agent) : userSettingsPath(env, agent);
  report.changes.push(writeStartMode(settingsFile, mode));
  report.notes.push(...agentNotes(agent, scope, file, env));
  return report;
}

/**
 * Removes the hook and the starting mode that install wrote.
 * @throws InstallError when the entry in the way is not ours
 */
export function uninstall(options: InstallOptions): InstallReport {
  const { agent, scope, workspace, env } = options;
  const report: InstallReport = { changes: [], notes: [] };
  const file = registrationFile(agent, scope, workspace, env);
  if (agent === 'opencode') report.changes.push(removeOwnFile(file));
  else report.changes.push(removeJsonHook(file, agent));
  const settingsFile =
    scope === 'project' ? projectSettingsPath(workspace, agent) : userSettingsPath(env, agent);
  if (existsSync(settingsFile)) {
    readSettings(settingsFile);
    rmSync(settingsFile);
    report.changes.push(`removed ${settingsFile} (the starting mode)`);
  }
  return report;
}

function agentNotes(agent: AgentName, scope: InstallScope, file: string, env: NodeJS.ProcessEnv): string[] {
  switch (agent) {
    case 'claude-code':
      return [claudeVersionNote(env)];
    case 'codex':
      return [
        `Codex runs a hook only after you trust it, and until then it skips it SILENTLY (every call runs). Trust it now: run \`codex\`, type \`/hooks\`, and trust the hook \`dsh-mode hook codex\` from ${file}.`,
        ...(scope === 'project'
          ? [
              'Codex reads a project\'s .codex/ only when the project itself is trusted (`trust_level = "trusted"` in ~/.codex/config.toml).',
            ]
          : []),
        'Codex cannot be made to block a call when a hook fails: dsh-mode answers deny on every error of its own.',
      ];
    case 'gemini':
      return [
        ...(scope === 'project'
          ? [
              'Gemini CLI runs project hooks only in a trusted folder (with folder trust on, an untrusted folder does not start headless).',
            ]
          : []),
        'Gemini CLI refuses some reads (.env, files outside the workspace) before any hook runs; the hook never sees those.',
      ];
    case 'opencode':
      return [
        'OpenCode skips a plugin file that fails to load, and every call then runs: keep dsh-mode installed where the plugin points.',
      ];
  }
}

/** The first Claude Code that honours `onFailure: "block"`. */
export const ON_FAILURE_SINCE = [2, 1, 295] as const;

/**
 * What install says about `onFailure: "block"` for the Claude Code on PATH: that it holds, that this version
 * predates it (a failed hook then lets the call run), or that no `claude` was found to ask.
 */
export function claudeVersionNote(env: NodeJS.ProcessEnv): string {
  const since = ON_FAILURE_SINCE.join('.');
  const r = spawnSync('claude', ['--version'], {
    env,
    encoding: 'utf8',
    timeout: 10_000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const found = /(\d+)\.(\d+)\.(\d+)/.exec(r.stdout ?? '');
  if (r.error !== undefined || found === null)
    return `no \`claude\` on PATH to ask its version: the hook blocks a call when it fails or times out only in Claude Code ${since} or later (\`onFailure: "block"\`); an older version lets the call run`;
  const version = found.slice(1, 4).map(Number);
  const differs = version.findIndex((v, k) => v !== ON_FAILURE_SINCE[k]);
  const older = differs !== -1 && version[differs]! < ON_FAILURE_SINCE[differs]!;
  return older
    ? `Claude Code ${found[0]} predates \`onFailure: "block"\` (${since}): until you update it, a hook that fails or times out lets the call run`
    : `Claude Code ${found[0]} honours \`onFailure: "block"\`: a hook that fails or times out blocks the call`;
}

/** Reads a JSON(C) settings file: its text and value (`{}` for a missing file). */
function readJsonFile(file: string): { text: string; value: Record<string, unknown> } {
  if (!existsSync(file)) return { text: '{}\n', value: {} };
  const text = readFileSync(file, 'utf8');
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true });
  if (errors.length > 0)
    throw new InstallError(
      `${file} is not valid JSON (at offset ${errors[0]!.offset}); fix it, then run install again`,
    );
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    if (text.trim() === '') return { text: '{}\n', value: {} };
    throw new InstallError(`${file} is not a JSON object; fix it, then run install again`);
  }
  return { text, value: value as Record<string, unknown> };
}

interface Found {
  group: number;
  hook: number;
  entry: Record<string, unknown>;
}

/** dsh-mode's entries in the event's groups. */
function ourEntries(
  value: Record<string, unknown>,
  agent: Exclude<AgentName, 'opencode'>,
  file: string,
): Found[] {
  const hooks = value.hooks;
  if (hooks === undefined) return [];
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks))
    throw new InstallError(`${file}: \`hooks\` is not an object`);
  const groups = (hooks as Record<string, unknown>)[EVENT[agent]];
  if (groups === undefined) return [];
  if (!Array.isArray(groups)) throw new InstallError(`${file}: \`hooks.${EVENT[agent]}\` is not a list`);
  const found: Found[] = [];
  groups.forEach((group: unknown, g) => {
    const list = (group as { hooks?: unknown } | null)?.hooks;
    if (!Array.isArray(list)) return;
    list.forEach((entry: unknown, h) => {
      const e = entry as Record<string, unknown> | null;
      if (e === null || typeof e !== 'object') return;
      if (isOurCommand(e.command, agent) || (agent === 'claude-code' && isOurUrl(e.url)))
        found.push({ group: g, hook: h, entry: e });
      else if (agent === 'gemini' && e.name === 'dsh-mode')
        throw new InstallError(
          `${file}: a BeforeTool hook named \`dsh-mode\` runs \`${String(e.command)}\`, which dsh-mode did not write; remove or rename it first`,
        );
    });
  });
  return found;
}

const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };

function upsertJsonHook(
  file: string,
  agent: Exclude<AgentName, 'opencode'>,
  entry: Record<string, unknown>,
): string {
  const { text, value } = readJsonFile(file);
  const found = ourEntries(value, agent, file);
  const what = String(entry.command ?? entry.url);
  const event = EVENT[agent];
  if (found.length > 1)
    throw new InstallError(
      `${file} has ${found.length} dsh-mode hooks for ${event}; keep one (or run uninstall), then install again`,
    );
  let next: string;
  if (found.length === 1) {
    const { group, hook, entry: old } = found[0]!;
    if (JSON.stringify(old) === JSON.stringify(entry))
      return `${file}: the ${event} hook is already installed (unchanged)`;
    next = applyEdits(text, modify(text, ['hooks', event, group, 'hooks', hook], entry, FORMAT));
    writeAtomic(file, next);
    return `${file}: updated the ${event} hook \`${what}\``;
  }
  const group = { matcher: MATCHER[agent], hooks: [entry] };
  next = applyEdits(text, modify(text, ['hooks', event, -1], group, { ...FORMAT, isArrayInsertion: true }));
  writeAtomic(file, next);
  return `${file}: added the ${event} hook \`${what}\``;
}

function removeJsonHook(file: string, agent: Exclude<AgentName, 'opencode'>): string {
  if (!existsSync(file)) return `${file}: no dsh-mode hook (nothing to remove)`;
  const { text, value } = readJsonFile(file);
  const found = ourEntries(value, agent, file);
  if (found.length === 0) return `${file}: no dsh-mode hook (nothing to remove)`;
  const event = EVENT[agent];
  const groups = (value.hooks as Record<string, unknown>)[event] as Array<{ hooks: unknown[] }>;
  let next = text;
  // Last first, so the earlier indexes stay right; a group left with no hook goes too.
  for (const f of [...found].reverse()) {
    const alone = groups[f.group]!.hooks.length === 1;
    const path = alone ? ['hooks', event, f.group] : ['hooks', event, f.group, 'hooks', f.hook];
    next = applyEdits(next, modify(next, path, undefined, FORMAT));
  }
  writeAtomic(file, next);
  return `${file}: removed the ${event} hook`;
}

function writeOwnFile(file: string, text: string): string {
  if (existsSync(file)) {
    const old = readFileSync(file, 'utf8');
    if (!old.startsWith(OPENCODE_PLUGIN_MARK))
      throw new InstallError(
        `${file} exists and dsh-mode did not write it; move it away, then install again`,
      );
    if (old === text) return `${file}: the plugin is already installed (unchanged)`;
    writeAtomic(file, text);
    return `${file}: updated the plugin`;
  }
  writeAtomic(file, text);
  return `${file}: added the plugin`;
}

function removeOwnFile(file: string): string {
  if (!existsSync(file)) return `${file}: no dsh-mode plugin (nothing to remove)`;
  if (!readFileSync(file, 'utf8').startsWith(OPENCODE_PLUGIN_MARK))
    throw new InstallError(`${file} was not written by dsh-mode; it was left as it is`);
  rmSync(file);
  return `${file}: removed the plugin`;
}

function writeStartMode(file: string, mode: string): string {
  const old = existsSync(file) ? readSettings(file) : undefined;
  if (old?.mode === mode) return `${file}: new sessions start in ${mode} mode (unchanged)`;
  const next = { ...old, mode };
  writeAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
  return `${file}: new sessions start in ${mode} mode${old?.mode === undefined ? '' : ` (was ${old.mode})`}`;
}

function writeAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.dsh-mode-${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}
