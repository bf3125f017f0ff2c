import { compilePolicies, loadPolicyText } from '/work/wt/decide/dist/compile/index.js';
import { decideCall } from '/work/wt/decide/dist/compile/call.js';
import { extractCommands } from '/work/wt/decide/dist/compile/shell/index.js';
import { parse } from 'unbash';
const ALLOWED = ['git log','git status','git diff','git show','ls','cat','head','tail','wc','grep','rg'];
const DENIED = ['git log --output', 'git diff --output', 'rg --pre'];
const policyText = ['mode: team','tools:','  read: allow','  web_fetch: ask','  "mcp__gh__*": allow','  bash:','    decision: deny','    commands:',
  ...ALLOWED.map((p) => `      "${p} **": allow`), ...DENIED.map((p) => `      "${p}* **": deny`), 'default: deny'].join('\n');
const compound = (k) => `git log --oneline -n ${k} -- src/compile | grep -v fixup && cat README.md | head -40; ls -la docs/reference || wc -l src/*.ts`;
const policy = compilePolicies(loadPolicyText(policyText, 't.yaml').documents).get('team');
function time(label, f, n = 20000) {
  for (let i = 0; i < 2000; i++) f(i);
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f(i + 5000);
  console.log(label, Number(process.hrtime.bigint() - t) / n, 'ns');
}
time('parse', (k) => parse(compound(k)));
time('extract', (k) => extractCommands(compound(k)));
time('decide', (k) => decideCall(policy, { name: 'bash', arguments: { command: compound(k) } }));
console.log(JSON.stringify(decideCall(policy, { name: 'bash', arguments: { command: compound(1) } }).decision));
