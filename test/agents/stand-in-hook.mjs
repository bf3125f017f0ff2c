#!/usr/bin/env node
// A stand-in pre-tool hook for the agent tests (issue 28), until `dsh-mode hook AGENT` exists.
//
//   node stand-in-hook.mjs CONFIG.json
//
// Appends `{ input, env }` (the JSON the agent wrote to stdin, and the names of the agent's own environment
// variables) to the config's `log` file, one line per call, then answers by the first rule whose `match` (a
// regular expression) matches the raw stdin text, in the config's `dialect`:
//   claude (Claude Code and Codex): `hookSpecificOutput.permissionDecision` with a reason
//   gemini: `decision` with `reason`
// A rule's `action` is a decision (`deny`, `ask`, `allow`) or a failure to study: `exit2` (exit 2, the reason on
// stderr), `exit2-silent` (exit 2, nothing on stderr), `exit1` (exit 1, the reason on stderr), `crash` (an
// uncaught throw), `garbage` (exit 0, text that is not JSON), `sleep` (wait `ms`, then exit 0 silently). No rule
// matching: exit 0 with no output, which every agent reads as "no opinion".
import { appendFileSync, readFileSync } from 'node:fs';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const input = readFileSync(0, 'utf8');
let parsed;
try {
  parsed = JSON.parse(input);
} catch {
  parsed = input;
}
const env = Object.keys(process.env)
  .filter((k) => /^(CLAUDE|CODEX|GEMINI|OPENCODE)/.test(k))
  .sort();
appendFileSync(config.log, JSON.stringify({ input: parsed, env, cwd: process.cwd() }) + '\n');

const rule = (config.rules ?? []).find((r) => new RegExp(r.match).test(input));
if (!rule) process.exit(0);
const reason = rule.reason ?? `stand-in hook: ${rule.action}`;

function decision(kind) {
  if (config.dialect === 'gemini') return { decision: kind, reason };
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: kind,
      permissionDecisionReason: reason,
    },
  };
}

switch (rule.action) {
  case 'deny':
  case 'ask':
  case 'allow':
    process.stdout.write(JSON.stringify(decision(rule.action)) + '\n');
    process.exit(0);
    break;
  case 'exit2':
    process.stderr.write(reason + '\n');
    process.exit(2);
    break;
  case 'exit2-silent':
    process.exit(2);
    break;
  case 'exit1':
    process.stderr.write(reason + '\n');
    process.exit(1);
    break;
  case 'crash':
    throw new Error(reason);
  case 'garbage':
    process.stdout.write('this is not JSON {\n');
    process.exit(0);
    break;
  case 'sleep':
    setTimeout(() => process.exit(0), rule.ms ?? 60_000);
    break;
  default:
    process.stderr.write(`stand-in hook: unknown action ${rule.action}\n`);
    process.exit(1);
}
