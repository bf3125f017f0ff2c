/**
 * `dsh-mode trust`: records a deployment file (default `./cordis.yml`) as trusted by its real path and the sha256
 * of its content, so `chat` and `acp` load it when they find it (see `../trust.ts`). `--list` shows the records
 * and whether each file still has its trusted content; `--revoke` removes one. Trusting also prints the start
 * notices of the file (a wider plan mode, a workspace outside its folder, another model endpoint), so the user
 * sees what they trust.
 * @module
 */
import { dirname, resolve } from 'node:path';
import type { CliCommand, CommandSpec, Outcome } from '../command.js';
import { parseDeployment, resolveDeployment, whereOf } from '../../deploy/index.js';
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
  usage: 'trust [FILE] | trust --list | trust --revoke [FILE]',
  description: [
    'A cordis.yml that chat or acp find in the current folder may come from a cloned repository: it can widen',
    'plan mode, move the workspace or send your API key to another host. They load it only after you trust',
    'that exact content. trust records FILE (default ./cordis.yml) by its real path and the sha256 of its',
    'content in trusted.json in your config folder ($DSH_MODE_CONFIG_DIR, else $XDG_CONFIG_HOME/dsh-mode,',
    'else ~/.config/dsh-mode). When the file changes, it is untrusted again: review it and trust it again.',
    'Trusting prints what the file changes that you may not expect (the same notices chat and acp print at',
    'start). The programs inside the project that it runs are recorded too: an MCP server `command` given as a',
    'path and each of its `args` that is a path, inside the folder of FILE or the workspace, by real path and',
    'sha256 (or as absent). When one changes, appears or is removed, chat and acp refuse to start, naming it.',
    'A program found on PATH (node, npx, uvx) is not hashed, nor are the modules a script loads. Policy and',
    'model script files are not part of the hash; the plan-mode notices cover what they do to plan.',
    '--config FILE on chat or acp is trust for that one run.',
    '',
    'Exit codes: 0 done; 1 a file that is not a valid deployment (its errors are printed; nothing is',
    'recorded); 2 a file that cannot be read (nothing is recorded), trust records that cannot be read (they',
    'are left as they are), or a usage error.',
  ].join('\n'),
  options: [
    { name: 'list', type: 'boolean', description: 'list the trusted files and whether each is unchanged' },
    {
      name: 'revoke',
      type: 'boolean',
      description: 'remove the record of FILE (default ./cordis.yml)',
    },
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
      return await trustFile(file, args.positionals[0] ?? 'cordis.yml', env.vars);
    } catch (error) {
      if (error instanceof TrustStoreError) return { kind: 'io', stderr: `error: ${error.message}\n` };
      throw error;
    }
  },
};

async function trustFile(file: string, shown: string, vars: NodeJS.ProcessEnv): Promise<Outcome> {
  let hashed: HashedFile;
  try {
    hashed = readHashed(file);
  } catch (error) {
    return { kind: 'io', stderr: `error: cannot read ${shown}: ${reason(error)}; nothing was recorded\n` };
  }
  const parsed = parseDeployment(hashed.text, file, dirname(hashed.realPath));
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
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
  const { record, store, previous } = addTrust(hashed, vars, programs);
  const { entries } = await resolveDeployment(parsed.entries);
  const notices = await deploymentNotices(entries, { cwd: dirname(file) });
  const again =
    previous === undefined ? '' : previous.sha256 === record.sha256 ? ' (again)' : ' (new content)';
  return {
    kind: 'ok',
    stdout:
      `trusted ${record.path}${again}\n  sha256 ${record.sha256}\n` +
      programs.map((p) => `  program ${p.path} ${p.sha256 ?? '(absent)'}\n`).join('') +
      `  recorded in ${store}\n`,
    ...(notices.length > 0 ? { stderr: `${notices.join('\n')}\n` } : {}),
  };
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
