// The host where a person waits on it: resuming a long session. A 1,000,000-event journal (turns of 100 events,
// written as the journal writes them) is resumed through `ctx.sessions.resume`, against a bare read + split +
// `JSON.parse` of the same file, interleaved in the same blocks.
// Imports dist/: `npm run build` first (`npm run bench` does).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consume, interleave, ratioResult } from './lib.mjs';
import { deployment } from './steps.mjs';

const BENCH = 'host';

/** The text of a journal of `count` events: turns of 100 (a turn/start, 98 messages, a turn/end). */
function journalText(count) {
  const lines = [];
  const time = new Date(0).toISOString();
  const text = 'x'.repeat(120);
  for (let seq = 1, turn = 1; seq <= count; turn++) {
    lines.push(JSON.stringify({ seq: seq++, type: 'turn/start', data: { turn }, time }));
    for (let i = 0; i < 98 && seq < count; i++)
      lines.push(JSON.stringify({ seq: seq++, type: 'user/message', data: { text }, time }));
    if (seq <= count)
      lines.push(JSON.stringify({ seq: seq++, type: 'turn/end', data: { turn, reason: 'done' }, time }));
  }
  return `${lines.join('\n')}\n`;
}

export default async function run({ quick }) {
  const workspace = mkdtempSync(join(tmpdir(), 'dsh-bench-host-'));
  try {
    const ctx = await deployment(workspace, true);
    const count = quick ? 5_000 : 1_000_000;
    const folder = join(workspace, '.dsh/sessions');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, 'bench-big.jsonl');
    writeFileSync(file, journalText(count));
    const resume = await interleave(
      [
        {
          name: 'resume',
          async run(n) {
            for (let i = 0; i < n; i++) {
              const session = await ctx.sessions.resume('bench-big');
              if (session.events.length !== count)
                throw new Error(`bench: resumed ${session.events.length} events`);
              session.close();
            }
          },
        },
        {
          name: 'parse',
          run(n) {
            for (let i = 0; i < n; i++) {
              const lines = readFileSync(file, 'utf8').split('\n');
              for (const line of lines) if (line) consume(JSON.parse(line).seq);
            }
          },
        },
      ],
      // A block is one resume of about a second: enough of them for a median the machine's drift cannot move.
      { blocks: quick ? 2 : 9, ops: 1 },
    );
    return [
      ratioResult(BENCH, 'resume-1m-vs-parse', resume.resume, resume.parse, {
        unit: 'ms',
        scale: 1e-6,
        goal: { ratio: 1.5 },
      }),
    ];
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
