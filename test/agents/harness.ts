/**
 * The agent test harness (issue 28): drives the real agent CLIs (Claude Code, Codex, Gemini CLI, OpenCode), as
 * installed by `scripts/install-agents.mjs`, for one non-interactive prompt against the fake model server
 * (`fake-model/server.mjs`) on 127.0.0.1, in a scratch project that has a git repository, a `README.md` and a
 * `.env`.
 *
 * Contract:
 * - every agent gets its own HOME (and XDG folders) inside the scratch folder, so nothing is read from or written
 *   to the user's real configuration, and the agent's own set-up for running offline (docs/agents.md);
 * - every agent gets HTTP(S)_PROXY pointing at the fake server, which refuses and records any request for another
 *   host (`fake.egress`), with NO_PROXY for loopback: a test asserts that list is empty;
 * - a run has a wall-clock limit and is killed (the whole process group) when it passes it;
 * - the pre-tool hook is `dsh-mode install AGENT`'s (`installDshMode`, with the operator's policy of
 *   `writeOperatorPolicy`), or, to pin what an agent does with a hook's answers and failures, `stand-in-hook.mjs`
 *   (a decision table in JSON, logging every input it gets; for OpenCode, an in-process plugin with the same table).
 *
 * The scratch folder is not under the system temp folder: Codex refuses to set up its sandbox helpers under it
 * ("Refusing to create helper binaries under temporary dir"), and its default sandbox then fails to start.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { agentPaths, agentsCache, pinnedAgents } from '../../scripts/install-agents.mjs';
import type { FakeModel, Step } from './fake-model/server.mjs';

export { startFakeModel, toolResults } from './fake-model/server.mjs';
export type { FakeModel, RecordedRequest, ScriptStep, Step } from './fake-model/server.mjs';

/** The agents the harness drives, by the names `dsh-mode hook AGENT` will take. */
export type AgentName = 'claude-code' | 'codex' | 'gemini' | 'opencode';

const HERE = import.meta.dirname;
const STAND_IN_HOOK = join(HERE, 'stand-in-hook.mjs');

/** The installed binary of a pinned agent, or an error that says how to install it. */
export function agentBinary(agent: AgentName): string {
  const pin = pinnedAgents()[agent];
  if (!pin) throw new Error(`no pin for ${agent} in test/agents/versions.json`);
  const { bin, marker } = agentPaths(pin);
  if (!bin || !existsSync(bin) || !existsSync(marker)) {
    throw new Error(
      `${pin.package}@${pin.version} is not installed: run \`node scripts/install-agents.mjs ${agent}\``,
    );
  }
  return bin;
}

/** A scratch project and the agent's private home, removed by `cleanup()`. */
export interface Scratch {
  root: string;
  /** The project: a git repository with a committed README.md and an uncommitted `.env`. */
  project: string;
  home: string;
  /** Where the stand-in hook appends each input it gets, one JSON line per call. */
  hookLog: string;
  cleanup(): void;
}

/**
 * Makes a scratch project in $DSH_AGENTS_SCRATCH, else beside the agents cache (see the module header for why not
 * under the temp folder).
 */
export function makeScratch(): Scratch {
  const base = process.env.DSH_AGENTS_SCRATCH || join(dirname(agentsCache()), 'scratch');
  mkdirSync(base, { recursive: true });
  // realpath: agents report their cwd resolved, and tests compare paths with it.
  const root = realpathSync(mkdtempSync(join(base, 'run-')));
  const project = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(project);
  mkdirSync(home);
  writeFileSync(join(project, 'README.md'), '# scratch\n');
  writeFileSync(join(project, '.env'), 'SECRET=hunter2\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=test@example.invalid', '-c', 'user.name=test', ...args], {
      cwd: project,
      stdio: 'ignore',
    });
  git('init', '-q');
  git('add', 'README.md');
  git('commit', '-qm', 'init');
  return {
    root,
    project,
    home,
    hookLog: join(root, 'hook.log'),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** One rule of the stand-in hook: the first whose `match` (a regular expression over the raw input) matches. */
export interface HookRule {
  match: string;
  action: 'deny' | 'ask' | 'allow' | 'exit2' | 'exit2-silent' | 'exit1' | 'crash' | 'garbage' | 'sleep';
  reason?: string;
  ms?: number;
}

/** One line of the stand-in hook's log: the agent's input and the names of its own environment variables. */
export interface HookCall {
  input: Record<string, unknown>;
  env: string[];
  cwd: string;
}

/** The inputs the stand-in hook (or OpenCode plugin) got, in order. */
export function hookCalls(s: Scratch): HookCall[] {
  if (!existsSync(s.hookLog)) return [];
  return readFileSync(s.hookLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as HookCall);
}

/** How the stand-in hook is registered. */
export interface HookOptions {
  /** The agent's time limit for one hook call (default 30 s). */
  hookTimeoutSeconds?: number;
  /** Claude Code only: the hook's `onFailure` (default `block`; null leaves it out, which means continue). */
  onFailure?: 'block' | 'continue' | null;
}

/** How an agent is driven: its tool calls, where it puts the session id, its configuration and command line. */
export interface AgentDriver {
  name: AgentName;
  /** Scripted steps in this agent's own tool names and argument names. */
  shell(command: string): Step;
  write(path: string, content: string): Step;
  read(path: string): Step;
  /**
   * Writes the agent's configuration into the scratch: provider, offline settings, and the stand-in hook with
   * `rules`, or no hook at all with `null` (`dsh-mode install` registers the real one).
   */
  configure(s: Scratch, fake: FakeModel, rules: HookRule[] | null, opts?: HookOptions): void | Promise<void>;
  /** The session id in one hook input (each agent names the field its own way). */
  hookSession(input: Record<string, unknown>): unknown;
  /** The session id the agent printed for a run (its JSON output), as a user would copy it. */
  printedSession(stdout: string): string | undefined;
  /** The command for one prompt in one of the agent's own permission modes. */
  command(
    s: Scratch,
    fake: FakeModel,
    mode: string,
    prompt: string,
  ): { file: string; args: string[]; env: NodeJS.ProcessEnv };
}

/** The environment every agent gets: a private HOME and XDG folders, and the fake server as the only proxy. */
function baseEnv(s: Scratch, fake: FakeModel): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: s.home,
    XDG_CONFIG_HOME: join(s.home, '.config'),
    XDG_DATA_HOME: join(s.home, '.local', 'share'),
    XDG_STATE_HOME: join(s.home, '.local', 'state'),
    XDG_CACHE_HOME: join(s.home, '.cache'),
    TERM: 'dumb',
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    HTTP_PROXY: fake.url,
    HTTPS_PROXY: fake.url,
    ALL_PROXY: fake.url,
    http_proxy: fake.url,
    https_proxy: fake.url,
    all_proxy: fake.url,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
}

function standInCommand(s: Scratch, rules: HookRule[], dialect: 'claude' | 'gemini'): string {
  const config = join(s.root, 'hook.json');
  writeFileSync(config, JSON.stringify({ log: s.hookLog, dialect, rules }, null, 2));
  return `${JSON.stringify(process.execPath)} ${JSON.stringify(STAND_IN_HOOK)} ${JSON.stringify(config)}`;
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value, null, 2) + '\n');
}

/** The JSON lines of an agent's output (JSON Lines, or one JSON document), skipping lines that are not JSON. */
function jsonLines(stdout: string): Array<Record<string, unknown>> {
  const whole = (() => {
    try {
      return JSON.parse(stdout) as unknown;
    } catch {
      return undefined;
    }
  })();
  if (whole && typeof whole === 'object' && !Array.isArray(whole)) return [whole as Record<string, unknown>];
  const out: Array<Record<string, unknown>> = [];
  for (const line of stdout.split('\n')) {
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // Progress text between the JSON lines.
    }
  }
  return out;
}

/** The first non-empty string that `pick` finds in the lines of the agent's JSON output. */
function printed(stdout: string, pick: (line: Record<string, unknown>) => unknown): string | undefined {
  for (const line of jsonLines(stdout)) {
    const v = pick(line);
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

/** Claude Code: a project `.claude/settings.json` PreToolUse command hook; Anthropic Messages on the fake. */
export const claudeCode: AgentDriver = {
  name: 'claude-code',
  shell: (command) => ({ call: { name: 'Bash', args: { command, description: 'run a command' } } }),
  write: (path, content) => ({ call: { name: 'Write', args: { file_path: path, content } } }),
  read: (path) => ({ call: { name: 'Read', args: { file_path: path } } }),
  hookSession: (input) => input.session_id,
  printedSession: (stdout) => printed(stdout, (l) => l.session_id),
  configure(s, _fake, rules, opts) {
    if (rules === null) return;
    writeJson(join(s.project, '.claude', 'settings.json'), {
      hooks: {
        PreToolUse: [
          {
            matcher: '*',
            hooks: [
              {
                type: 'command',
                command: standInCommand(s, rules, 'claude'),
                timeout: opts?.hookTimeoutSeconds ?? 30,
                ...(opts?.onFailure === null ? {} : { onFailure: opts?.onFailure ?? 'block' }),
              },
            ],
          },
        ],
      },
    });
  },
  command(s, fake, mode, prompt) {
    return {
      file: agentBinary('claude-code'),
      args: ['-p', prompt, '--output-format', 'json', '--permission-mode', mode],
      env: {
        ...baseEnv(s, fake),
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_API_KEY: 'sk-ant-fake-for-tests',
        CLAUDE_CONFIG_DIR: join(s.home, '.claude'),
        // One switch for telemetry, error reporting, the auto-updater and feedback; the rest say so by name.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        DISABLE_AUTOUPDATER: '1',
        // bypassPermissions refuses to start as root unless the process says it runs in a sandbox.
        IS_SANDBOX: '1',
      },
    };
  },
};

/** Codex: `$CODEX_HOME/config.toml` with a custom Responses provider and a `[[hooks.PreToolUse]]` hook. */
export const codex: AgentDriver = {
  name: 'codex',
  shell: (command) => ({ call: { name: 'exec_command', args: { cmd: command } } }),
  // Codex writes files only through apply_patch (a freeform tool whose input is the patch text).
  write: (path, content) => ({
    call: {
      name: 'apply_patch',
      args: `*** Begin Patch\n*** Add File: ${path}\n${content
        .split('\n')
        .filter((l, i, a) => i < a.length - 1 || l !== '')
        .map((l) => `+${l}`)
        .join('\n')}\n*** End Patch\n`,
    },
  }),
  // Codex has no read tool: the model reads with the shell.
  read: (path) => ({ call: { name: 'exec_command', args: { cmd: `cat ${path}` } } }),
  hookSession: (input) => input.session_id,
  printedSession: (stdout) => printed(stdout, (l) => (l.type === 'thread.started' ? l.thread_id : undefined)),
  async configure(s, fake, rules, opts) {
    const home = join(s.home, '.codex');
    mkdirSync(home, { recursive: true });
    const toml = [
      'model = "gpt-5.5"',
      'model_provider = "fake"',
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      // Plugins and apps sync a curated catalogue from github.com and chatgpt.com at start.
      '[features]',
      'plugins = false',
      'apps = false',
      'remote_plugin = false',
      '',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = ${JSON.stringify(`${fake.url}/v1`)}`,
      'wire_api = "responses"',
      'env_key = "FAKE_OPENAI_API_KEY"',
      '',
      `[projects.${JSON.stringify(s.project)}]`,
      'trust_level = "trusted"',
      '',
      ...(rules === null
        ? []
        : [
            '[[hooks.PreToolUse]]',
            'matcher = "*"',
            '[[hooks.PreToolUse.hooks]]',
            'type = "command"',
            `command = ${JSON.stringify(standInCommand(s, rules, 'claude'))}`,
            `timeout = ${opts?.hookTimeoutSeconds ?? 30}`,
            '',
          ]),
    ].join('\n');
    writeFileSync(join(home, 'config.toml'), toml);
    if (rules !== null) await trustCodexHooks(s, fake);
  },
  command(s, fake, mode, prompt) {
    // No --dangerously-bypass-hook-trust: configure() trusted the hook the way a user does (see trustCodexHooks).
    const args = ['exec', '--json', '--skip-git-repo-check'];
    if (mode === 'bypass') args.push('--dangerously-bypass-approvals-and-sandbox');
    else args.push('--sandbox', mode);
    args.push(prompt);
    return {
      file: agentBinary('codex'),
      args,
      env: {
        ...baseEnv(s, fake),
        CODEX_HOME: join(s.home, '.codex'),
        FAKE_OPENAI_API_KEY: 'sk-fake-for-tests',
      },
    };
  },
};

function codexEnv(s: Scratch, fake: FakeModel): NodeJS.ProcessEnv {
  return {
    ...baseEnv(s, fake),
    CODEX_HOME: join(s.home, '.codex'),
    FAKE_OPENAI_API_KEY: 'sk-fake-for-tests',
  };
}

/**
 * Trusts every Codex hook of the scratch project the way Codex's own `/hooks` review does: it asks Codex's app
 * server (`codex app-server`, JSON-RPC on stdio) for `hooks/list`, and records each hook's `currentHash` as
 * `[hooks.state."<key>"] trusted_hash` in `$CODEX_HOME/config.toml`. Codex skips, silently, a hook whose
 * definition no longer has the trusted hash, so a changed hook command is a hook that no longer runs.
 */
export async function trustCodexHooks(s: Scratch, fake: FakeModel): Promise<void> {
  const child = spawn(agentBinary('codex'), ['app-server'], {
    cwd: s.project,
    env: codexEnv(s, fake),
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  let buffer = '';
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      let message: { id?: number; result?: unknown; error?: unknown };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        continue;
      }
      if (typeof message.id === 'number') pending.get(message.id)?.(message);
    }
  });
  let next = 0;
  const call = (method: string, params: unknown) =>
    new Promise<{ result?: unknown; error?: unknown }>((resolveCall, reject) => {
      const id = ++next;
      const timer = setTimeout(() => reject(new Error(`codex app-server: no answer to ${method}`)), 30_000);
      pending.set(id, (m) => {
        clearTimeout(timer);
        resolveCall(m);
      });
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  try {
    await call('initialize', { clientInfo: { name: 'dsh-mode-tests', version: '0' } });
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'initialized' }) + '\n');
    const listed = await call('hooks/list', { cwds: [s.project] });
    type Listed = {
      data?: Array<{ hooks?: Array<{ key: string; currentHash: string; trustStatus: string }> }>;
    };
    const hooks = ((listed.result as Listed | undefined)?.data ?? []).flatMap((d) => d.hooks ?? []);
    if (hooks.length === 0) throw new Error(`codex app-server listed no hooks: ${JSON.stringify(listed)}`);
    const trust = hooks
      .filter((h) => h.trustStatus !== 'trusted')
      .map(
        (h) => `\n[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = ${JSON.stringify(h.currentHash)}\n`,
      )
      .join('');
    appendFileSync(join(s.home, '.codex', 'config.toml'), trust);
  } finally {
    child.kill('SIGKILL');
  }
}

/** Gemini CLI: user settings (auth type, no telemetry), a trusted folder, a project `BeforeTool` hook. */
export const gemini: AgentDriver = {
  name: 'gemini',
  shell: (command) => ({
    call: { name: 'run_shell_command', args: { command, description: 'run a command' } },
  }),
  write: (path, content) => ({ call: { name: 'write_file', args: { file_path: path, content } } }),
  read: (path) => ({ call: { name: 'read_file', args: { file_path: path } } }),
  hookSession: (input) => input.session_id,
  printedSession: (stdout) => printed(stdout, (l) => l.session_id),
  configure(s, _fake, rules, opts) {
    writeJson(join(s.home, '.gemini', 'settings.json'), {
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: true } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    });
    // Project settings (and so project hooks) load only in a trusted folder.
    writeJson(join(s.home, '.gemini', 'trustedFolders.json'), { [s.project]: 'TRUST_FOLDER' });
    if (rules === null) return;
    writeJson(join(s.project, '.gemini', 'settings.json'), {
      hooks: {
        BeforeTool: [
          {
            matcher: '.*',
            hooks: [
              {
                type: 'command',
                name: 'stand-in',
                command: standInCommand(s, rules, 'gemini'),
                timeout: (opts?.hookTimeoutSeconds ?? 30) * 1000,
              },
            ],
          },
        ],
      },
    });
  },
  command(s, fake, mode, prompt) {
    return {
      file: process.execPath,
      args: [agentBinary('gemini'), '-p', prompt, '--output-format', 'json', '--approval-mode', mode],
      env: {
        ...baseEnv(s, fake),
        GEMINI_API_KEY: 'fake-gemini-key-for-tests',
        GOOGLE_GEMINI_BASE_URL: fake.url,
      },
    };
  },
};

/** The plugin the OpenCode driver installs: the stand-in hook's decision table, applied in process. */
function opencodePlugin(config: string): string {
  return `// Stand-in for the dsh-mode OpenCode plugin (test/agents/harness.ts writes it).
import { appendFileSync, readFileSync } from 'node:fs';
const config = JSON.parse(readFileSync(${JSON.stringify(config)}, 'utf8'));
export const StandIn = async (ctx) => ({
  'tool.execute.before': async (input, output) => {
    const raw = JSON.stringify({ input, output });
    const env = Object.keys(process.env).filter((k) => k.startsWith('OPENCODE')).sort();
    appendFileSync(config.log, JSON.stringify({ input: { input, output }, env, cwd: ctx.directory }) + '\\n');
    const rule = (config.rules ?? []).find((r) => new RegExp(r.match).test(raw));
    if (!rule) return;
    if (rule.action === 'deny') throw new Error(rule.reason ?? 'stand-in plugin: deny');
    if (rule.action === 'crash') throw new TypeError('stand-in plugin crashed');
    if (rule.action === 'sleep') await new Promise((r) => setTimeout(r, rule.ms ?? 60000));
  },
});
`;
}

/**
 * OpenCode stores plugin dependencies in each config folder (the project's `.opencode/` and the user's
 * `~/.config/opencode/`) and installs `@opencode-ai/plugin` there from npm at start unless the folder's
 * package-lock.json already lists every dependency of its package.json. Offline that install fails after a
 * long wait. The harness copies the install that scripts/install-agents.mjs made (and links its node_modules).
 */
function seedOpencodeDeps(folder: string): void {
  const pin = pinnedAgents()['opencode-plugin']!;
  const { prefix, marker } = agentPaths(pin);
  if (!existsSync(marker)) throw new Error('run `node scripts/install-agents.mjs opencode-plugin`');
  mkdirSync(folder, { recursive: true });
  for (const f of ['package.json', 'package-lock.json'])
    writeFileSync(join(folder, f), readFileSync(join(prefix, f)));
  symlinkSync(join(prefix, 'node_modules'), join(folder, 'node_modules'));
}

/** OpenCode: `opencode.json` with an OpenAI-compatible provider (Chat Completions), a `.opencode/plugin/` file. */
export const opencode: AgentDriver = {
  name: 'opencode',
  shell: (command) => ({ call: { name: 'bash', args: { command, description: 'run a command' } } }),
  write: (path, content) => ({ call: { name: 'write', args: { filePath: path, content } } }),
  read: (path) => ({ call: { name: 'read', args: { filePath: path } } }),
  hookSession: (input) => (input.input as { sessionID?: unknown } | undefined)?.sessionID,
  printedSession: (stdout) => printed(stdout, (l) => l.sessionID),
  configure(s, fake, rules) {
    writeJson(join(s.project, 'opencode.json'), {
      autoupdate: false,
      share: 'disabled',
      model: 'fake/fake-model',
      provider: {
        fake: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Fake',
          options: { baseURL: `${fake.url}/v1`, apiKey: 'fake-for-tests' },
          models: {
            'fake-model': { name: 'Fake Model', tool_call: true, limit: { context: 100000, output: 8000 } },
          },
        },
      },
    });
    seedOpencodeDeps(join(s.project, '.opencode'));
    seedOpencodeDeps(join(s.home, '.config', 'opencode'));
    if (rules === null) return;
    const config = join(s.root, 'hook.json');
    writeFileSync(config, JSON.stringify({ log: s.hookLog, dialect: 'opencode', rules }, null, 2));
    mkdirSync(join(s.project, '.opencode', 'plugin'), { recursive: true });
    writeFileSync(join(s.project, '.opencode', 'plugin', 'stand-in.js'), opencodePlugin(config));
  },
  command(s, fake, mode, prompt) {
    return {
      file: agentBinary('opencode'),
      args: ['run', '--format', 'json', '--model', 'fake/fake-model', '--agent', mode, prompt],
      env: {
        ...baseEnv(s, fake),
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        // models.dev: the model catalogue it fetches at start.
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        // The default plugins are npm packages (provider auth) it would install at start.
        OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
        OPENCODE_DISABLE_SHARE: '1',
      },
    };
  },
};

/** The four drivers by agent name. */
export const drivers: Record<AgentName, AgentDriver> = {
  'claude-code': claudeCode,
  codex,
  gemini,
  opencode,
};

/** How one run ended. */
export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** True when the run passed its time limit and was killed. */
  timedOut: boolean;
}

/** Runs one prompt to the end (or to `timeoutMs`, then kills the agent's whole process group). */
export function runAgent(
  driver: AgentDriver,
  s: Scratch,
  fake: FakeModel,
  opts: { mode: string; prompt?: string; timeoutMs?: number },
): Promise<RunResult> {
  const { file, args, env } = driver.command(s, fake, opts.mode, opts.prompt ?? 'Follow the scripted steps.');
  const started = Date.now();
  return new Promise((resolveRun, reject) => {
    const child = spawn(file, args, {
      cwd: s.project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        // The agents start helpers (shells, language servers, hooks): end the whole group, not just the leader.
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, opts.timeoutMs ?? 120_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolveRun({ code, signal, stdout, stderr, ms: Date.now() - started, timedOut });
    });
  });
}

const REPO = join(HERE, '..', '..');
const DSH_MODE = join(REPO, 'bin', 'dsh-mode.mjs');

/** The environment `dsh-mode` runs with in a scratch: the agent's private HOME and XDG folders. */
export function dshEnv(s: Scratch): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: s.home,
    XDG_CONFIG_HOME: join(s.home, '.config'),
    XDG_CACHE_HOME: join(s.home, '.cache'),
    CLAUDE_CONFIG_DIR: join(s.home, '.claude'),
    CODEX_HOME: join(s.home, '.codex'),
    NO_COLOR: '1',
  };
}

/** Runs `dsh-mode ARGS` in the scratch project as the user would; its exit code, stdout and stderr. */
export function dshMode(s: Scratch, args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [DSH_MODE, ...args], {
    cwd: s.project,
    env: dshEnv(s),
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The operator's set-up the agent tests run under: a `cordis.yml` whose mode entry adds `policies/` (a plan rule
 * that keeps `.env` out of reads, through the read tool and through `cat`), trusted with `dsh-mode trust`.
 */
export const OPERATOR_REASON = 'secrets stay out of the model (operator rule)';
export function writeOperatorPolicy(s: Scratch): void {
  writeFileSync(
    join(s.project, 'cordis.yml'),
    '- name: host\n- name: demo\n- name: mode\n  config:\n    policies: [policies]\n',
  );
  mkdirSync(join(s.project, 'policies'));
  writeFileSync(
    join(s.project, 'policies', 'operator.yaml'),
    [
      'mode: plan',
      'description: The operator narrows plan.',
      'tools:',
      '  read:',
      '    paths:',
      `      ".env*": { decision: deny, reason: "${OPERATOR_REASON}" }`,
      '  bash:',
      '    commands:',
      `      "cat *.env*": { decision: deny, reason: "${OPERATOR_REASON}" }`,
      '',
    ].join('\n'),
  );
  const trusted = dshMode(s, ['trust', 'cordis.yml']);
  if (trusted.code !== 0) throw new Error(`dsh-mode trust failed: ${trusted.stderr}`);
}

/** `dsh-mode install AGENT --project --mode MODE` in the scratch (and for Codex, the trust step it prints). */
export async function installDshMode(
  driver: AgentDriver,
  s: Scratch,
  fake: FakeModel,
  mode: string,
  beforeTrust?: () => void,
): Promise<string> {
  const r = dshMode(s, ['install', driver.name, '--project', '--mode', mode]);
  if (r.code !== 0) throw new Error(`dsh-mode install ${driver.name} failed (${r.code}): ${r.stderr}`);
  beforeTrust?.();
  // Codex runs a hook only once the user trusts it (install prints the step): the tests take it as /hooks does.
  if (driver.name === 'codex') await trustCodexHooks(s, fake);
  return r.stdout + r.stderr;
}
