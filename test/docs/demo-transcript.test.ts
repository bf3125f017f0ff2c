/**
 * The `npm start` transcript in docs/apps.md is a real run of the built demo (scripts/demo-transcript.mjs over
 * dist/, built by the global setup): a change to the chat's output or to the demo fails here with the command
 * that regenerates the block.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoTranscript, DOC, END, START, withTranscript } from '../../scripts/demo-transcript.mjs';

const root = resolve(import.meta.dirname, '../..');

describe('the npm start transcript in docs/apps.md', () => {
  it('is what the demo prints now (run `npm run docs` when this fails)', () => {
    const page = readFileSync(join(root, DOC), 'utf8');
    const transcript = demoTranscript(root);
    expect(withTranscript(page, transcript), `${DOC}: run \`npm run docs\``).toBe(page);
    // What the reader of the page is told it shows.
    expect(transcript).toContain(
      'Approve this plan? y = approve, e = edit, n = keep planning, or type feedback: y',
    );
    expect(transcript).toContain('default> /exit\nresume with: dsh-mode chat --demo --resume ');
    expect(transcript).not.toContain(root);
  });

  it('replaces only the block between its markers, and refuses a page without them', () => {
    const page = `before\n${START}\nold\n${END}\nafter\n`;
    expect(withTranscript(page, 'new\n')).toBe(
      `before\n${START}\n\n\`\`\`text\nnew\n\`\`\`\n\n${END}\nafter\n`,
    );
    expect(() => withTranscript('no markers', 'x')).toThrow(/has no/);
  });
});
