/**
 * A tiny Language Server Protocol client for tests: spawns a server over stdio, frames JSON-RPC messages with
 * `Content-Length` headers, correlates responses with requests, answers the server's own requests through a
 * handler table, and keeps every `textDocument/publishDiagnostics` notification by document URI.
 *
 * It is deliberately small: enough to drive `yaml-language-server` the way an editor does (initialize,
 * initialized, didOpen, completion, hover), nothing more. A server that exits or writes garbage fails every
 * pending request with the server's stderr, so a broken server shows up as a readable test failure.
 * @module
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** A JSON-RPC message as it travels over the wire. */
interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** An LSP diagnostic, as far as the tests read it. */
export interface LspDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  message: string;
  severity?: number;
  source?: string;
}

/** Answers one kind of request the server sends to the client. */
export type ServerRequestHandler = (params: unknown) => unknown;

/** A connection to one language server process. */
export class LspClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly diagnosticWaiters: { uri: string; resolve(d: LspDiagnostic[]): void }[] = [];
  private stderr = '';
  /** The last diagnostics published for each document URI. */
  readonly diagnostics = new Map<string, LspDiagnostic[]>();

  /**
   * Starts the server.
   * @param command the executable
   * @param args its arguments (for example `['--stdio']`)
   * @param handlers answers to server → client requests by method; unknown methods are answered with `null`
   */
  constructor(
    command: string,
    args: string[],
    private readonly handlers: Record<string, ServerRequestHandler>,
  ) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.child.on('exit', (code) =>
      this.failAll(new Error(`language server exited (${code}): ${this.stderr}`)),
    );
    this.child.on('error', (error) => this.failAll(error));
  }

  /** Sends a request and resolves with its result; rejects with the server's error. */
  request<T = unknown>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** Sends a notification. */
  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /**
   * Resolves with the next diagnostics published for `uri` that satisfy `accept` (the server may publish
   * several times while it loads a schema). Already-published diagnostics count.
   */
  waitForDiagnostics(
    uri: string,
    accept: (d: LspDiagnostic[]) => boolean = () => true,
  ): Promise<LspDiagnostic[]> {
    const known = this.diagnostics.get(uri);
    if (known && accept(known)) return Promise.resolve(known);
    return new Promise((resolve) => {
      const waiter = {
        uri,
        resolve: (d: LspDiagnostic[]) => {
          if (!accept(d)) return;
          this.diagnosticWaiters.splice(this.diagnosticWaiters.indexOf(waiter), 1);
          resolve(d);
        },
      };
      this.diagnosticWaiters.push(waiter);
    });
  }

  /** Asks the server to shut down and waits for the process to end. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    try {
      await this.request('shutdown', null);
      this.notify('exit', null);
    } catch {
      // a server that already died has nothing to shut down; kill below makes sure
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }

  private send(message: Message): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.child.stdin.write(body);
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const header = this.buffer.subarray(0, headerEnd).toString('ascii');
      const match = /Content-Length: (\d+)/i.exec(header);
      if (!match) {
        this.failAll(new Error(`bad LSP header: ${header}`));
        return;
      }
      const length = Number(match[1]);
      if (this.buffer.length < headerEnd + 4 + length) return;
      const body = this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      this.dispatch(JSON.parse(body) as Message);
    }
  }

  private dispatch(message: Message): void {
    if (message.method !== undefined && message.id !== undefined) {
      const handler = this.handlers[message.method];
      const result = handler ? handler(message.params) : null;
      this.send({ jsonrpc: '2.0', id: message.id, result });
    } else if (message.method === 'textDocument/publishDiagnostics') {
      const { uri, diagnostics } = message.params as { uri: string; diagnostics: LspDiagnostic[] };
      this.diagnostics.set(uri, diagnostics);
      for (const waiter of [...this.diagnosticWaiters]) if (waiter.uri === uri) waiter.resolve(diagnostics);
    } else if (typeof message.id === 'number' && this.pending.has(message.id)) {
      const entry = this.pending.get(message.id)!;
      this.pending.delete(message.id);
      if (message.error) entry.reject(new Error(`${message.error.code}: ${message.error.message}`));
      else entry.resolve(message.result);
    }
  }

  private failAll(error: Error): void {
    for (const entry of this.pending.values()) entry.reject(error);
    this.pending.clear();
  }
}
