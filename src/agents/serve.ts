/**
 * `dsh-mode serve`: Claude Code's `http` hook, so no process starts per call. One HTTP server bound to 127.0.0.1
 * only; `POST /hook/claude-code` with `Authorization: Bearer SECRET` takes the JSON a command hook gets on stdin and
 * answers the JSON it would print. The secret is the one `install claude-code --http PORT` wrote
 * (`<config dir>/serve.secret`, mode 0600), so another local user's process cannot ask for decisions or learn
 * them. A request without the secret gets 401, which Claude Code's `onFailure: "block"` turns into a blocked call;
 * every other failure is a deny in the answer, as for the command hook.
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { configDir } from '../apps/trust.js';
import { failureReply } from './dialect.js';
import { decideHook } from './hook.js';
import { MAX_INPUT_BYTES } from './input.js';

/** The environment variable Claude Code fills the http hook's header from. */
export const SECRET_ENV = 'DSH_MODE_SECRET';

/** Where the secret is kept. */
export function secretPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'serve.secret');
}

/**
 * The secret, created on first use.
 * @returns the secret and whether it was created now
 */
export function ensureSecret(env: NodeJS.ProcessEnv): { secret: string; file: string; created: boolean } {
  const file = secretPath(env);
  try {
    const secret = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(secret)) return { secret, file, created: false };
  } catch {
    // none yet
  }
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return { secret, file, created: true };
}

/** A running server. */
export interface Serving {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the hook server on 127.0.0.1.
 * @param options the port (0: any), the secret, and the environment decisions run with
 */
export async function serve(options: {
  port: number;
  secret: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}): Promise<Serving> {
  const expected = Buffer.from(`Bearer ${options.secret}`);
  const server = createServer((req, res) => {
    const answer = (status: number, body: string) =>
      res
        .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
        .end(body);
    const given = Buffer.from(String(req.headers.authorization ?? ''));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      req.resume();
      answer(401, '{"error":"unauthorized"}\n');
      return;
    }
    if (req.method !== 'POST' || req.url !== '/hook/claude-code') {
      req.resume();
      answer(404, '{"error":"POST /hook/claude-code"}\n');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_INPUT_BYTES) refused = true;
      else chunks.push(chunk);
    });
    req.on('end', () => {
      void (async () => {
        if (refused)
          return answer(
            200,
            failureReply('claude-code', `the hook input is larger than ${MAX_INPUT_BYTES} bytes`).stdout,
          );
        let value: unknown;
        try {
          value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch (error) {
          return answer(
            200,
            failureReply('claude-code', `the hook input is not JSON (${(error as Error).message})`).stdout,
          );
        }
        const outcome = await decideHook('claude-code', value, { cwd: options.cwd, env: options.env });
        answer(200, outcome.reply.stdout);
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    url: `http://127.0.0.1:${port}/hook/claude-code`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
