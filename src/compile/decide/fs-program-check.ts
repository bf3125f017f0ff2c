/**
 * A {@link ProgramCheck} over the real workspace: whether a program that a command pattern allowed would run
 * only what its command line says. For every program but git the answer is yes. git also runs programs that the
 * repository itself names, and a repository you did not write can name any: `core.fsmonitor` runs on `git status`,
 * a diff driver's `textconv` on `git log -p`, a `filter` on `git diff`, and a `post-index-change` hook when
 * `git diff` refreshes the index. So before a pattern's allow lets git run, the repository must pass three checks,
 * each failing closed:
 * - every setting from the repository's own configuration (git's scopes `local` and `worktree`, includes and all)
 *   is on {@link INERT_SETTINGS}, a list of settings that name no program; anything else, known or not, withholds
 *   the allow. The user's own (`system`, `global`) and the host's (`command`) scopes are the user's choice.
 * - its hooks folder has none of the hooks a read can fire ({@link READ_HOOKS});
 * - every submodule repository git can open passes the same checks, to a bounded depth and count: each populated
 *   submodule (a gitlink with a `.git` inside), which `git status` and `git diff` enter, and each `modules/NAME`
 *   under the git directory that a current `.gitmodules` names, which `git ls-files --recurse-submodules`
 *   opens when the submodule's folder has no `.git`. The work tree is git's (`core.worktree` may put it outside
 *   the folder git runs in). What only an old commit names is not checked: the repository at its gitlink's path
 *   (`git log --submodule=log`) and the `modules/NAME` of its `.gitmodules` (`git grep --recurse-submodules x
 *   COMMIT`); plan denies both options, and `diff.submodule` is inert only as `short`.
 *
 * git itself answers where the repository is and what its configuration says (`git config --list --show-scope`,
 * `git rev-parse`, `git ls-files`), so discovery, `.git` files, worktrees, includes and quoting are git's own and
 * cannot disagree with the command that runs next. None of these commands runs a configured program. They run
 * synchronously with a timeout, once per program per resolver (a host makes one resolver per call).
 * @module
 */
import { createRequire } from 'node:module';
import { existsSync, lstatSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import type { ProgramCheck } from '../types.js';

/** Hooks that a read-only git command can fire (`git diff` writes a refreshed index even with optional locks off). */
export const READ_HOOKS: readonly string[] = Object.freeze(['post-index-change', 'reference-transaction']);

/**
 * The repository settings that name no program, as `git config --list` spells them (section and key in lower
 * case): exact keys, and `section.*.key` for a setting under any subsection. `color.` settings are all inert.
 */
export const INERT_SETTINGS: readonly string[] = Object.freeze([
  ...[
    'repositoryformatversion',
    'filemode',
    'bare',
    'logallrefupdates',
    'ignorecase',
    'precomposeunicode',
    'symlinks',
    'autocrlf',
    'eol',
    'safecrlf',
    'quotepath',
    'checkstat',
    'trustctime',
    'untrackedcache',
    'splitindex',
    'commitgraph',
    'multipackindex',
    'sparsecheckout',
    'sparsecheckoutcone',
    'abbrev',
    'compression',
    'loosecompression',
    'bigfilethreshold',
    'worktree',
    'whitespace',
  ].map((key) => `core.${key}`),
  'init.defaultbranch',
  // Not `partialclone` (nor `remote.*.promisor`): a promisor remote makes any read of a missing object fetch it.
  ...['objectformat', 'worktreeconfig', 'refstorage', 'preciousobjects'].map((key) => `extensions.${key}`),
  ...['user', 'author', 'committer'].flatMap((who) => [`${who}.name`, `${who}.email`]),
  'user.signingkey',
  'pull.rebase',
  'pull.ff',
  'push.default',
  'push.autosetupremote',
  'push.followtags',
  'fetch.prune',
  'fetch.prunetags',
  'rebase.autosquash',
  'rebase.autostash',
  'rebase.updaterefs',
  'merge.ff',
  'merge.conflictstyle',
  'status.showuntrackedfiles',
  'status.branch',
  'status.short',
  'status.submodulesummary',
  ...['renames', 'algorithm', 'colormoved', 'indentheuristic', 'mnemonicprefix', 'noprefix', 'context'].map(
    (key) => `diff.${key}`,
  ),
  'log.date',
  'log.decorate',
  'log.abbrevcommit',
  'log.follow',
  'gc.auto',
  'gc.autodetach',
  'maintenance.auto',
  'maintenance.strategy',
  'index.version',
  'feature.manyfiles',
  'protocol.version',
  'lfs.repositoryformatversion',
  ...['url', 'pushurl', 'fetch', 'push', 'tagopt', 'prune', 'mirror', 'partialclonefilter'].map(
    (key) => `remote.*.${key}`,
  ),
  ...['remote', 'merge', 'rebase', 'pushremote', 'description'].map((key) => `branch.*.${key}`),
  ...['url', 'active', 'branch'].map((key) => `submodule.*.${key}`),
  ...['xfuncname', 'funcname', 'wordregex', 'binary'].map((key) => `diff.*.${key}`),
]);

/**
 * Settings inert only with exactly these values: what `git lfs install --local` writes, and the default submodule
 * diff format (`log` and `diff` open the submodule's repository, wherever a commit once had one).
 */
const INERT_VALUES: ReadonlyMap<string, string> = new Map([
  ['diff.submodule', 'short'],
  ['filter.lfs.clean', 'git-lfs clean -- %f'],
  ['filter.lfs.smudge', 'git-lfs smudge -- %f'],
  ['filter.lfs.process', 'git-lfs filter-process'],
  ['filter.lfs.required', 'true'],
]);

const EXACT = new Set(INERT_SETTINGS.filter((s) => !s.includes('*')));
const UNDER_ANY = new Set(INERT_SETTINGS.filter((s) => s.includes('*')).map((s) => s.replace('.*.', '..')));

/** The most nested submodules, and submodules in all, that one check enters before it gives up (closed). */
const MAX_DEPTH = 4;
const MAX_REPOSITORIES = 64;
const TIMEOUT_MS = 10_000;

/**
 * The real-filesystem program check for one workspace.
 * @param workspace the folder commands run in (the workspace root)
 * @param env the environment git runs with (the host's, as the bash tool passes it on)
 * @returns the check: a reason to withhold an allow for the program, or undefined
 */
export function fsProgramCheck(
  workspace: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ProgramCheck {
  let git: { answer: string | undefined } | undefined;
  const gitEnv: NodeJS.ProcessEnv = { ...env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' };
  return (program) => {
    if (program !== 'git') return undefined;
    git ??= {
      answer: checkRepository(posix.resolve(workspace), gitEnv, { depth: 0, seen: 0, gitDirs: new Set() }),
    };
    return git.answer;
  };
}

/**
 * Whether one setting of the repository's own configuration names no program.
 * @param key the key as `git config --list` prints it
 * @param value its value (undefined for a bare boolean key)
 */
export function isInertSetting(key: string, value: string | undefined): boolean {
  const lower = key.toLowerCase();
  if (EXACT.has(lower) || lower.startsWith('color.')) return true;
  const exact = INERT_VALUES.get(lower);
  if (exact !== undefined) return value === exact;
  const first = lower.indexOf('.');
  const last = lower.lastIndexOf('.');
  return first !== last && UNDER_ANY.has(`${lower.slice(0, first)}..${lower.slice(last + 1)}`);
}

interface Walk {
  depth: number;
  seen: number;
  /** The git directories (with their work trees) checked already: a populated submodule's is also `modules/NAME`. */
  gitDirs: Set<string>;
}

/** Where git finds one submodule's repository without a `.git` in its folder: `modules/NAME`, and its work tree. */
interface Absorbed {
  gitDir: string;
  workTree: string;
}

function checkRepository(
  dir: string,
  env: NodeJS.ProcessEnv,
  walk: Walk,
  absorbed?: Absorbed,
): string | undefined {
  const own =
    absorbed === undefined ? env : { ...env, GIT_DIR: absorbed.gitDir, GIT_WORK_TREE: absorbed.workTree };
  const config = run(['config', '--list', '--show-scope', '-z'], dir, own);
  if (config === 'absent') return undefined; // no git on PATH: the command cannot run git either
  if (typeof config !== 'string') return `git cannot read the configuration at \`${dir}\`: ${config.error}`;
  const fields = config.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i]!;
    if (scope !== 'local' && scope !== 'worktree') continue;
    const entry = fields[i + 1]!;
    const newline = entry.indexOf('\n');
    const key = newline < 0 ? entry : entry.slice(0, newline);
    if (!isInertSetting(key, newline < 0 ? undefined : entry.slice(newline + 1)))
      return `the repository's own configuration sets \`${key}\`, which is not a setting known to name no program (${where(dir)})`;
  }
  const info = run(
    ['rev-parse', '--is-bare-repository', '--absolute-git-dir', '--git-path', 'hooks'],
    dir,
    own,
  );
  if (typeof info !== 'string')
    // Not a repository: git runs nothing it configures. A submodule's `modules/NAME` is one, whatever it says.
    return absorbed === undefined ? undefined : `git cannot read the repository at \`${absorbed.gitDir}\``;
  const lines = info.split('\n');
  // One line each: a path with a line break in it (a submodule's folder, a `.git` link) would shift them.
  if (lines.length !== 4)
    return `git names a path with a line break in \`${dir}\`, which the check cannot read`;
  const [bare = '', gitDir = '', hooks = ''] = lines;
  // A work tree need not contain the folder git runs in (`core.worktree` elsewhere): git has one unless bare.
  let root: string | undefined;
  if (bare !== 'true') {
    const top = run(['rev-parse', '--show-toplevel'], dir, own);
    if (typeof top !== 'string')
      return `git cannot find the work tree of \`${dir}\`: ${describeFailure(top)}`;
    root = top.trim();
  }
  // Checked once per git directory and work tree: one `modules/NAME` can serve two folders, each with its own
  // populated submodules.
  const key = `${gitDir}\n${root ?? ''}`;
  if (walk.gitDirs.has(key)) return undefined;
  walk.gitDirs.add(key);
  if (++walk.seen > MAX_REPOSITORIES)
    return `the repository has more than ${MAX_REPOSITORIES - 1} submodules to check`;
  for (const hook of READ_HOOKS) {
    if (existsOrLink(posix.resolve(dir, hooks, hook)))
      return `the repository has a \`${hook}\` hook, which a read such as \`git diff\` can run (${where(dir)})`;
  }
  // Populated submodules first: their `.git` is often a file naming `modules/NAME`, checked once, by its path.
  return (
    (root === undefined ? undefined : checkSubmodules(dir, own, env, walk, root)) ??
    checkAbsorbed(dir, own, env, walk, root)
  );
}

/**
 * Every submodule repository under the git directory's `modules/` that `.gitmodules` names: git opens
 * `modules/NAME` itself when the submodule's folder has no `.git` (`git grep --recurse-submodules --cached`,
 * `git ls-files --recurse-submodules`), so a populated folder is not what makes it reachable. The names come from
 * every `.gitmodules` git may read: the work tree's, the index's and `HEAD`'s.
 */
function checkAbsorbed(
  dir: string,
  own: NodeJS.ProcessEnv,
  env: NodeJS.ProcessEnv,
  walk: Walk,
  root: string | undefined,
): string | undefined {
  const listed: string[] = [];
  const sources: string[][] = [];
  if (root !== undefined && existsOrLink(posix.join(root, '.gitmodules')))
    sources.push(['--file', posix.join(root, '.gitmodules')]);
  for (const spec of [':.gitmodules', 'HEAD:.gitmodules']) {
    const oid = run(['rev-parse', '-q', '--verify', spec], dir, own);
    if (typeof oid === 'string' && oid.trim() !== '') sources.push(['--blob', oid.trim()]);
  }
  for (const source of sources) {
    const found = run(['config', ...source, '-z', '--get-regexp', '^submodule\\..*\\.path$'], dir, own, [1]);
    if (typeof found !== 'string')
      return `git cannot read \`.gitmodules\` in \`${dir}\`: ${describeFailure(found)}`;
    for (const entry of found.split('\0')) {
      const newline = entry.indexOf('\n');
      if (newline < 0) continue;
      listed.push(entry.slice(0, newline), entry.slice(newline + 1));
    }
  }
  if (listed.length === 0) return undefined;
  const names = listed
    .filter((_, i) => i % 2 === 0)
    .map((key) => key.slice('submodule.'.length, -'.path'.length));
  const paths = run(['rev-parse', ...names.flatMap((name) => ['--git-path', `modules/${name}`])], dir, own);
  if (typeof paths !== 'string')
    return `git cannot list the submodules of \`${dir}\`: ${describeFailure(paths)}`;
  const gitDirs = paths.split('\n');
  if (gitDirs.length !== names.length + 1)
    return `git names a path with a line break in \`${dir}\`, which the check cannot read`;
  for (let i = 0; i < names.length; i++) {
    const gitDir = posix.resolve(dir, gitDirs[i]!);
    if (!existsOrLink(gitDir)) continue;
    const folder = root === undefined ? undefined : posix.resolve(root, listed[2 * i + 1]!);
    const workTree =
      folder !== undefined && isDirectory(folder) ? folder : isDirectory(gitDir) ? gitDir : undefined;
    if (workTree === undefined)
      return `the submodule \`${names[i]}\` has a repository at \`${gitDir}\` that is not a folder`;
    if (walk.depth >= MAX_DEPTH) return `the repository nests submodules deeper than ${MAX_DEPTH} levels`;
    walk.depth++;
    const answer = checkRepository(workTree, env, walk, { gitDir, workTree });
    walk.depth--;
    if (answer !== undefined) return `in submodule \`${names[i]}\` (\`${gitDir}\`): ${answer}`;
  }
  return undefined;
}

function checkSubmodules(
  dir: string,
  own: NodeJS.ProcessEnv,
  env: NodeJS.ProcessEnv,
  walk: Walk,
  root: string,
): string | undefined {
  const index = run(['ls-files', '--stage', '-z', '--full-name', '--', ':/'], dir, own);
  if (typeof index !== 'string')
    return `git cannot list the repository at \`${dir}\`: ${describeFailure(index)}`;
  for (const entry of index.split('\0')) {
    if (!entry.startsWith('160000 ')) continue;
    const path = posix.resolve(root, entry.slice(entry.indexOf('\t') + 1));
    if (!existsOrLink(`${path}/.git`)) continue; // not populated: git enters `modules/NAME`, checked above
    if (walk.depth >= MAX_DEPTH) return `the repository nests submodules deeper than ${MAX_DEPTH} levels`;
    walk.depth++;
    const answer = checkRepository(path, env, walk);
    walk.depth--;
    if (answer !== undefined) return `in submodule \`${posix.relative(root, path)}\`: ${answer}`;
  }
  return undefined;
}

type RunResult = string | 'absent' | { error: string };

/**
 * Node's child processes, loaded when git first runs: most decisions never start one, and a hook process (an
 * agent's `dsh-mode hook`, started before every tool call) then does not pay for loading them.
 */
let spawnSync: typeof import('node:child_process').spawnSync | undefined;
function spawn(): typeof import('node:child_process').spawnSync {
  spawnSync ??= (createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process'))
    .spawnSync;
  return spawnSync;
}

function run(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  ok: readonly number[] = [],
): RunResult {
  const r = spawn()('git', args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: TIMEOUT_MS,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.error !== undefined) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' && !existsSync(cwd)
      ? { error: `\`${cwd}\` does not exist` }
      : code === 'ENOENT'
        ? 'absent'
        : { error: r.error.message };
  }
  if (r.status !== 0 && ok.includes(r.status ?? -1)) return '';
  if (r.status !== 0) return { error: firstLine(r.stderr) || `git exited with ${r.status ?? r.signal}` };
  return r.stdout;
}

function describeFailure(r: RunResult): string {
  return typeof r === 'object' ? r.error : 'no output';
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function existsOrLink(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function firstLine(text: string): string {
  return text
    .trim()
    .split('\n')[0]!
    .replace(/^fatal: /, '');
}

function where(dir: string): string {
  return `in \`${dir}\``;
}
