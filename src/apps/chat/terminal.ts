/**
 * The chat's terminal: one owner of stdin for the REPL and the approval questions (docs/apps.md).
 *
 * With a TTY it is a readline interface with line editing; without one, stdin is a single queue of lines shared
 * by the REPL and the approval questions, each line consumed by whoever asks next, and each answer echoed after
 * its prompt so a piped transcript reads like a session. End of input answers `null`. Questions are serialised:
 * only one prompt owns the terminal at a time.
 *
 * On a TTY a line typed while nothing is asked (a turn is running) is queued for the REPL's next prompt, and the
 * typed-ahead handler is told so the chat can say it; an approval question never takes a queued line, so nothing
 * typed before a question was shown can answer it. Ctrl-D at a question or the prompt ends that line first.
 * @module
 */
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { visible } from '../visible.js';

/** What the chat needs from a terminal. */
export interface Terminal {
  /** True when stdin is interactive. */
  readonly tty: boolean;
  /** True while a question waits for its line (the cursor then sits after the prompt). */
  readonly asking: boolean;
  /**
   * Shows `prompt` and reads one line.
   * @param signal gives the terminal back (answering null) when aborted, for a question of a cancelled turn
   * @param options `typedAhead`: a line queued while nothing was asked may answer (the REPL's prompt; never an
   *   approval question)
   * @returns the line, or null at the end of input or on abort
   */
  ask(prompt: string, signal?: AbortSignal, options?: { typedAhead?: boolean }): Promise<string | null>;
  /** Writes text to the output as is. */
  write(text: string): void;
  /**
   * Lends the terminal to a child process (the plan editor) while `task` runs: on a TTY, reading stops, raw mode
   * is left and Ctrl-C goes to the child alone; without one, nothing changes (the child gets no stdin).
   */
  lend?<T>(task: () => Promise<T>): Promise<T>;
  /** Registers the Ctrl-C handler (one; a later call replaces it). */
  onInterrupt(handler: () => void): void;
  /** Registers the handler told of a line typed (on a TTY) while nothing was asked: it is queued. */
  onTypedAhead(handler: (line: string) => void): void;
  /** Asks the chat to leave (`/exit` at an approval question); the handler is the REPL's. */
  requestLeave(): void;
  /** Registers the leave handler (one; a later call replaces it). */
  onLeave(handler: () => void): void;
  /** Stops reading; pending and later questions answer null. */
  close(): void;
}

/**
 * Opens the terminal over the given streams.
 * @param input stdin
 * @param output stdout (prompts, answers echoed without a TTY)
 * @param tty whether to use an interactive line editor
 */
export function openTerminal(input: Readable, output: Writable, tty: boolean): Terminal {
  return tty ? new TtyTerminal(input, output) : new PipeTerminal(input, output);
}

/** Serialises `ask` calls so that one question owns the terminal at a time. */
class Turnstile {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

class PipeTerminal implements Terminal {
  readonly tty = false;
  #asking = false;
  readonly #lines: string[] = [];
  readonly #waiters: ((line: string | null) => void)[] = [];
  readonly #turnstile = new Turnstile();
  readonly #rl: Interface;
  #ended = false;
  #interrupt: (() => void) | null = null;
  #leave: (() => void) | null = null;
  readonly #onSigint = (): void => this.#interrupt?.();

  constructor(
    input: Readable,
    private readonly output: Writable,
  ) {
    this.#rl = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.#rl.on('line', (line) => {
      const waiter = this.#waiters.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    });
    this.#rl.on('close', () => this.#end());
    process.on('SIGINT', this.#onSigint);
  }

  get asking(): boolean {
    return this.#asking;
  }

  ask(prompt: string, signal?: AbortSignal): Promise<string | null> {
    return this.#turnstile.run(async () => {
      if (signal?.aborted) return null;
      this.output.write(prompt);
      this.#asking = true;
      const line = await this.#next(signal).finally(() => (this.#asking = false));
      // Echo the answer so the transcript shows what was read for which question (escaped: piped input is bytes).
      this.output.write(line === null ? '\n' : `${visible(line, 'line')}\n`);
      return line;
    });
  }

  #next(signal?: AbortSignal): Promise<string | null> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = (value: string | null): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      // An aborted question leaves the queue: the next line goes to whoever asks next.
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(waiter);
        if (index !== -1) this.#waiters.splice(index, 1);
        resolve(null);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #end(): void {
    this.#ended = true;
    for (const waiter of this.#waiters.splice(0)) waiter(null);
  }

  write(text: string): void {
    this.output.write(text);
  }

  lend<T>(task: () => Promise<T>): Promise<T> {
    return task();
  }

  onInterrupt(handler: () => void): void {
    this.#interrupt = handler;
  }

  /** Without a TTY every line is in the one queue already: nothing is typed ahead. */
  onTypedAhead(): void {}

  requestLeave(): void {
    this.#leave?.();
  }

  onLeave(handler: () => void): void {
    this.#leave = handler;
  }

  close(): void {
    process.off('SIGINT', this.#onSigint);
    this.#rl.close();
    this.#end();
  }
}

class TtyTerminal implements Terminal {
  readonly tty = true;

  get asking(): boolean {
    return this.#pending !== null;
  }

  readonly #rl: Interface;
  readonly #turnstile = new Turnstile();
  #closed = false;
  #pending: ((line: string | null) => void) | null = null;
  /** Lines typed while nothing was asked, for the REPL's next prompts. */
  readonly #typed: string[] = [];
  #interrupt: (() => void) | null = null;
  #typedAhead: ((line: string) => void) | null = null;
  #leave: (() => void) | null = null;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {
    this.#rl = createInterface({ input, output, terminal: true, historySize: 200 });
    this.#rl.on('line', (line) => {
      const pending = this.#pending;
      this.#pending = null;
      if (pending) return pending(line);
      // Typed during a turn: kept for the prompt (never for a question), and said, so it is not lost silently.
      if (line.trim() === '') return;
      this.#typed.push(line);
      this.#typedAhead?.(line);
    });
    this.#rl.on('SIGINT', () => this.#interrupt?.());
    this.#rl.on('close', () => {
      this.#closed = true;
      const pending = this.#pending;
      this.#pending = null;
      // Ctrl-D leaves the cursor after the prompt: end that line, so what follows starts on its own.
      if (pending) this.output.write('\n');
      pending?.(null);
    });
  }

  ask(prompt: string, signal?: AbortSignal, options: { typedAhead?: boolean } = {}): Promise<string | null> {
    return this.#turnstile.run(
      () =>
        new Promise<string | null>((resolve) => {
          if (signal?.aborted) return resolve(null);
          const queued = options.typedAhead ? this.#typed.shift() : undefined;
          if (queued !== undefined) {
            this.output.write(`${prompt}${visible(queued, 'line')}\n`);
            return resolve(queued);
          }
          if (this.#closed) return resolve(null);
          const onAbort = (): void => {
            if (this.#pending !== done) return;
            this.#pending = null;
            this.output.write('\n');
            resolve(null);
          };
          const done = (line: string | null): void => {
            signal?.removeEventListener('abort', onAbort);
            resolve(line);
          };
          signal?.addEventListener('abort', onAbort, { once: true });
          this.#pending = done;
          this.#rl.setPrompt(prompt);
          this.#rl.prompt();
        }),
    );
  }

  write(text: string): void {
    this.output.write(text);
  }

  async lend<T>(task: () => Promise<T>): Promise<T> {
    const raw = this.input as Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => void };
    // Out of raw mode the terminal turns Ctrl-C into SIGINT for the whole foreground group: the child decides.
    const ignore = (): void => {};
    process.on('SIGINT', ignore);
    this.#rl.pause();
    if (raw.isTTY) raw.setRawMode?.(false);
    try {
      return await task();
    } finally {
      if (raw.isTTY && !this.#closed) raw.setRawMode?.(true);
      if (!this.#closed) this.#rl.resume();
      process.off('SIGINT', ignore);
    }
  }

  onInterrupt(handler: () => void): void {
    this.#interrupt = handler;
  }

  onTypedAhead(handler: (line: string) => void): void {
    this.#typedAhead = handler;
  }

  requestLeave(): void {
    this.#leave?.();
  }

  onLeave(handler: () => void): void {
    this.#leave = handler;
  }

  close(): void {
    if (!this.#closed) this.#rl.close();
  }
}
