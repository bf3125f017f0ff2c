/**
 * A command in a detached tmux session, on a tmux server of its own (`-L`): test files that run at once never
 * race to start the same default server (which fails one of them with "server exited unexpectedly").
 */
import { execFileSync, spawnSync } from 'node:child_process';

/** Whether tmux is installed (the terminal tests skip without it). */
export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

export interface TmuxSession {
  /** tmux send-keys to the session. */
  send(...keys: string[]): void;
  /** Polls the screen until it shows `text` (bounded: a hang becomes a failure, no timing is asserted). */
  waitFor(text: string): Promise<string>;
  /** Ends the session and its server. */
  stop(): void;
}

/**
 * Starts `command` in `dir` on a 200×50 terminal.
 * @param prefix names the server and session (with the process id and a random suffix)
 */
export function startTmux(prefix: string, dir: string, command: string): TmuxSession {
  const name = `${prefix}-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const tmux = (...args: string[]): string =>
    execFileSync('tmux', ['-L', name, ...args], { encoding: 'utf8' });
  const screen = (): string => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', name);
  tmux('new-session', '-d', '-s', name, '-x', '200', '-y', '50', '-c', dir, command);
  return {
    send: (...keys) => void tmux('send-keys', '-t', name, ...keys),
    async waitFor(text) {
      for (let i = 0; i < 300; i++) {
        const now = screen();
        if (now.includes(text)) return now;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`timed out waiting for ${JSON.stringify(text)}; screen:\n${screen()}`);
    },
    stop: () => void spawnSync('tmux', ['-L', name, 'kill-server']),
  };
}
