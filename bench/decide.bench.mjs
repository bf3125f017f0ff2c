// Decisions of the compiled table, each against a same-run baseline:
//  - a memoised name decision (`decide`) and a name-only tool through `decideCall` in a mode with argument rules,
//    against a bare Map.get over the same names;
//  - a repeated command decision (the table's memo of the script's judgement) against Map.get, for information;
//  - an uncached decision on a ~130-character compound command against a bare unbash parse of it;
//  - a naive baseline, regex prefix matching over the raw command string (the way Gemini CLI's `commandPrefix`
//    works), with its count of wrong answers on the differential corpus (test/compile/fixtures/shell-corpus.yaml).
// Imports dist/: `npm run build` first (`npm run bench` does).
import { readFileSync } from 'node:fs';
import { parse as parseShell } from 'unbash';
import { parse as parseYaml } from 'yaml';
import { compilePolicies, loadPolicyText } from '../dist/compile/api.js';
import { decideCall } from '../dist/compile/decide/call.js';
import { consume, interleave, ratioResult } from './lib.mjs';

const BENCH = 'decide';

/** A team mode with command rules: read-only programs allowed, their writing flags and anything else denied. */
const ALLOWED = [
  'git log',
  'git status',
  'git diff',
  'git show',
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'rg',
];
const DENIED = ['git log --output', 'git diff --output', 'rg --pre'];
const policyText = [
  'mode: team',
  'tools:',
  '  read: allow',
  '  web_fetch: ask',
  '  "mcp__gh__*": allow',
  '  bash:',
  '    decision: deny',
  '    commands:',
  ...ALLOWED.map((p) => `      "${p} **": allow`),
  ...DENIED.map((p) => `      "${p}* **": deny`),
  'default: deny',
].join('\n');

/** Gemini-style: a rule is a regular expression anchored at the start of the raw command; deny rules first. */
function naiveDecider() {
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const deny = DENIED.map((p) => new RegExp(`^${escape(p)}`));
  const allow = ALLOWED.map((p) => new RegExp(`^${escape(p)}(?:\\s|$)`));
  return (command) => {
    if (deny.some((re) => re.test(command))) return 'deny';
    return allow.some((re) => re.test(command)) ? 'allow' : 'deny';
  };
}

/** A compound command of about 130 characters; `k` varies a number in it so no memo can answer. */
const compound = (k) =>
  `git log --oneline -n ${k} -- src/compile | grep -v fixup && cat README.md | head -40; ls -la docs/reference || wc -l src/*.ts`;

export default async function run({ quick }) {
  const blocks = quick ? 3 : 15;
  const blockMs = quick ? 5 : 40;
  const out = [];
  const loaded = loadPolicyText(policyText, 'team.yaml');
  if (loaded.diagnostics.length > 0) throw new Error(JSON.stringify(loaded.diagnostics));
  const policy = compilePolicies(loaded.documents).get('team');
  const names = ['read', 'web_fetch', 'mcp__gh__list', 'mcp__gh__get', 'write', 'other'];
  const table = new Map(names.map((n) => [n, policy.decide(n)]));
  const calls = names.map((name) => ({ name, arguments: {} }));
  const mapGet = {
    name: 'map',
    run(n) {
      for (let i = 0; i < n; i++) consume(table.get(names[i % names.length]).decision);
    },
  };

  // Name decisions: decide() and a name-only tool through decideCall (no parsing on its path).
  const byName = await interleave(
    [
      mapGet,
      {
        name: 'decide',
        run(n) {
          for (let i = 0; i < n; i++) consume(policy.decide(names[i % names.length]).decision);
        },
      },
      {
        name: 'call',
        run(n) {
          for (let i = 0; i < n; i++) consume(decideCall(policy, calls[i % calls.length]).decision);
        },
      },
    ],
    { blocks, blockMs },
  );
  out.push(
    ratioResult(BENCH, 'decide-memoised-vs-map-get', byName.decide, byName.map),
    ratioResult(BENCH, 'decide-name-only-vs-map-get', byName.call, byName.map),
  );

  // A repeated command decision (memoised) against Map.get.
  const commands = ['git log -5', 'ls -la', 'cat README.md', 'git push', 'rm -rf x', 'rg foo'].map(
    (command) => ({
      name: 'bash',
      arguments: { command },
    }),
  );
  const repeated = await interleave(
    [
      mapGet,
      {
        name: 'command',
        run(n) {
          for (let i = 0; i < n; i++) consume(decideCall(policy, commands[i % commands.length]).decision);
        },
      },
    ],
    { blocks, blockMs },
  );
  out.push(ratioResult(BENCH, 'decide-command-memoised-vs-map-get', repeated.command, repeated.map));

  // An uncached decision on a compound command against a bare parse of the same text; the naive regex beside it.
  const naive = naiveDecider();
  let fresh = 0;
  let parsed = 0;
  let regexed = 0;
  if (compound(1000).length < 120) throw new Error('bench compound command is too short');
  const uncached = await interleave(
    [
      {
        name: 'decide',
        run(n) {
          for (let i = 0; i < n; i++)
            consume(decideCall(policy, { name: 'bash', arguments: { command: compound(fresh++) } }).decision);
        },
      },
      {
        name: 'parse',
        run(n) {
          for (let i = 0; i < n; i++) consume(parseShell(compound(parsed++)).commands?.length ?? 1);
        },
      },
      {
        name: 'naive',
        run(n) {
          for (let i = 0; i < n; i++) consume(naive(compound(regexed++)));
        },
      },
    ],
    { blocks, blockMs },
  );
  out.push(
    ratioResult(BENCH, 'decide-command-uncached-vs-parse', uncached.decide, uncached.parse, {
      goal: { ratio: 3 },
    }),
  );

  // The naive baseline's wrong answers on the corpus. The reference is this engine's decision on the same script,
  // whose analyser the corpus test checks against what real bash runs.
  const corpus = parseYaml(
    readFileSync(new URL('../test/compile/fixtures/shell-corpus.yaml', import.meta.url), 'utf8'),
  );
  let wrong = 0;
  let unsafe = 0;
  for (const c of corpus) {
    const ours = decideCall(policy, { name: 'bash', arguments: { command: c.script } }).decision;
    const theirs = naive(c.script);
    if (ours !== theirs) wrong++;
    if (theirs === 'allow' && ours !== 'allow') unsafe++;
  }
  out.push({
    ...ratioResult(BENCH, 'naive-prefix-vs-decide', uncached.naive, uncached.decide),
    wrong,
    unsafe,
    cases: corpus.length,
    note: `regex prefix matching over the raw command; ${wrong} of ${corpus.length} corpus answers differ, ${unsafe} of them allow what the engine denies`,
  });
  return out;
}
