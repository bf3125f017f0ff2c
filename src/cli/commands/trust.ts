/**
 * `dsh-mode trust`: records a deployment file (default `./cordis.yml`) as trusted by its real path and the sha256
 * of its content, so `chat` and `acp` load it when they find it (see `../trust.ts`). `--list` shows the records
 * and whether each file still has its trusted content; `--revoke` removes one.
 *
 * A file is recorded only when it would start: the checks of `lint cordis.yml` and of the start (src/deploy: the
 * schema, a host and one model, no plugin twice, the mode config and the policy files it names). Before recording,
 * trust shows the start notices of the file (a wider plan mode, a workspace outside its folder, another model
 * endpoint), so the user sees what they trust; with a terminal on stdin and stderr it then asks, and records only on
 * `y` (`--yes` skips the question). Without a terminal nothing is asked and the notices come with the result on
 * stderr. The question is the one place this command writes and reads the streams itself, as `chat` does.
 * @module
 */
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { CliCommand, CommandSpec, Outcome } from '../command.js';
import type { Diagnostic } from '../../compile/types.js';
import { checkComplete, parseDeployment, resolveDeployment, whereOf } from '../../deploy/index.js';
import { UsageError } from '../errors.js';
import { deploymentNotices } from '../../apps/start-notices.js';
import { deploymentPrograms, type ProgramRecord } from '../../apps/programs.js';
import {
  addTrust,
  readHashed,
  readStore,
  removeTrust,
  storePath,
  TrustStoreError,
  type HashedFile,
} from '../../apps/trust.js';

const spec: CommandSpec = {
  name: 'trust',
  summary: 'trust a cordis.yml so chat and acp load it from this folder',
  usage: 'trust [FILE] [--yes] | trust --list | trust --revoke [FILE]',
  description: [
    'A cordis.yml that chat or acp find in the current folder may come from a cloned repository: it can widen',
    'plan mode, move the workspace or send your API key to another host. They load it only after you trust',
    'that exact content. trust records FILE (default ./cordis.yml) by its real path and the sha256 of its',
    'content in trusted.json in your config folder ($DSH_MODE_CONFIG_DIR, else $XDG_CONFIG_HOME/dsh-mode,',
    'else ~/.config/dsh-mode). When the file changes, it is untrusted again: review it and trust it again.',
    'A file is trusted only if it would start: the checks of lint cordis.yml and of chat and acp at start.',
    'Before recording, trust prints what the file changes that you may not expect (the same notices chat and',
    'acp print at start) and, in a terminal, asks before it records (--yes does not ask). The programs inside',
    'the project that it runs are recorded too: an MCP server `command` given as a path and each of its `args`',
    'that is a path, inside the folder of FILE or the workspace, by real path and sha256 (or as absent). When',
    'one changes, appears or is removed, chat and acp refuse to start, naming it. A program found on PATH (node,',
    'npx, uvx) is not hashed, nor are the modules a script loads. Policy and model script files are not part of',
    'the hash; the plan-mode notices cover what they do to plan.',
    '--config FILE on chat or acp is trust for that one run.',
    '',
    'Exit codes: 0 done; 1 a file that is not a valid deployment (its errors are printed; nothing is',
    'recorded), or you answered no; 2 a file that cannot be read (nothing is recorded), trust records that',
    'cannot be read (they are left as they are), or a usage error.',
  ].join('\n'),
  options: [
    { name: 'list', type: 'boolean', description: 'list the trusted files and whether each is unchanged' },
    {
      name: 'revoke',
      type: 'boolean',
      description: 'remove the record of FILE (default ./cordis.yml)',
    },
    { name: 'yes', type: 'boolean', description: 'record without asking, even in a terminal' },
  ],
  examples: ['trust', 'trust path/to/cordis.yml', 'trust --list', 'trust --revoke'],
};

/** The command-line adapter of `trust`. */
export const command: CliCommand = {
  spec,
  async execute(args, env) {
    const list = args.options.has('list');
    const revoke = args.options.has('revoke');
    if (list && revoke) throw new UsageError('`--list` and `--revoke` cannot be combined');
    if (args.positionals.length > (list ? 0 : 1)) {
      throw new UsageError(`unexpected argument \`${args.positionals[list ? 0 : 1]}\``);
    }
    const file = resolve(env.cwd, args.positionals[0] ?? 'cordis.yml');
    try {
      if (list) return listRecords(env.vars);
      if (revoke) return revokeRecord(file, env.vars);
      // Asked only when a person can answer: a terminal on both the question's ends.
      const ask = !args.options.has('yes') && process.stdin.isTTY === true && process.stderr.isTTY === true;
      return await trustFile(
        file,
        args.positionals[0] ?? 'cordis.yml',
        env.vars,
        ask ? askOnTerminal : undefined,
      );
    } catch (error) {
      if (error instanceof TrustStoreError) return { kind: 'io', stderr: `error: ${error.message}\n` };
      throw error;
    }
  },
};

/** Shows the notices, asks the question, and says whether the answer is yes. */
type Confirm = (notices: readonly string[], question: string) => Promise<boolean>;

async function trustFile(
  file: string,
  shown: string,
  vars: NodeJS.ProcessEnv,
  confirm: Confirm | undefined,
): Promise<Outcome> {
  let hashed: HashedFile;
  try {
    hashed = readHashed(file);
  } catch (error) {
    return { kind: 'io', stderr: `error: cannot read ${shown}: ${reason(error)}; nothing was recorded\n` };
  }
  const parsed = parseDeployment(hashed.text, file, dirname(hashed.realPath));
  const errors: Diagnostic[] = parsed.diagnostics.filter((d) => d.severity === 'error');
  // The start's own checks, after the file's: a refused file has no entries to check.
  const resolved = errors.length === 0 ? await resolveDeployment(parsed.entries) : undefined;
  if (resolved !== undefined) {
    for (const d of checkComplete(parsed.entries, file)) errors.push(d);
    for (const d of resolved.diagnostics) if (d.severity === 'error') errors.push(d);
  }
  if (errors.length > 0 || resolved === undefined) {
    const issues = errors.map((d) => `${whereOf(d)}: ${d.message}`).join('\n');
    // The file was read and says no (exit 1, as lint's errors); one that cannot be read is exit 2.
    return {
      kind: 'load-failed',
      stderr: `${issues}\nerror: ${shown} is not a valid deployment; nothing was recorded\n`,
    };
  }
  let programs: ProgramRecord[];
  try {
    programs = deploymentPrograms(parsed.entries, { baseDir: dirname(hashed.realPath), cwd: dirname(file) });
  } catch (error) {
    return {
      kind: 'io',
      stderr: `error: cannot read a program ${shown} runs: ${reason(error)}; nothing was recorded\n`,
    };
  }
  const notices = await deploymentNotices(resolved.entries, { cwd: dirname(file) });
  if (confirm !== undefined && !(await confirm(notices, `trust ${hashed.realPath}? [y/N] `))) {
    return { kind: 'load-failed', stderr: `not trusted: nothing was recorded\n` };
  }
  const { record, store, previous } = addTrust(hashed, vars, programs);
  const again =
    previous === undefined ? '' : previous.sha256 === record.sha256 ? ' (again)' : ' (new content)';
  return {
    kind: 'ok',
    stdout:
      `trusted ${record.path}${again}\n  sha256 ${record.sha256}\n` +
      programs.map((p) => `  program ${p.path} ${p.sha256 ?? '(absent)'}\n`).join('') +
      `  recorded in ${store}\n`,
    // Shown before the question when one was asked; without one, they come with the result.
    ...(notices.length > 0 && confirm === undefined ? { stderr: `${notices.join('\n')}\n` } : {}),
  };
}

/** The question on the terminal: the notices, then `[y/N]`; Ctrl-C and end of input answer no. */
async function askOnTerminal(notices: readonly string[], question: string): Promise<boolean> {
  if (notices.length > 0) process.stderr.write(`${notices.join('\n')}\n`);
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await new Promise<boolean>((settle) => {
      rl.on('SIGINT', () => {
        process.stderr.write('\n');
        settle(false);
      });
      rl.on('close', () => settle(false));
      rl.question(question, (answer) => settle(/^\s*y(es)?\s*$/i.test(answer)));
    });
  } finally {
    rl.close();
  }
}

function listRecords(vars: NodeJS.ProcessEnv): Outcome {
  const store = storePath(vars);
  const records = readStore(store);
  if (records.length === 0) return { kind: 'ok', stdout: `no trusted files (records: ${store})\n` };
  const lines = records.map((r) => {
    let status: string;
    try {
      status =
        readHashed(r.path).sha256 !== r.sha256
          ? 'changed since trusted'
          : r.programs === undefined
            ? 'recorded by an earlier dsh-mode without its programs: trust it again'
            : 'trusted';
    } catch (error) {
      status = `cannot be read (${reason(error)})`;
    }
    return `${r.path}  ${status}  (trusted ${r.trustedAt})`;
  });
  return { kind: 'ok', stdout: `${lines.join('\n')}\n` };
}

function revokeRecord(file: string, vars: NodeJS.ProcessEnv): Outcome {
  const removed = removeTrust(file, vars);
  return {
    kind: 'ok',
    stdout: removed ? `revoked ${removed.path}\n` : `${file} was not trusted; nothing to revoke\n`,
  };
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  return error instanceof Error ? error.message : String(error);
}
