/**
 * Shared parts of the sandbox tests: scratch folders outside `/tmp` (the sandbox gives `/tmp` a private tmpfs,
 * so a workspace under the host's `/tmp` would be re-bound and a planted file there hidden for the wrong
 * reason), a home folder with a planted secret, a marker that finds the processes a call started, and a
 * runner with the test's home.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { runSandboxed, type SandboxRan, type SandboxRequest } from '../../../src/host/sandbox/index.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const SCRATCH = join(ROOT, 'node_modules', '.cache', 'dsh-sandbox-tests');

/** A fresh folder outside `/tmp` and every folder the sandbox hides (real path). */
export function scratch(prefix: string): string {
  mkdirSync(SCRATCH, { recursive: true });
  return realpathSync(mkdtempSync(join(SCRATCH, prefix)));
}

export interface World {
  /** The folder holding everything below; removed by {@link World.remove}. */
  base: string;
  workspace: string;
  /** The host home the runner is told about (`HOME`), with `.secret` planted. */
  home: string;
  /** The secret's text (in the home's `.secret`). */
  secret: string;
  /** A runner with `HOME` set to {@link World.home}. */
  run(request: Omit<SandboxRequest, 'workspace'> & { workspace?: string }): Promise<SandboxRan>;
  remove(): void;
}

/** A workspace with one file, and a home beside it with a secret. */
export function world(prefix = 'w-'): World {
  const base = scratch(prefix);
  const workspace = join(base, 'workspace');
  const home = join(base, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
  writeFileSync(join(workspace, 'README.md'), 'hello\n');
  const secret = `secret-${randomBytes(8).toString('hex')}`;
  writeFileSync(join(home, '.secret'), secret);
  return {
    base,
    workspace,
    home,
    secret,
    async run(request) {
      const outcome = await runSandboxed({
        workspace,
        ...request,
        hostEnv: { ...process.env, HOME: home, ...request.hostEnv },
      });
      if (outcome.kind !== 'ran') throw new Error(`refused: ${outcome.reason}`);
      return outcome;
    },
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** A number that names a call's processes (`sleep 3600.<token>`): the host's processes whose command line has it. */
export function token(): string {
  return String(100_000 + Math.floor(Math.random() * 900_000));
}

/** Host pids whose command line contains `text`. */
export function processesWith(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(text) && Number(entry) !== process.pid) found.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return found;
}
