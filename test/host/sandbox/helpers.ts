/**
 * Shared parts of the sandbox tests: scratch folders outside `/tmp` (the sandbox gives `/tmp` a private tmpfs,
 * so a workspace under the host's `/tmp` would be re-bound and a planted file there hidden for the wrong
 * reason), a home folder with a planted secret, a marker that finds the processes a call started, and a
 * runner with the test's home.
 */
import {
  accessSync,
  constants,
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
import { hiddenFolders, isInside } from '../../../src/host/sandbox/mounts.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const IN_CHECKOUT = join(ROOT, 'node_modules', '.cache', 'dsh-sandbox-tests');

/** Whether the sandbox would hide `folder` (it is under `/tmp` or a folder {@link hiddenFolders} names). */
function hiddenBySandbox(folder: string): boolean {
  return ['/tmp', ...hiddenFolders(process.env.HOME)].some((f) => isInside(folder, f));
}

/** Whether `folder` can be made and written here. */
function writable(folder: string): boolean {
  try {
    mkdirSync(folder, { recursive: true });
    accessSync(folder, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

// Scratch folders go where the sandbox shows them: the checkout's cache, unless the checkout is in a folder the
// sandbox hides (a clone under /home, /root or /tmp); then /var/cache, where the user may write there (root).
const SCRATCH =
  [IN_CHECKOUT, '/var/cache/dsh-sandbox-tests'].find(
    (folder) => writable(folder) && !hiddenBySandbox(realpathSync(folder)),
  ) ?? IN_CHECKOUT;

/**
 * True when no scratch folder outside the hidden ones could be had (a checkout under /home, run by a user who
 * cannot write /var/cache): the few tests that read a planted file outside the workspace are skipped then, since
 * the sandbox rightly hides it. CI runs them.
 */
export const SCRATCH_HIDDEN: boolean = !writable(SCRATCH) || hiddenBySandbox(realpathSync(SCRATCH));

/** A fresh folder outside `/tmp` and every folder the sandbox hides, unless {@link SCRATCH_HIDDEN} (real path). */
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
