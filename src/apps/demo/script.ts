/**
 * The embedded demo (`npm start`): a tiny project seeded into `.dsh/demo/`, the prompt that starts its first turn,
 * and the demo model, a fixed script rather than a model. Two scripts:
 *
 * - the walk-through, for a session whose first message is {@link DEMO_PROMPT} (the demo sends it): explore, try
 *   a write, and when it is denied propose a plan with `exit_plan_mode` (the approval is asked in the terminal),
 *   then edit once the plan is approved;
 * - anywhere else (`chat` with no model in your own project, the guide's `--mode audit`), it explores the folder
 *   it runs in: lists it (and a folder the request names), reads one file it found, then proposes a plan that
 *   says what it found, or, without `exit_plan_mode`, reports it. It never writes there, and says that it is the
 *   demo and how to use a real model.
 *
 * The model reads what happened: each answer depends on the results of its last calls, the tools it is offered
 * and the mode the system prompt names, so it never says a denied edit is done, nor that it is in plan mode when
 * it is not. Shipped as code so the package needs no extra data files.
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

/** What the demo says to a later message of the walk-through: it knows that one walk-through only. */
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
 * The demo's answer to one request: the walk-through when the session began with {@link DEMO_PROMPT}, else the
 * exploration of the folder it runs in.
 * @param request the header (tools offered, system prompt) and the conversation
 */
export function demoReply(request: Omit<ModelRequest, 'signal'>): Reply {
  const first = request.messages.find((m) => m.role === 'user');
  return first?.content === DEMO_PROMPT ? walkthrough(request) : explore(request);
}

/** The greet() walk-through on the demo project. */
function walkthrough(request: Omit<ModelRequest, 'signal'>): Reply {
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

/** How a real model replaces the demo, for the demo's own words. */
const REAL_MODEL_HOW = 'set DEEPSEEK_API_KEY or name one in cordis.yml (`- name: openai`)';
const REAL_MODEL = `for a real model, ${REAL_MODEL_HOW}`;

/** Folders the exploration never opens or reads from: tool state, dependencies, version control. */
const SKIPPED = new Set(['.dsh/', '.git/', 'node_modules/']);

/** Files the exploration reads first, then any file with one of the text extensions. */
const README = /^readme(\.[a-z]+)?$/i;
const TEXT = /\.(md|txt|json|ya?ml|toml|js|mjs|cjs|ts|tsx|py|go|rs|java|rb|sh|c|h|cpp)$/i;

/** One `list` or `read` of this turn and what it returned. */
interface Step {
  name: string;
  path: string;
  result?: ToolMessage;
}

/** The calls of the current turn (since the last user message), each with its result. */
function turnSteps(messages: readonly ModelMessage[]): Step[] {
  const steps: Step[] = [];
  const byId = new Map<string, Step>();
  for (const message of messages.slice(messages.findLastIndex((m) => m.role === 'user') + 1)) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        const path = (call.arguments as { path?: unknown }).path;
        const step = { name: call.name, path: typeof path === 'string' ? path : '.' };
        steps.push(step);
        byId.set(call.callId, step);
      }
    } else if (message.role === 'tool') {
      const step = byId.get(message.callId);
      if (step) step.result = message;
    }
  }
  return steps;
}

/** The entries of a `list` result (folders end with `/`), without the note of a cut listing. */
function entries(step: Step): string[] {
  if (!step.result || step.result.isError || step.result.content === '(empty folder)') return [];
  return step.result.content.split('\n').filter((line) => line !== '' && !line.startsWith('('));
}

/** `dir/name`, or `name` at the root. */
function inFolder(dir: string, name: string): string {
  return dir === '.' ? name : `${dir.replace(/\/+$/, '')}/${name}`;
}

/** Up to `max` names, quoted, with how many more there are. */
function some(names: readonly string[], max = 8): string {
  const shown = names.slice(0, max).map((n) => `\`${n}\``);
  return names.length > max ? `${shown.join(', ')} and ${names.length - max} more` : shown.join(', ');
}

/**
 * The exploration of the folder the demo runs in: list it, list a folder the request names, read one file, then
 * plan (or report) from what it found. Never a write: this is the user's own project.
 */
function explore(request: Omit<ModelRequest, 'signal'>): Reply {
  const { messages } = request;
  const offered = new Set(request.header.tools.map((tool) => tool.name));
  const mode = modeNamed(request.header.system);
  const ask = (messages.findLast((m) => m.role === 'user')?.content ?? '').trim();
  const steps = turnSteps(messages);
  const last = steps.at(-1);

  if (last === undefined) {
    if (messages.at(-1)?.role !== 'user') return { text: '', toolCalls: [] };
    const intro =
      "I'm the demo model, a fixed script and not a real model: I look around this folder, answer from what I " +
      `find, and change nothing.${mode !== undefined ? ` I'm in ${mode} mode.` : ''}`;
    if (!offered.has('list'))
      return { text: `${intro} This mode offers me no \`list\`, so I stop.`, toolCalls: [] };
    return { text: intro, toolCalls: [{ name: 'list', arguments: { path: '.' } }] };
  }
  if (last.name === 'exit_plan_mode') {
    return last.result?.isError
      ? {
          text:
            `The plan was not approved, so I change nothing${mode !== undefined ? ` and stay in ${mode} mode` : ''}. ` +
            `A real model would revise it now; ${REAL_MODEL}.`,
          toolCalls: [],
        }
      : {
          text: `The plan is approved. A real model would carry it out now; the demo changes nothing in your files (${REAL_MODEL}).`,
          toolCalls: [],
        };
  }
  if (last.result?.isError) {
    return {
      text: `I could not ${last.name} \`${last.path}\` (${reason(last.result)}), so I stop here.`,
      toolCalls: [],
    };
  }

  const lists = steps.filter((s) => s.name === 'list');
  const root = lists[0] ? entries(lists[0]).filter((e) => !SKIPPED.has(e)) : [];
  // A folder the request names (`src/`, or `src` as a word), listed once.
  const named = root.find(
    (e) => e.endsWith('/') && new RegExp(`(^|[\\s\`'"(])${escape(e.slice(0, -1))}(/|\\b)`).test(ask),
  );
  if (named !== undefined && lists.length === 1 && offered.has('list')) {
    return {
      text: `You mention \`${named}\`: let me look inside.`,
      toolCalls: [{ name: 'list', arguments: { path: named.slice(0, -1) } }],
    };
  }
  const inside = named !== undefined && lists[1] ? entries(lists[1]) : [];
  const read = steps.find((s) => s.name === 'read');
  if (read === undefined && offered.has('read')) {
    // The named folder's files first, then the root's; in each, a README, else a text file.
    const pick = (names: string[], dir: string): string | undefined => {
      const files = names.filter((e) => !e.endsWith('/') && !e.endsWith('@'));
      const file = files.find((f) => README.test(f)) ?? files.find((f) => TEXT.test(f));
      return file === undefined ? undefined : inFolder(dir, file);
    };
    const file = (named !== undefined ? pick(inside, named) : undefined) ?? pick(root, '.');
    if (file !== undefined) {
      return { text: `I'll read \`${file}\`.`, toolCalls: [{ name: 'read', arguments: { path: file } }] };
    }
  }

  const found: string[] = [];
  found.push(
    root.length > 0 ? `This folder holds ${some(root)}.` : 'This folder is empty (apart from `.dsh/`).',
  );
  if (named !== undefined) {
    found.push(inside.length > 0 ? `\`${named}\` holds ${some(inside)}.` : `\`${named}\` is empty.`);
  }
  if (read?.result) {
    const lines = read.result.content.split('\n');
    const count = lines.at(-1) === '' ? lines.length - 1 : lines.length;
    const head = (lines.find((l) => l.trim() !== '') ?? '').trim().slice(0, 80);
    found.push(
      `\`${read.path}\` has ${count} line${count === 1 ? '' : 's'}${head ? `, starting \`${head.replaceAll('`', "'")}\`` : ''}.`,
    );
  }
  if (offered.has('exit_plan_mode')) {
    const title = (ask.split('\n')[0] ?? '').replace(/^#+\s*/, '').slice(0, 70) || 'your request';
    const plan = [
      `# Demo plan: ${title}`,
      '',
      'The demo model wrote this plan: a fixed script, from what it found in this folder, not a plan for your request.',
      '',
      ...found.map((line, i) => `${i + 1}. ${line}`),
      `${found.length + 1}. A real model would plan the work you asked for: ${REAL_MODEL_HOW}.`,
      '',
    ].join('\n');
    return {
      text: 'Here is what I found, as a plan for you to approve or reject.',
      toolCalls: [{ name: 'exit_plan_mode', arguments: { plan } }],
    };
  }
  return {
    text: `${found.join(' ')} That is all the demo does: it changes nothing (${REAL_MODEL}).`,
    toolCalls: [],
  };
}

/** A text as a literal inside a regular expression. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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
