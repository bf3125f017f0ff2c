// A scripted fake model server on loopback for driving real agent CLIs offline (issue 28).
//
// One HTTP server on 127.0.0.1 (port 0) answers the four wire protocols the agents speak:
//   Anthropic Messages          POST …/messages (SSE when `stream`), …/messages/count_tokens   Claude Code
//   OpenAI Responses            POST …/responses (SSE)                                          Codex
//   Gemini                      POST …/models/M:streamGenerateContent|generateContent|countTokens  Gemini CLI
//   OpenAI Chat Completions     POST …/chat/completions (SSE when `stream`)                     OpenCode
// and, as an HTTP proxy, refuses and records every request meant for another host, so a test can point
// HTTP(S)_PROXY here and assert that nothing tried to leave the machine.
//
// The script is a list of steps, the model's turns in the agent's main loop: `{ call: { name, args } }` asks the
// agent to run one tool, `{ text }` ends the turn, and a function of the recorded request returns one of those. Which step a request gets is the number of tool calls already
// in the conversation it carries, so retries and auxiliary requests (titles, routing, token counts) never shift
// the script. A request that offers no tools is auxiliary and gets a short text answer. Every request is recorded
// with its parsed body; `toolResults()` reads back, per protocol, what the agent sent the model for each call.
import { createServer } from 'node:http';

/** @typedef {'anthropic' | 'responses' | 'gemini' | 'chat'} Protocol */

/** Text an auxiliary request gets (one with no tools): short, and valid JSON where JSON was asked for. */
const AUX_TEXT = 'ok';

/**
 * Starts the server.
 * @param {{ steps?: Array<object | ((record: object) => object)>, finalText?: string }} [opts]
 */
export async function startFakeModel(opts = {}) {
  let steps = opts.steps ?? [];
  const finalText = opts.finalText ?? 'done';
  /** @type {Array<Record<string, unknown>>} */
  const requests = [];
  /** @type {Array<{ method: string, target: string }>} */
  const egress = [];
  let seq = 0;

  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      // A request line with a full URL is a proxy request for another host.
      if (/^[a-z]+:\/\//i.test(req.url ?? '')) {
        egress.push({ method: req.method ?? '', target: req.url ?? '' });
        res
          .writeHead(403, { 'content-type': 'text/plain' })
          .end('offline: the fake model server refuses egress\n');
        return;
      }
      let body;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const record = {
        method: req.method,
        path: url.pathname,
        query: url.search,
        headers: req.headers,
        body,
      };
      requests.push(record);
      try {
        answer(record, res);
      } catch (e) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(e) } }));
      }
    });
  });
  server.on('connect', (req, socket) => {
    egress.push({ method: 'CONNECT', target: req.url ?? '' });
    // A client that gives up on the refused tunnel resets the socket: that is its business, not a server crash.
    socket.on('error', () => {});
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  /** @param {Record<string, any>} record @param {import('node:http').ServerResponse} res */
  function answer(record, res) {
    const { path, body, method } = record;
    if (method === 'GET' && /\/models\/?$/.test(path)) {
      record.protocol = 'models';
      return json(res, { object: 'list', data: [], models: [] });
    }
    if (method !== 'POST') return json(res, {}, 404);
    if (/\/messages\/count_tokens$/.test(path)) {
      record.protocol = 'anthropic';
      record.kind = 'aux';
      return json(res, { input_tokens: 100 });
    }
    if (/\/messages$/.test(path)) return anthropic(record, body, res);
    if (/\/responses$/.test(path)) return responses(record, body, res);
    if (/\/chat\/completions$/.test(path)) return chat(record, body, res);
    const g = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (g) return gemini(record, body, res, g[1], g[2]);
    return json(res, { error: { message: `fake model: no route for ${path}` } }, 404);
  }

  /**
   * The step for a conversation that already holds `done` tool calls, or the final text. A step given as a
   * function is called with the request's record, for a call that needs an earlier result (a process id).
   */
  function stepAt(done, record) {
    const step = done < steps.length ? steps[done] : { text: finalText };
    return typeof step === 'function' ? step(record) : step;
  }

  function anthropic(record, body, res) {
    record.protocol = 'anthropic';
    const main = Array.isArray(body?.tools) && body.tools.length > 0;
    record.kind = main ? 'main' : 'aux';
    const done = (body?.messages ?? [])
      .filter((m) => m.role === 'assistant' && Array.isArray(m.content))
      .flatMap((m) => m.content)
      .filter((b) => b.type === 'tool_use').length;
    const step = main ? stepAt(done, record) : { text: AUX_TEXT };
    const id = `msg_${++seq}`;
    const model = body?.model ?? 'fake';
    const block =
      'call' in step
        ? { type: 'tool_use', id: `toolu_${seq}`, name: step.call.name, input: step.call.args }
        : { type: 'text', text: step.text };
    const stop = 'call' in step ? 'tool_use' : 'end_turn';
    const usage = {
      input_tokens: 100,
      output_tokens: 10,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    if (!body?.stream) {
      return json(res, {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [block],
        stop_reason: stop,
        stop_sequence: null,
        usage,
      });
    }
    const events = [
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...usage, output_tokens: 1 },
          },
        },
      ],
      block.type === 'tool_use'
        ? [
            'content_block_start',
            { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } },
          ]
        : [
            'content_block_start',
            { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          ],
      block.type === 'tool_use'
        ? [
            'content_block_delta',
            {
              type: 'content_block_delta',
              index: 0,
              delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
            },
          ]
        : [
            'content_block_delta',
            { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: block.text } },
          ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: stop, stop_sequence: null },
          usage: { output_tokens: 10 },
        },
      ],
      ['message_stop', { type: 'message_stop' }],
    ];
    sse(res, events);
  }

  function responses(record, body, res) {
    record.protocol = 'responses';
    const tools = Array.isArray(body?.tools) ? body.tools : [];
    const main = tools.length > 0;
    record.kind = main ? 'main' : 'aux';
    const input = Array.isArray(body?.input) ? body.input : [];
    const done = input.filter((i) =>
      ['function_call', 'custom_tool_call', 'local_shell_call'].includes(i.type),
    ).length;
    const step = main ? stepAt(done, record) : { text: AUX_TEXT };
    const rid = `resp_${++seq}`;
    let item;
    if ('call' in step) {
      const tool = tools.find((t) => t.name === step.call.name);
      item =
        tool?.type === 'custom'
          ? {
              type: 'custom_tool_call',
              id: `ctc_${seq}`,
              call_id: `call_${seq}`,
              name: step.call.name,
              input: String(step.call.args),
              status: 'completed',
            }
          : {
              type: 'function_call',
              id: `fc_${seq}`,
              call_id: `call_${seq}`,
              name: step.call.name,
              arguments: JSON.stringify(step.call.args),
              status: 'completed',
            };
    } else {
      item = {
        type: 'message',
        id: `msg_${seq}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: step.text, annotations: [] }],
      };
    }
    const usage = {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 110,
    };
    const response = {
      id: rid,
      object: 'response',
      status: 'in_progress',
      model: body?.model ?? 'fake',
      output: [],
    };
    const events = [
      ['response.created', { type: 'response.created', sequence_number: 0, response }],
      [
        'response.output_item.added',
        {
          type: 'response.output_item.added',
          sequence_number: 1,
          output_index: 0,
          item: { ...item, status: 'in_progress' },
        },
      ],
    ];
    if (item.type === 'message') {
      events.push([
        'response.output_text.delta',
        {
          type: 'response.output_text.delta',
          sequence_number: 2,
          item_id: item.id,
          output_index: 0,
          content_index: 0,
          delta: step.text,
        },
      ]);
    }
    events.push(
      [
        'response.output_item.done',
        { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item },
      ],
      [
        'response.completed',
        {
          type: 'response.completed',
          sequence_number: 4,
          response: { ...response, status: 'completed', output: [item], usage },
        },
      ],
    );
    sse(res, events);
  }

  function chat(record, body, res) {
    record.protocol = 'chat';
    const main = Array.isArray(body?.tools) && body.tools.length > 0;
    record.kind = main ? 'main' : 'aux';
    const done = (body?.messages ?? [])
      .filter((m) => m.role === 'assistant')
      .flatMap((m) => m.tool_calls ?? []).length;
    const step = main ? stepAt(done, record) : { text: AUX_TEXT };
    const id = `chatcmpl_${++seq}`;
    const model = body?.model ?? 'fake';
    const call =
      'call' in step
        ? {
            index: 0,
            id: `call_${seq}`,
            type: 'function',
            function: { name: step.call.name, arguments: JSON.stringify(step.call.args) },
          }
        : undefined;
    const finish = call ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
    if (!body?.stream) {
      const message = call
        ? { role: 'assistant', content: null, tool_calls: [call] }
        : { role: 'assistant', content: step.text };
      return json(res, {
        id,
        object: 'chat.completion',
        created: 0,
        model,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      });
    }
    const chunk = (delta, finish_reason, extra = {}) => ({
      id,
      object: 'chat.completion.chunk',
      created: 0,
      model,
      choices: [{ index: 0, delta, finish_reason }],
      ...extra,
    });
    const events = [
      [
        null,
        chunk(
          call
            ? { role: 'assistant', content: null, tool_calls: [call] }
            : { role: 'assistant', content: step.text },
          null,
        ),
      ],
      [null, chunk({}, finish, { usage })],
    ];
    sse(res, events, true);
  }

  function gemini(record, body, res, model, verb) {
    record.protocol = 'gemini';
    if (verb === 'countTokens') {
      record.kind = 'aux';
      return json(res, { totalTokens: 100 });
    }
    const decls = (body?.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
    const main = decls.length > 0;
    record.kind = main ? 'main' : 'aux';
    const done = (body?.contents ?? [])
      .filter((c) => c.role === 'model')
      .flatMap((c) => c.parts ?? [])
      .filter((p) => p.functionCall).length;
    let part;
    if (main) {
      const step = stepAt(done, record);
      part =
        'call' in step
          ? { functionCall: { name: step.call.name, args: step.call.args } }
          : { text: step.text };
    } else {
      // Gemini CLI's auxiliary calls (routing, next-speaker checks) ask for JSON: answer a JSON that ends the turn.
      const wantsJson = body?.generationConfig?.responseMimeType === 'application/json';
      part = { text: wantsJson ? JSON.stringify(auxJson(body)) : AUX_TEXT };
    }
    const reply = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
      modelVersion: model,
    };
    if (verb === 'generateContent') return json(res, reply);
    sse(res, [[null, reply]]);
  }

  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    requests,
    egress,
    /** Replaces the script; the next main-loop request reads the new one from its own tool-call count. */
    setSteps(next) {
      steps = next;
    },
    /** The requests of the agent's main loop (those that offered tools), in order. */
    mainRequests() {
      return requests.filter((r) => r.kind === 'main');
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

/** A JSON answer for Gemini CLI's structured auxiliary prompts: the fields its schemas ask for. */
function auxJson(body) {
  const props =
    body?.generationConfig?.responseSchema?.properties ??
    body?.generationConfig?.responseJsonSchema?.properties ??
    {};
  const out = {};
  for (const key of Object.keys(props)) {
    if (key === 'next_speaker') out[key] = 'user';
    else if (key === 'model_choice') out[key] = 'flash';
    else {
      // Gemini's schema types are upper case (STRING, NUMBER, …); JSON Schema's are lower case.
      const type = String(props[key]?.type ?? '').toLowerCase();
      out[key] = type === 'boolean' ? false : type === 'number' || type === 'integer' ? 1 : 'ok';
    }
  }
  return out;
}

function json(res, value, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** Writes server-sent events; `[DONE]` ends an OpenAI Chat stream. */
function sse(res, events, done = false) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  for (const [event, data] of events) {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }
  if (done) res.write('data: [DONE]\n\n');
  res.end();
}

/**
 * What the agent sent the model for each tool call in one recorded request: `{ id, text }` per result, in order.
 * @param {Record<string, any>} record
 * @returns {Array<{ id: string, text: string, isError?: boolean }>}
 */
export function toolResults(record) {
  const body = record.body ?? {};
  const text = (v) =>
    typeof v === 'string'
      ? v
      : Array.isArray(v)
        ? v.map((x) => (typeof x === 'string' ? x : (x?.text ?? JSON.stringify(x)))).join('\n')
        : JSON.stringify(v);
  switch (record.protocol) {
    case 'anthropic':
      return (body.messages ?? [])
        .filter((m) => m.role === 'user' && Array.isArray(m.content))
        .flatMap((m) => m.content)
        .filter((b) => b.type === 'tool_result')
        .map((b) => ({ id: b.tool_use_id, text: text(b.content), isError: b.is_error === true }));
    case 'responses':
      return (body.input ?? [])
        .filter((i) =>
          ['function_call_output', 'custom_tool_call_output', 'local_shell_call_output'].includes(i.type),
        )
        .map((i) => ({ id: i.call_id, text: text(i.output) }));
    case 'chat':
      return (body.messages ?? [])
        .filter((m) => m.role === 'tool')
        .map((m) => ({ id: m.tool_call_id, text: text(m.content) }));
    case 'gemini':
      return (body.contents ?? [])
        .flatMap((c) => c.parts ?? [])
        .filter((p) => p.functionResponse)
        .map((p) => ({
          id: p.functionResponse.id ?? p.functionResponse.name,
          text: JSON.stringify(p.functionResponse.response),
        }));
    default:
      return [];
  }
}
