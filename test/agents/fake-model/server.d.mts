/** Types of server.mjs (the scripted fake model server) for the TypeScript tests that import it. */

/** The wire protocol a recorded request spoke (`models` for a model-list GET). */
export type Protocol = 'anthropic' | 'responses' | 'gemini' | 'chat' | 'models';

/** One model turn of the script: call one tool, or end the turn with text. */
export type Step = { call: { name: string; args: unknown } } | { text: string };

/** A step, or a function of the request that asks for it (for a call that needs an earlier result). */
export type ScriptStep = Step | ((record: RecordedRequest) => Step);

/** One request the server received, with its parsed JSON body. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  protocol?: Protocol;
  /** `main`: the agent's loop (the request offered tools); `aux`: titles, routing, token counts. */
  kind?: 'main' | 'aux';
}

/** A request that tried to leave the machine through the server as a proxy. */
export interface Egress {
  method: string;
  target: string;
}

export interface FakeModel {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  egress: Egress[];
  setSteps(steps: ScriptStep[]): void;
  mainRequests(): RecordedRequest[];
  close(): Promise<void>;
}

export function startFakeModel(opts?: { steps?: ScriptStep[]; finalText?: string }): Promise<FakeModel>;

/** What the agent sent the model for each tool call in one request, in order. */
export function toolResults(record: RecordedRequest): Array<{ id: string; text: string; isError?: boolean }>;
