import { compilePolicies, loadPolicyText } from '../dist/compile/index.js';
import { decideCall } from '../dist/compile/call.js';
const ALLOWED = ['git log','git status','git diff','git show','ls','cat','head','tail','wc','grep','rg'];
const DENIED = ['git log --output', 'git diff --output', 'rg --pre'];
const policyText = ['mode: team','tools:','  read: allow','  web_fetch: ask','  "mcp__gh__*": allow','  bash:','    decision: deny','    commands:',
  ...ALLOWED.map((p) => `      "${p} **": allow`), ...DENIED.map((p) => `      "${p}* **": deny`), 'default: deny'].join('\n');
const compound = (k) => `git log --oneline -n ${k} -- src/compile | grep -v fixup && cat README.md | head -40; ls -la docs/reference || wc -l src/*.ts`;
const policy = compilePolicies(loadPolicyText(policyText, 't.yaml').documents).get('team');
const t = Date.now();
let n = 0;
while (Date.now() - t < 4000) { decideCall(policy, { name: 'bash', arguments: { command: compound(n++) } }); }
console.log(n);
