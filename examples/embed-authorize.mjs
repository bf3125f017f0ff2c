// Gates a tiny agent loop with the engine as a library: no cordis, no host. It loads the built-in plan policy,
// runs a scripted list of tool calls through authorize(), asks a stubbed human when a call needs approval, and
// leaves plan mode once the human approves exit_plan_mode. `npm run build` first (the package resolves to dist/).
//
//   node examples/embed-authorize.mjs
import { relative } from 'node:path';
import { compilePolicies, hasErrors, loadPolicySources } from 'dsh-mode/compile';
import { authorize, DEFAULT_MODE, EXIT_PLAN_MODE, PLAN_MODE } from 'dsh-mode/engine';

// What the model asks for, in order. `hints` are the tool's declared annotations (absent ones take MCP's defaults).
const calls = [
  { name: 'read', arguments: { path: 'README.md' } },
  { name: 'write', arguments: { path: 'NOTES.md', content: 'draft\n' } },
  { name: 'mcp__github__list_issues', hints: { readOnly: true } },
  { name: EXIT_PLAN_MODE, arguments: { plan: '# Plan\n\nWrite NOTES.md.' } },
  { name: EXIT_PLAN_MODE, arguments: { plan: '# Plan\n\nWrite NOTES.md, then check it.' } },
  { name: 'write', arguments: { path: 'NOTES.md', content: 'done\n' } },
  { name: EXIT_PLAN_MODE, arguments: { plan: '# Again' } },
];
// The stubbed human: rejects the first plan, approves the second.
const answers = [false, true];
const human = (call) => {
  const yes = answers.shift() ?? false;
  console.log(`  human, asked about ${call.name}: ${yes ? 'approved' : 'rejected'}`);
  return yes;
};

const load = await loadPolicySources([]); // the built-in policies/plan.yaml only
if (hasErrors(load.diagnostics)) throw new Error(JSON.stringify(load.diagnostics));
const policies = compilePolicies(load.documents);

let mode = PLAN_MODE;
for (const call of calls) {
  const verdict = authorize(policies, mode, call);
  const { selector, file, line, column } = verdict.rule;
  const where = file === null ? '' : ` at ${relative(process.cwd(), file)}:${line}:${column}`;
  console.log(`[${mode}] ${call.name}: ${verdict.decision} by \`${selector}\`${where}: ${verdict.reason}`);
  const runs = verdict.decision === 'allow' || (verdict.decision === 'ask' && human(call));
  if (!runs) continue; // a real loop returns verdict.reason to the model as the tool's result
  if (call.name === EXIT_PLAN_MODE) mode = DEFAULT_MODE; // the approved plan ends plan mode
  console.log(`  ran ${call.name}`);
}
console.log(`final mode: ${mode}`);
