// A decision where the analyser does its whole work: an uncached decision on a ~130-character compound command
// (five simple commands, pipes, `&&`, `;`, `||`) in a team mode with command rules, against a bare unbash parse of
// the same text, interleaved in the same blocks.
// Imports dist/: `npm run build` first (`npm run bench` does).
import { parse as parseShell } from 'unbash';
import { compilePolicies, decideCall, loadPolicyText } from '../dist/compile/api.js';
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

/** A compound command of about 130 characters; `k` varies a number in it so no memo can answer. */
const compound = (k) =>
  `git log --oneline -n ${k} -- src/compile | grep -v fixup && cat README.md | head -40; ls -la docs/reference || wc -l src/*.ts`;

export default async function run({ quick }) {
  const loaded = loadPolicyText(policyText, 'team.yaml');
  if (loaded.diagnostics.length > 0) throw new Error(JSON.stringify(loaded.diagnostics));
  const policy = compilePolicies(loaded.documents).get('team');
  if (compound(1000).length < 120) throw new Error('bench compound command is too short');
  let fresh = 0;
  let parsed = 0;
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
    ],
    { blocks: quick ? 3 : 15, blockMs: quick ? 5 : 40 },
  );
  return [
    ratioResult(BENCH, 'decide-command-uncached-vs-parse', uncached.decide, uncached.parse, {
      goal: { ratio: 3 },
    }),
  ];
}
