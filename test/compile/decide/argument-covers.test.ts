// `commandCovers` and `pathCovers` (src/compile/decide/argument-overlap.ts) prove that one argument pattern matches every
// command or path another matches; lint's shadowed-pattern finding rests on them. Checked here against the real
// matchers over generated patterns and subjects: a proof that a subject contradicts would be a wrong finding.
// Subjects are drawn as instances of the specific pattern, and the general pattern is often the specific one
// generalised, so that most runs reach the claim.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandCovers, pathAlternatives, pathCovers } from '../../../src/compile/decide/argument-overlap.js';
import { matchCommand, type ShellWord } from '../../../src/compile/shell/index.js';

const PATTERN_WORDS = ['a', 'ab', 'b', '*', 'a*', '*b', '**', '/a', '*/a', '-*', '-a'];
const FILLS = ['', 'a', 'b', 'ab', '/', '-'];
const word = (value: string): ShellWord => ({ text: value, value, known: true });
const unknown: ShellWord = { text: '$X', value: '', known: false };

/** A pattern, and the same pattern with some words generalised (a letter to `*`, a word to `*` or `**`). */
function generalised(items: fc.Arbitrary<string[]>, general: (item: string) => fc.Arbitrary<string>) {
  return items.chain((specific) =>
    fc.tuple(
      fc.constant(specific),
      fc.oneof(
        items,
        fc.tuple(...specific.map((w) => fc.oneof(fc.constant(w), general(w)))).map((ws) => ws as string[]),
      ),
    ),
  );
}

const commandPair = generalised(
  fc.array(fc.constantFrom(...PATTERN_WORDS), { minLength: 1, maxLength: 4 }),
  (w) => fc.constantFrom('*', '**', w.replace(/^./, '*'), `${w}*`),
);

/** A command the pattern's words spell: `**` as 0–2 words, `*` as a fill, some words unknown. */
function instance(pattern: readonly string[]): fc.Arbitrary<ShellWord[]> {
  const parts = pattern.map((w) =>
    w === '**'
      ? fc.array(fc.oneof(fc.constantFrom(...FILLS).map(word), fc.constant(unknown)), { maxLength: 2 })
      : fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...FILLS).map((f) => [word(w.replace(/\*/g, f))]) },
          { weight: 1, arbitrary: fc.constant([unknown]) },
        ),
  );
  return fc.tuple(...parts).map((ws) => ws.flat());
}

const SEGMENTS = ['a', 'ab', '*', 'a*', '*b', '?', '**', '.e*', 'b?', 'A'];
const SEGMENT_FILLS = ['', 'a', 'b', '.e', 'B'];

const pathPair = fc
  .boolean()
  .chain((absolute) =>
    generalised(fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 3 }), (s) =>
      fc.constantFrom('*', '**', s.replace(/^./, '?'), `${s}*`),
    ).map(([s, g]) => [(absolute ? '/' : '') + s.join('/'), (absolute ? '/' : '') + g.join('/')] as const),
  );

/** A path the pattern spells: `**` as 0–2 segments, `*` as a fill, `?` as one letter. */
function pathInstance(pattern: string): fc.Arbitrary<string> {
  const segments = pattern
    .split('/')
    .map((s) =>
      s === '**'
        ? fc.array(fc.constantFrom('a', 'b', '.e', 'x'), { maxLength: 2 })
        : fc
            .tuple(fc.constantFrom(...SEGMENT_FILLS), fc.constantFrom('a', 'b', 'E'))
            .map(([fill, one]) => [s.replace(/\*+/g, fill).replace(/\?/g, one)]),
    );
  return fc.tuple(...segments).map((ss) => ss.flat().join('/'));
}

describe('commandCovers', () => {
  it('proves only what the matcher agrees with, for allow and for deny patterns', () => {
    let checked = 0;
    fc.assert(
      fc.property(
        commandPair.chain(([s, g]) => fc.tuple(fc.constant(s), fc.constant(g), instance(s), fc.boolean())),
        ([s, g, words, forAllow]) => {
          const general = g.join(' ');
          const specific = s.join(' ');
          if (!commandCovers(general, specific, forAllow)) return;
          if (!matchCommand(specific, words, { forAllow })) return;
          checked++;
          expect(matchCommand(general, words, { forAllow }), `${general} ⊇ ${specific}`).toBe(true);
        },
      ),
      { numRuns: 10_000 },
    );
    // Enough generated cases reach the claim for the property to mean something.
    expect(checked).toBeGreaterThan(1000);
  });

  it('proves the covers a reader expects, and not their converses', () => {
    const yes: [string, string][] = [
      ['git **', 'git *'],
      ['git **', 'git log **'],
      ['git l*', 'git log'],
      ['* log', 'git log'],
      ['**', 'rm -rf *'],
    ];
    for (const [general, specific] of yes) {
      expect(commandCovers(general, specific, false), `${general} ⊇ ${specific}`).toBe(true);
      expect(commandCovers(specific, general, false), `${specific} ⊉ ${general}`).toBe(false);
    }
    expect(commandCovers('ls **', 'ls ** **', true)).toBe(true);
    expect(commandCovers('make  *', 'make *', true)).toBe(true);
    // An allow sees a name with a `/` only as that exact text.
    expect(commandCovers('*/git log', '/bin/git log', true)).toBe(false);
    expect(commandCovers('*/git log', '/bin/git log', false)).toBe(true);
  });
});

describe('pathCovers', () => {
  it('proves only what the matcher agrees with, for allow and for deny patterns', () => {
    let checked = 0;
    fc.assert(
      fc.property(
        pathPair.chain(([s, g]) => fc.tuple(fc.constant(s), fc.constant(g), pathInstance(s), fc.boolean())),
        ([s, g, path, forAllow]) => {
          for (const general of pathAlternatives(g))
            for (const specific of pathAlternatives(s)) {
              if (!pathCovers(general, specific) || !specific.matches(path, forAllow)) continue;
              checked++;
              expect(general.matches(path, forAllow), `${g} ⊇ ${s} at ${path}`).toBe(true);
            }
        },
      ),
      { numRuns: 5_000 },
    );
    expect(checked).toBeGreaterThan(500);
  });

  it('proves the covers a reader expects, and leaves classes alone', () => {
    const covers = (g: string, s: string) => pathCovers(pathAlternatives(g)[0]!, pathAlternatives(s)[0]!);
    expect(covers('src/**', 'src/*.ts')).toBe(true);
    expect(covers('**', '.env*')).toBe(true);
    expect(covers('a*', 'a?')).toBe(true);
    expect(covers('/etc/**', '/etc/passwd')).toBe(true);
    expect(covers('src/*.ts', 'src/**')).toBe(false);
    expect(covers('a?', 'a*')).toBe(false);
    expect(covers('**', '/etc/passwd')).toBe(false);
    expect(covers('c/*', 'c/[ab]')).toBe(false);
  });
});
