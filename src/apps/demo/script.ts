/**
 * The embedded demo (`npm start`): a tiny project seeded into `.dsh/demo/`, the prompt that starts its first turn,
 * and the demo model. The walk-through: explore, try a write, and when it is denied propose a plan with
 * `exit_plan_mode` (the approval is asked in the terminal), then edit once the plan is approved.
 *
 * The model is scripted but reads what happened: each answer depends on the results of its last calls, the
 * tools it is offered and the mode the system prompt names, so it never says a denied edit is done, nor that
 * it is in plan mode when it is not. Shipped as code so the package needs no extra data files.
 * @module
 */
import { chunkText } from '../../host/models/index.js';
import type { Model, ModelMessage, ModelRequest, ModelResponse } from '../../host/types.js';

/** The files of the demo project, by path relative to `.dsh/demo/`. */
export const DEMO_FILES: Readonly<Record<string, string>> = {
  'README.md': '# greet\n\nA one-function library: `greet(name)` returns a greeting.\n',
  'src/greet.js': "export function greet(name) {\n  return 'Hello, ' + name;\n}\n",
};

/** The first user message, sent by the demo itself. */
export const DEMO_PROMPT = 'Add a `shout` option to greet() that returns the greeting in capitals.';

const OLD_GREET = DEMO_FILES['src/greet.js']!;
const NEW_GREET =
  "export function greet(name, { shout = false } = {}) {\n  const text = 'Hello, ' + name;\n  return shout ? text.toUpperCase() : text;\n}\n";

const PLAN =
  '# Add a `shout` option to greet()\n\n' +
  '1. Give `greet(name)` a second parameter `{ shout = false } = {}`.\n' +
  '2. Return the greeting upper-cased when `shout` is true.\n' +
  '3. Keep `greet(name)` unchanged for existing callers.\n';

const DONE = "Done: `greet('Ada', { shout: true })` returns `HELLO, ADA`; `greet('Ada')` is unchanged.";

/** What the demo says to any later message: it knows one walk-through only. */
export const DEMO_ONLY =
  'I am the demo model: I only know the greet() walk-through, and this session has had it. ' +
  'Set DEEPSEEK_API_KEY, or configure a model in cordis.yml, to chat with a real model.';

type Reply = Omit<ModelResponse, 'reasoning'>;
type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;

/** The mode the system prompt says the session is in (`You are in plan mode.`), if it says so. */
function modeNamed(system: string): string | undefined {
  return /\b(?:You are|This session is) in (\S+) mode\b/.exec(system)?.[1];
}

/** The first line of a tool result, without the host's `Error: ` prefix. */
function reason(result: ToolMessage): string {
  return result.content.replace(/^Error:\s*/, '').split('\n')[0]!;
}

/**
 * The demo's answer to one request.
 * @param request the header (tools offered, system prompt) and the conversation
 */
export function demoReply(request: Omit<ModelRequest, 'signal'>): Reply {
  const { messages } = request;
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const turn = messages.slice(lastUser + 1);
  const offered = new Set(request.header.tools.map((tool) => tool.name));
  const mode = modeNamed(request.header.system);

  if (turn.length === 0) {
    if (messages.slice(0, lastUser).some((m) => m.role === 'user')) return { text: DEMO_ONLY, toolCalls: [] };
    return {
      text:
        mode !== undefined
          ? `I'm in ${mode} mode, so I'll look around before changing anything.`
          : "I'll look around before changing anything.",
      toolCalls: [
        { name: 'list', arguments: { path: '.' } },
        { name: 'read', arguments: { path: 'src/greet.js' } },
      ],
    };
  }
  const last = turn.at(-1);
  if (last?.role !== 'tool') return { text: DEMO_ONLY, toolCalls: [] };
  switch (last.name) {
    case 'list':
    case 'read':
      return {
        text: 'The change is small; let me just write it.',
        toolCalls: [{ name: 'write', arguments: { path: 'src/greet.js', content: NEW_GREET } }],
      };
    case 'write':
      if (!last.isError)
        return { text: `The write went through: no plan was needed here. ${DONE}`, toolCalls: [] };
      if (!offered.has('exit_plan_mode')) {
        return {
          text: `The write was refused (${reason(last)}), and I have no way to ask for approval here, so I stop.`,
          toolCalls: [],
        };
      }
      return {
        text: 'The write was denied: writes wait for an approved plan, so here is mine.',
        toolCalls: [{ name: 'exit_plan_mode', arguments: { plan: PLAN } }],
      };
    case 'exit_plan_mode':
      if (last.isError) {
        return {
          text:
            `The plan was not approved, so I change nothing${mode !== undefined ? ` and stay in ${mode} mode` : ''}. ` +
            'A real model would revise it now; the demo ends here.',
          toolCalls: [],
        };
      }
      return {
        text: 'The plan is approved. Applying it.',
        toolCalls: [
          {
            name: 'edit',
            arguments: { path: 'src/greet.js', old_string: OLD_GREET, new_string: NEW_GREET },
          },
        ],
      };
    case 'edit':
      return last.isError
        ? { text: `The edit did not happen (${reason(last)}): src/greet.js is unchanged.`, toolCalls: [] }
        : { text: DONE, toolCalls: [] };
    default:
      return { text: DEMO_ONLY, toolCalls: [] };
  }
}

/** The demo model: {@link demoReply} for each request, its text streamed in a few chunks. */
export function demoModel(): Model {
  return {
    name: 'demo',
    async complete(request, onChunk) {
      if (request.signal?.aborted) {
        const error = new Error('the request was aborted');
        error.name = 'AbortError';
        throw error;
      }
      const reply = demoReply(request);
      for (const piece of chunkText(reply.text)) onChunk?.({ kind: 'text', text: piece });
      return { text: reply.text, toolCalls: reply.toolCalls.map((call) => structuredClone(call)) };
    },
  };
}
