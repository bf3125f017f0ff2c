#!/usr/bin/env node
// @ts-check
/**
 * The `npm start` transcript in docs/apps.md, from a real run: `node bin/dsh-mode.mjs chat --demo` in a scratch
 * folder, colour off, stdin `y` (approve the plan) then `/exit`. The run's folder and session id are replaced by
 * fixed ones (`/home/you/project`, `20261130-064523-81b6db`), and the block between the markers is rewritten.
 * `--check` writes nothing and exits 1 when the committed block differs. Runs the built package (`npm run build`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DOC = 'docs/apps.md';
export const START = '<!-- demo-transcript:start (scripts/demo-transcript.mjs writes this block) -->';
export const END = '<!-- demo-transcript:end -->';
/** What the transcript's reader types: approve the plan, then leave. */
export const INPUT = 'y\n/exit\n';
const FOLDER = '/home/you/project';
const SESSION = '20261130-064523-81b6db';

/**
 * Runs the demo and returns its transcript, normalised.
 * @param {string} root the repository
 * @returns {string}
 */
export function demoTranscript(root) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-demo-transcript-')));
  try {
    /** @type {NodeJS.ProcessEnv} */
    const env = { ...process.env, NO_COLOR: '1' };
    delete env.FORCE_COLOR;
    delete env.DEEPSEEK_API_KEY;
    const run = spawnSync(process.execPath, [join(root, 'bin/dsh-mode.mjs'), 'chat', '--demo'], {
      cwd: dir,
      input: INPUT,
      encoding: 'utf8',
      env,
    });
    if (run.status !== 0) throw new Error(`the demo exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
    const id = /session (\S+)/.exec(run.stdout)?.[1];
    if (id === undefined) throw new Error(`no session id in:\n${run.stdout}`);
    return run.stdout.split(dir).join(FOLDER).split(id).join(SESSION);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The page with its transcript block replaced.
 * @param {string} page the page's text
 * @param {string} transcript the transcript
 * @returns {string}
 */
export function withTranscript(page, transcript) {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start === -1 || end < start) throw new Error(`${DOC} has no ${START} … ${END} block`);
  const block = `${START}\n\n\`\`\`text\n${transcript.trimEnd()}\n\`\`\`\n\n`;
  return page.slice(0, start) + block + page.slice(end);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const file = join(root, DOC);
  const page = readFileSync(file, 'utf8');
  const next = withTranscript(page, demoTranscript(root));
  if (process.argv.includes('--check')) {
    if (next !== page) {
      process.stderr.write(`${DOC}: the npm start transcript is stale: run \`npm run docs\`\n`);
      process.exit(1);
    }
  } else if (next !== page) {
    writeFileSync(file, next);
    process.stdout.write(`wrote the transcript in ${DOC}\n`);
  }
}
