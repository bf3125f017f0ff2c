/**
 * OpenCode's side: the plugin file `install opencode` writes, and the function it calls in process.
 *
 * OpenCode skips, silently, a plugin file that fails to load (a syntax error, an import that fails), and every
 * call then runs. So the file has no static import: it loads dsh-mode's engine with `import()` of an absolute file
 * URL inside the hook, and throws when that fails, which blocks the call. It puts its own time limit on every
 * decision, because OpenCode has none and a hook that never settles hangs the run. It notes each session's agent
 * (`plan`, `build`) from `chat.params`, which runs before every model request, since the tool hook's input has no
 * agent or mode; `plan` maps to dsh-mode's plan as Claude Code's permission mode does.
 * @module
 */
import { decideHook } from './hook.js';
import type { HookAnswer } from './dialect.js';

/** The first line of the plugin file: how install knows the file is its own. */
export const OPENCODE_PLUGIN_MARK = '// dsh-mode: OpenCode plugin written by `dsh-mode install opencode`';

/** The decision time limit in the plugin, in milliseconds. */
export const OPENCODE_TIMEOUT_MS = 20_000;

/**
 * The plugin file's text.
 * @param engineUrl the `file:` URL of the engine bundle (`dist/bundle/opencode.js`)
 */
export function opencodePluginText(engineUrl: string): string {
  return `${OPENCODE_PLUGIN_MARK}; \`dsh-mode uninstall opencode\` removes it.
// No static import: OpenCode skips a plugin file that fails to load, and every call would then run. The engine is
// imported inside the hook, and a failure to load it, an error or no answer within the time limit denies the call.
const ENGINE = ${JSON.stringify(engineUrl)};
const TIMEOUT_MS = ${OPENCODE_TIMEOUT_MS};

export const DshMode = async (ctx) => {
  const agents = new Map();
  let engine;
  return {
    'chat.params': async (input) => {
      const agent = typeof input?.agent === 'string' ? input.agent : input?.agent?.name;
      if (typeof input?.sessionID === 'string' && typeof agent === 'string' && agent !== 'title') agents.set(input.sessionID, agent);
    },
    'tool.execute.before': async (input, output) => {
      let timer;
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('dsh-mode: no decision within ' + TIMEOUT_MS + ' ms, so the call is denied')), TIMEOUT_MS);
      });
      try {
        engine ??= import(ENGINE);
        const decide = async () => (await engine).decideOpencode({ input, output }, ctx.directory, agents.get(input?.sessionID));
        const answer = await Promise.race([decide(), late]);
        if (!answer || answer.decision !== 'allow') throw new Error(answer?.reason ?? 'dsh-mode: no decision, so the call is denied');
      } catch (error) {
        engine = undefined;
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(message.startsWith('dsh-mode') ? message : 'dsh-mode could not decide this call, so it is denied: ' + message);
      } finally {
        clearTimeout(timer);
      }
    },
  };
};
`;
}

/**
 * Decides one OpenCode tool call in process (the plugin's engine entry).
 * @param value `{input, output}` as the plugin's `tool.execute.before` receives them
 * @param directory the plugin context's `directory`: the session's workspace
 * @param agent the session's OpenCode agent, noted from `chat.params` (`plan`, `build`), when known
 * @returns the answer; the plugin throws unless it allows
 */
export async function decideOpencode(value: unknown, directory: string, agent?: string): Promise<HookAnswer> {
  const withAgent =
    agent === undefined || typeof value !== 'object' || value === null ? value : { ...value, agent };
  const outcome = await decideHook('opencode', withAgent, { cwd: directory, env: process.env });
  return outcome.answer;
}
