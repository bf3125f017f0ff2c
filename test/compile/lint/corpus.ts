/**
 * A seeded, generated lint corpus whose findings `lint-corpus.test.ts` pins: several modes of many
 * documents drawing on a small vocabulary of exact names, overlapping globs, braces, invalid and oversized
 * selectors, reasons, `effects`, `default`s, `override`s and inline tests, so every rule finds something and
 * compositions see long prefixes. The same seed always gives the same texts.
 */
import type { ToolCatalogEntry } from '../../../src/compile/catalog/catalog.js';

const EXACT = [
  'read',
  'write',
  'edit',
  'bash',
  'grep',
  'list',
  'todo_write',
  'web_fetch',
  'web_search',
  'exit_plan_mode',
  'mcp__gh__list_issues',
  'mcp__gh__create_issue',
  'mcp__fs__read_file',
  'mcp__fs__write_file',
  'tool_a',
  'tool_b',
  '__proto__',
  'constructor',
];
const GLOBS = [
  'mcp__*',
  'mcp__gh__*',
  'mcp__fs__*',
  'mcp__*__read_*',
  'mcp__*__write_*',
  '*_file',
  '*_issue*',
  'web_*',
  'tool_?',
  'tool_[ab]',
  't*l_a',
  '*',
  '*e*',
  '{read,write}',
  '{read,grep,list}',
  'mcp__{gh,fs}__*',
  '{web,mcp}_*',
  'e?it',
  'exit_*',
  '*_mode',
  '{a,b}_x',
  'mcp__[gh__*',
  '{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}',
];
const DECISIONS = ['allow', 'ask', 'deny'] as const;
const HINTS = ['readOnly', 'destructive', 'idempotent', 'openWorld'] as const;
const PROBE_NAMES = [...EXACT, 'mcp__gh__read_thing', 'mcp__x__write_y', 'some_new_tool', 'web_x', 'tool_c'];

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The corpus: `count` documents over `modes` modes, in load order.
 * @returns file names and YAML texts
 */
export function corpusTexts(seed = 7, count = 60, modes = 5): { file: string; text: string }[] {
  const r = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
  const out: { file: string; text: string }[] = [];
  for (let d = 0; d < count; d++) {
    const mode = d % 7 === 3 ? 'plan' : `m${Math.floor(r() * modes)}`;
    const lines = [`mode: ${mode}`];
    if (r() < 0.05) lines.push('override: true');
    const selectors = new Set<string>();
    const rules = 2 + Math.floor(r() * 14);
    for (let i = 0; i < rules; i++) selectors.add(r() < 0.5 ? pick(EXACT) : pick(GLOBS));
    if (selectors.size > 0) lines.push('tools:');
    for (const selector of selectors) {
      const decision = pick(DECISIONS);
      const value = r() < 0.15 ? `{ decision: ${decision}, reason: "why ${d}" }` : decision;
      lines.push(`  ${JSON.stringify(selector)}: ${value}`);
    }
    const effects = HINTS.filter(() => r() < 0.2);
    if (effects.length > 0) {
      lines.push('effects:');
      for (const hint of effects) {
        const decision = pick(DECISIONS);
        lines.push(`  ${hint}: ${r() < 0.2 ? `{ decision: ${decision}, reason: because }` : decision}`);
      }
    }
    if (r() < 0.6) lines.push(`default: ${pick(DECISIONS)}`);
    const tests = Math.floor(r() * 4);
    if (tests > 0) lines.push('tests:');
    for (let t = 0; t < tests; t++) {
      const hints = HINTS.filter(() => r() < 0.25).map((h) => `${h}: ${r() < 0.7}`);
      const annotations = hints.length > 0 ? `, annotations: { ${hints.join(', ')} }` : '';
      lines.push(
        `  - { tool: ${JSON.stringify(pick(PROBE_NAMES))}${annotations}, expect: ${pick(DECISIONS)} }`,
      );
    }
    out.push({ file: `corpus/${String(d).padStart(3, '0')}.yaml`, text: lines.join('\n') + '\n' });
  }
  return out;
}

/** A catalog over the same vocabulary, with some hints, for the catalog rules. */
export function corpusCatalog(): ToolCatalogEntry[] {
  return [
    { name: 'read', hints: { readOnly: true } },
    { name: 'write' },
    { name: 'bash', hints: { destructive: true } },
    { name: 'grep', hints: { readOnly: true, idempotent: true } },
    { name: 'mcp__gh__list_issues', hints: { readOnly: true } },
    { name: 'mcp__gh__create_issue', hints: { openWorld: true } },
    { name: 'mcp__fs__read_file', hints: { readOnly: true } },
    { name: 'web_fetch', hints: { readOnly: true, openWorld: true } },
    { name: 'tool_a' },
    { name: 'unrelated_tool' },
  ];
}
