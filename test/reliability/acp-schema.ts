/**
 * Checks what an ACP agent sends against the JSON Schema the SDK ships (`schema/v1/schema.json`, draft 2020-12):
 * the message envelope (`Agent`: a request, response or notification), and then the exact payload by method —
 * a notification's or request's `params` by its `method`, a result by the method of the request it answers (the
 * checker is told what the client sent), an error by `Error`. The envelope alone would pass almost anything (an
 * unknown notification is an `ExtNotification`), so a method this agent does not speak is a problem too.
 *
 * `watchAgentMessages()` registers a check at the end of the calling test: every ACP test that uses the helpers in
 * `acp-client.ts` (or the scenario runner) fails when a single message of the agent's did not match.
 */
import { createRequire } from 'node:module';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { expect, onTestFinished } from 'vitest';

type Json = Record<string, unknown>;
interface SchemaFile {
  $defs: Record<string, Json & { 'x-side'?: string; 'x-method'?: string }>;
  anyOf: (Json & { title: string })[];
}

const require = createRequire(import.meta.url);
/** The schema file of the installed SDK (its package.json ships it). */
export const SCHEMA_FILE = require.resolve('@agentclientprotocol/sdk/schema/v1/schema.json');

interface Validators {
  envelope: ValidateFunction;
  error: ValidateFunction;
  /** `params` of what the agent sends to the client, by method. */
  outgoing: Map<string, ValidateFunction>;
  /** `result` of the agent's answers, by the method of the client's request. */
  results: Map<string, ValidateFunction>;
}

let compiled: Validators | undefined;

function validators(): Validators {
  if (compiled) return compiled;
  const schema = require(SCHEMA_FILE) as SchemaFile;
  // `x-*` annotations are not keywords; the integer formats (`uint64`, …) are Rust's, not JSON Schema's.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'acp', $defs: schema.$defs });
  const ref = (name: string) => ajv.compile({ $ref: `acp#/$defs/${name}` });
  const agent = schema.anyOf.find((branch) => branch.title === 'Agent');
  if (!agent) throw new Error(`${SCHEMA_FILE} has no \`Agent\` message schema`);
  const envelope = ajv.compile(JSON.parse(JSON.stringify(agent).replaceAll('"#/$defs/', '"acp#/$defs/')));
  const outgoing = new Map<string, ValidateFunction>();
  const results = new Map<string, ValidateFunction>();
  for (const [name, def] of Object.entries(schema.$defs)) {
    const method = def['x-method'];
    if (method === undefined) continue;
    if (def['x-side'] === 'client' && /(Request|Notification)$/.test(name)) outgoing.set(method, ref(name));
    if (def['x-side'] === 'agent' && name.endsWith('Response')) results.set(method, ref(name));
  }
  compiled = { envelope, error: ref('Error'), outgoing, results };
  return compiled;
}

function describe(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`)
    .join('; ');
}

/** Records the client's requests and checks each message of the agent's. */
export class AgentMessageChecker {
  /** One line per message that failed, naming it and what is wrong. */
  readonly problems: string[] = [];
  /** Checked messages so far. */
  checked = 0;
  readonly #pending = new Map<string, string>();

  /** A message the client sent: remembers the method of a request, to check the answer. */
  sent(message: unknown): void {
    const m = message as Json;
    if (typeof m?.method === 'string' && m.id !== undefined)
      this.#pending.set(JSON.stringify(m.id), m.method);
  }

  /** A message the agent sent. */
  received(message: unknown): void {
    const v = validators();
    this.checked++;
    const m = message as Json;
    const shown = JSON.stringify(message).slice(0, 300);
    const fail = (why: string): void => void this.problems.push(`${why}: ${shown}`);
    if (!v.envelope(message)) return fail(`not an ACP agent message (${describe(v.envelope)})`);
    if (typeof m.method === 'string') {
      const validate = v.outgoing.get(m.method);
      if (!validate) return fail(`\`${m.method}\` is not a method an agent sends`);
      if (!validate(m.params)) fail(`${m.method} params (${describe(validate)})`);
      return;
    }
    const id = JSON.stringify(m.id);
    const method = this.#pending.get(id);
    this.#pending.delete(id);
    if ('error' in m) {
      if (!v.error(m.error)) fail(`error (${describe(v.error)})`);
      return;
    }
    if (method === undefined) return; // an answer to raw bytes the checker did not see as a request
    const validate = v.results.get(method);
    if (validate && !validate(m.result)) fail(`${method} result (${describe(validate)})`);
  }
}

/**
 * A checker whose problems fail the calling test when it finishes (call it inside a test).
 * @returns the checker to feed
 */
export function watchAgentMessages(): AgentMessageChecker {
  const checker = new AgentMessageChecker();
  onTestFinished(() => {
    expect(checker.problems, 'agent messages that do not match the ACP schema').toEqual([]);
  });
  return checker;
}
