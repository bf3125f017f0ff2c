// Argument rules in the language and the compiler: `commands:`, `paths:` and `argument:` in a tool's rule
// object, validated strictly, compiled into per-rule tables, and decided per call with the ceiling across
// documents. Paths here resolve lexically; test/compile/decide/fs-path-resolver.test.ts covers the real filesystem.
import { describe, expect, it } from 'vitest';
import { CommandTable } from '../../../src/compile/decide/argument-tables.js';
import { decideCall, type CallInput } from '../../../src/compile/decide/call.js';
import { compileDocument } from '../../../src/compile/decide/document.js';
import { loadPolicyText } from '../../../src/compile/api.js';
import { lexicalPathResolver } from '../../../src/compile/decide/paths.js';
import { doc, policy } from '../helpers.js';

const ws = '/work/space';
const lexical = { resolvePath: lexicalPathResolver(ws) };

function messages(text: string): string[] {
  return loadPolicyText(text, 'p.yaml').diagnostics.map((d) => `${d.code}: ${d.message}`);
}

function read(path: string): CallInput {
  return { name: 'read', arguments: { path } };
}

describe('schema: argument rules', () => {
  it('rejects a misspelt key in a rule object with a did-you-mean', () => {
    expect(
      messages('mode: x\ntools:\n  bash: { decision: deny, comands: { "git log **": allow } }\n'),
    ).toEqual(['unknown-key: unknown key `comands` in `tools.bash`: did you mean `commands`?']);
    expect(messages('mode: x\ntools:\n  bash: { decision: deny, argumnt: x, paths: { a: deny } }\n')).toEqual(
      ['unknown-key: unknown key `argumnt` in `tools.bash`: did you mean `argument`?'],
    );
  });

  it('rejects a misspelt key in a pattern object and a misspelt decision', () => {
    expect(messages('mode: x\ntools:\n  read: { paths: { a: { decision: deny, reson: x } } }\n')).toEqual([
      'unknown-key: unknown key `reson` in `tools.read.paths.a`: did you mean `reason`?',
    ]);
    expect(
      messages('mode: x\ntools:\n  bash: { decision: deny, commands: { "git log **": alow } }\n'),
    ).toEqual([
      'invalid-decision: `alow` is not a decision for `tools.bash.commands.git log **`: did you mean `allow`?',
    ]);
  });

  it('needs `decision` unless the rule has patterns', () => {
    expect(messages('mode: x\ntools:\n  bash: { reason: why }\n')).toEqual([
      'missing-key: missing required key `decision` in `tools.bash`',
    ]);
    expect(messages('mode: x\ntools:\n  read: { paths: { ".env*": deny } }\n')).toEqual([]);
    expect(messages('mode: x\ntools:\n  bash: { commands: { "git log **": allow } }\n')).toEqual([]);
  });

  it('keeps patterns out of `effects`, and takes `args` in inline tests (misspelt: did-you-mean)', () => {
    expect(messages('mode: x\neffects:\n  readOnly: { decision: allow, commands: { a: deny } }\n')).toEqual([
      'unknown-key: unknown key `commands` in `effects.readOnly`',
    ]);
    const base = 'mode: x\ntools:\n  read: { paths: { ".env*": deny } }\ntests:\n';
    expect(messages(`${base}  - { tool: read, args: { path: x }, expect: deny }\n`)).toEqual([]);
    expect(messages(`${base}  - { tool: read, arg: { path: x }, expect: deny }\n`)).toEqual([
      'unknown-key: unknown key `arg` in `tests[0]`: did you mean `args`?',
    ]);
  });

  it('refuses a path pattern whose braces expand beyond the compile limit', () => {
    const pattern = '{a,b}'.repeat(11);
    expect(messages(`mode: x\ntools:\n  read: { decision: allow, paths: { "${pattern}": deny } }\n`)).toEqual(
      [
        `too-large: path pattern \`${pattern}\` expands to more than 1024 brace alternatives: the file is refused`,
      ],
    );
  });
});

describe('compileDocument: argument tables', () => {
  it('compiles each table with its default argument, specificity and pattern location', () => {
    const compiled = compileDocument(
      doc(
        [
          'mode: x',
          'tools:',
          '  bash:',
          '    decision: deny',
          '    commands:',
          '      "git log **": allow',
          '  mcp__fs__read_file:',
          '    argument: file_path',
          '    paths:',
          '      ".env*": { decision: deny, reason: secrets }',
        ].join('\n'),
      ),
    );
    const [bash, mcp] = compiled.rules;
    expect(bash!.base).toBe('deny');
    expect(bash!.decision).toBe('deny');
    expect(mcp!.decision).toBe('deny'); // no base: the least restrictive of its patterns
    const [commands] = bash!.arguments!;
    expect(commands!.kind).toBe('commands');
    expect(commands!.argument).toBe('command');
    expect(commands!.patterns[0]!.specificity).toBe(6);
    expect(commands!.patterns[0]!.ref).toEqual({
      selector: 'git log **',
      file: 'test.yaml',
      line: 6,
      column: 7,
    });
    expect(mcp!.base).toBeUndefined();
    const [paths] = mcp!.arguments!;
    expect(paths!.argument).toBe('file_path');
    expect(paths!.patterns[0]!).toMatchObject({ source: '.env*', decision: 'deny', reason: 'secrets' });
  });

  it('leaves name-only rules without tables', () => {
    const compiled = compileDocument(doc('mode: x\ntools:\n  read: allow\n  write: { decision: deny }\n'));
    expect(compiled.rules.map((r) => r.arguments)).toEqual([undefined, undefined]);
  });
});

describe('decideCall: paths', () => {
  const p = policy(
    'x',
    [
      'mode: x',
      'tools:',
      '  read:',
      '    decision: deny',
      '    paths:',
      '      "**": allow',
      '      ".env*": { decision: deny, reason: no secrets }',
      '      "notes/**/*.md": allow',
      '      "notes/private/**": ask',
      '      "/etc/**": deny',
    ].join('\n'),
  );

  it('allows a path an allow pattern matches, normalised lexically', () => {
    for (const path of ['src/a.ts', './src/a.ts', 'src//a.ts', 'x/../src/a.ts', `${ws}/src/a.ts`]) {
      const r = decideCall(p, read(path), lexical);
      expect(r.decision, path).toBe('allow');
      expect(r.subject).toBe(path);
      expect(r.pattern?.selector).toBe('**');
    }
  });

  it('picks the most specific pattern, and the most restrictive among equals', () => {
    expect(decideCall(p, read('.env.local'), lexical)).toMatchObject({
      decision: 'deny',
      reason: 'no secrets',
      pattern: { selector: '.env*', file: 'doc0.yaml', line: 7 },
    });
    expect(decideCall(p, read('notes/private/a.md'), lexical).decision).toBe('ask');
    expect(decideCall(p, read('notes/a.md'), lexical).pattern?.selector).toBe('notes/**/*.md');
  });

  it('never allows a path outside the workspace: `..` out, absolute paths elsewhere', () => {
    for (const path of ['../other/x', 'src/../../x', '/tmp/x', '/work/spaceship/x']) {
      const r = decideCall(p, read(path), lexical);
      expect(r.decision, path).toBe('deny');
      expect(r.pattern, path).toBeUndefined(); // the base decides: `**` cannot reach outside
      expect(r.note).toContain('outside the workspace');
    }
    // An absolute pattern still denies outside.
    expect(decideCall(p, read('/etc/passwd'), lexical).pattern?.selector).toBe('/etc/**');
  });

  it('matches deny and ask patterns case-insensitively and allow patterns case-sensitively', () => {
    // On a case-insensitive filesystem `.ENV` is `.env`: the deny must catch it.
    expect(decideCall(p, read('.ENV'), lexical).decision).toBe('deny');
    expect(decideCall(p, read('NOTES/PRIVATE/a.md'), lexical).decision).toBe('ask');
    const q = policy('x', 'mode: x\ntools:\n  read: { decision: deny, paths: { "notes/**": allow } }\n');
    expect(decideCall(q, read('notes/a'), lexical).decision).toBe('allow');
    expect(decideCall(q, read('NOTES/a'), lexical).decision).toBe('deny');
  });

  it('matches dotfiles with `*` and `**`', () => {
    const q = policy('x', 'mode: x\ntools:\n  read: { decision: allow, paths: { "**/secret*": deny } }\n');
    expect(decideCall(q, read('a/.b/secret.txt'), lexical).decision).toBe('deny');
    expect(decideCall(q, read('.secret'), lexical).decision).toBe('allow'); // `**/` needs a folder…
    const r = policy(
      'x',
      'mode: x\ntools:\n  read: { decision: allow, paths: { "{,**/}.secret*": deny } }\n',
    );
    expect(decideCall(r, read('.secret'), lexical).decision).toBe('deny'); // …or a brace alternative
  });

  it('fails closed on a missing or non-string argument: ask when the base allows, else the base', () => {
    const allowBase = policy('x', 'mode: x\ntools:\n  read: { decision: allow, paths: { ".env*": deny } }\n');
    expect(decideCall(allowBase, { name: 'read', arguments: {} }, lexical)).toMatchObject({
      decision: 'ask',
      unanalysable: true,
      note: 'argument `path` is missing',
    });
    expect(decideCall(allowBase, { name: 'read', arguments: { path: 3 } }, lexical).decision).toBe('ask');
    expect(decideCall(p, { name: 'read' }, lexical).decision).toBe('deny');
  });

  it('reads the argument `argument:` names', () => {
    const q = policy(
      'x',
      'mode: x\ntools:\n  mcp__fs__read_file: { decision: allow, argument: file_path, paths: { ".env*": deny } }\n',
    );
    const call = (args: object) => ({ name: 'mcp__fs__read_file', arguments: args });
    expect(decideCall(q, call({ file_path: '.env' }), lexical).decision).toBe('deny');
    expect(decideCall(q, call({ file_path: 'a' }), lexical).decision).toBe('allow');
    expect(decideCall(q, call({ path: '.env' }), lexical).decision).toBe('ask'); // its argument is missing
  });
});

describe('decideCall: the ceiling across documents', () => {
  const plan = 'mode: plan\ntools:\n  read: allow\n  write: deny\ndefault: deny\n';

  it('lets a rule object without `decision` narrow and abstain on everything else', () => {
    const p = policy('plan', plan, 'mode: plan\ntools:\n  read: { paths: { ".env*": deny } }\n');
    expect(decideCall(p, read('.env'), lexical)).toMatchObject({
      decision: 'deny',
      rule: { selector: 'read', file: 'doc1.yaml' },
      pattern: { selector: '.env*', file: 'doc1.yaml' },
    });
    expect(decideCall(p, read('README.md'), lexical)).toMatchObject({
      decision: 'allow',
      rule: { selector: 'read', file: 'doc0.yaml' },
    });
    expect(p.visible('read')).toBe(true);
  });

  it('never widens: an operator allow pattern does not lift the plan deny', () => {
    const p = policy(
      'plan',
      plan,
      'mode: plan\ntools:\n  write: { decision: allow, paths: { "notes/**": allow } }\n',
    );
    expect(decideCall(p, { name: 'write', arguments: { path: 'notes/a.md' } }, lexical)).toMatchObject({
      decision: 'deny',
      rule: { selector: 'write', file: 'doc0.yaml' },
    });
  });

  it('widens only with `override: true`', () => {
    const p = policy(
      'plan',
      plan,
      'mode: plan\noverride: true\ntools:\n  write: { decision: deny, paths: { "notes/**": allow } }\n',
    );
    const write = (path: string) => ({ name: 'write', arguments: { path } });
    expect(decideCall(p, write('notes/a.md'), lexical).decision).toBe('allow');
    expect(decideCall(p, write('src/a.ts'), lexical).decision).toBe('deny');
  });

  it('denies what no document decides completely', () => {
    // The only rule abstains on `README.md` and nothing else decides it: the default deny.
    const p = policy('x', 'mode: x\ntools:\n  read: { paths: { "notes/**": allow } }\n');
    expect(decideCall(p, read('notes/a'), lexical).decision).toBe('allow');
    expect(decideCall(p, read('README.md'), lexical)).toMatchObject({
      decision: 'deny',
      rule: { selector: 'default', file: null },
    });
  });

  it('leaves what a rule abstains on to the rest of its document', () => {
    const p = policy(
      'x',
      'mode: x\ntools:\n  read: { paths: { "notes/**": allow } }\n  "*": ask\ndefault: deny\n',
    );
    expect(decideCall(p, read('notes/a'), lexical).decision).toBe('allow');
    expect(decideCall(p, read('README.md'), lexical)).toMatchObject({
      decision: 'ask',
      rule: { selector: '*' },
    });
  });

  it('answers the name-level lookup for policies without argument rules', () => {
    const p = policy('plan', plan);
    expect(decideCall(p, read('.env'), lexical)).toBe(p.decide('read'));
  });

  it('hides a tool only when every call to it is denied', () => {
    const hidden = policy('x', 'mode: x\ntools:\n  read: { decision: deny, paths: { ".env": deny } }\n');
    expect(hidden.visible('read')).toBe(false);
    const shown = policy('x', 'mode: x\ntools:\n  read: { decision: deny, paths: { "notes/**": allow } }\n');
    expect(shown.visible('read')).toBe(true);
  });
});

describe('decideCall: commands', () => {
  const p = policy(
    'x',
    [
      'mode: x',
      'tools:',
      '  bash:',
      '    decision: deny',
      '    commands:',
      '      "git log **": allow',
      '      "git status": allow',
      '      "git push **": deny',
      '      "sort **": allow',
      '      "sort ** -o **": deny',
    ].join('\n'),
  );
  const bash = (command: string): CallInput => ({ name: 'bash', arguments: { command } });

  it('judges each simple command and takes the most restrictive', () => {
    expect(decideCall(p, bash('git log -5'))).toMatchObject({
      decision: 'allow',
      subject: 'git log -5',
      pattern: { selector: 'git log **', file: 'doc0.yaml', line: 6, column: 7 },
    });
    const chained = decideCall(p, bash('git log; rm -rf x'));
    expect(chained).toMatchObject({ decision: 'deny', subject: 'rm -rf x' });
    expect(chained.commands?.map((c) => [c.text, c.decision])).toEqual([
      ['git log', 'allow'],
      ['rm -rf x', 'deny'],
    ]);
  });

  it('matches an exact pattern only at its word count, and words however they are spaced', () => {
    expect(decideCall(p, bash('git status')).decision).toBe('allow');
    expect(decideCall(p, bash('git status -s')).decision).toBe('deny');
    expect(decideCall(p, bash('git  log')).decision).toBe('allow');
  });

  it('splits bundled short options before matching', () => {
    expect(decideCall(p, bash('sort -uo out f'))).toMatchObject({
      decision: 'deny',
      pattern: { selector: 'sort ** -o **' },
    });
    expect(decideCall(p, bash('sort -u f')).decision).toBe('allow');
  });

  it('fails closed on what the analyser cannot explain: the base, or ask when the base allows', () => {
    for (const script of ['X=1 git log', 'git log > out', 'git log $(echo --output=x)', 'f() { git log; }']) {
      expect(decideCall(p, bash(script)).decision, script).toBe('deny');
    }
    const open = policy('x', 'mode: x\ntools:\n  bash: { decision: allow, commands: { "rm **": deny } }\n');
    expect(decideCall(open, bash('git log > out'))).toMatchObject({ decision: 'ask', unanalysable: true });
    expect(decideCall(open, bash('ls; rm -rf /')).decision).toBe('deny'); // a deny still fires
    expect(decideCall(open, bash('ls')).decision).toBe('allow');
  });

  it('narrows across documents and never widens without `override`', () => {
    const narrowed = policy(
      'x',
      'mode: x\ntools:\n  bash: { decision: deny, commands: { "git log **": allow } }\n',
      'mode: x\ntools:\n  bash: { commands: { "git log -p **": deny } }\n',
    );
    expect(decideCall(narrowed, bash('git log -p'))).toMatchObject({
      decision: 'deny',
      rule: { file: 'doc1.yaml' },
      pattern: { selector: 'git log -p **' },
    });
    expect(decideCall(narrowed, bash('git log -5')).decision).toBe('allow');
    const widened = policy(
      'x',
      'mode: x\ntools:\n  bash: { decision: deny, commands: { "git log **": allow } }\n',
      'mode: x\ntools:\n  bash: { decision: allow, commands: { "rm **": allow } }\n',
    );
    expect(decideCall(widened, bash('rm x')).decision).toBe('deny');
  });

  it('judges a script afresh each time, the same way', () => {
    const first = decideCall(p, bash('git log -5'));
    expect(decideCall(p, bash('git log -5'))).toEqual(first);
    const table = p.documents![0]!.rules[0]!.arguments![0]!;
    expect(table).toBeInstanceOf(CommandTable);
    const context = { resolvePath: lexicalPathResolver(), tool: 'bash' };
    const once = (table as CommandTable).judge({ command: 'git log -7' }, context);
    expect((table as CommandTable).judge({ command: 'git log -7' }, context)).toEqual(once);
    expect((table as CommandTable).judge({ command: 'git push' }, context)[0]!.decision).toBe('deny');
    expect(decideCall(p, bash('git push')).decision).toBe('deny');
  });
});

describe('decideCall: repeated calls', () => {
  const text = [
    'mode: x',
    'tools:',
    '  bash:',
    '    decision: deny',
    '    commands:',
    '      "git log **": allow',
    '      "git push **": deny',
    'effects:',
    '  readOnly: allow',
    'default: deny',
  ].join('\n');
  const bash = (command: string): CallInput => ({ name: 'bash', arguments: { command } });

  it('answers a repeated call with the decision a fresh policy computes', () => {
    const p = policy('x', text);
    const once = decideCall(p, bash('git log -5 && git push'));
    const again = decideCall(p, bash('git log -5 && git push'));
    expect(again).toEqual(once);
    expect(again).toEqual(decideCall(policy('x', text), bash('git log -5 && git push')));
    expect(again.decision).toBe('deny');
    expect(decideCall(p, bash('git log -5')).decision).toBe('allow');
  });

  it('gives each caller its own decision object, so changing one changes no later answer', () => {
    const p = policy('x', text);
    const first = decideCall(p, bash('git log -5 && git push'));
    (first as { decision: string }).decision = 'allow';
    first.commands!.length = 0;
    const second = decideCall(p, bash('git log -5 && git push'));
    expect(second.decision).toBe('deny');
    expect(second.commands).toHaveLength(2);
  });

  it('keeps the decision of the text alone, and asks each call’s workspace check about git again', () => {
    const p = policy('x', text);
    const asked: string[] = [];
    const clean = (program: string) => (asked.push(program), undefined);
    const hostile = () => 'the repository names a program';
    expect(decideCall(p, bash('git log -5'), { checkProgram: clean }).decision).toBe('allow');
    const withheld = decideCall(p, bash('git log -5'), { checkProgram: hostile });
    expect(withheld).toMatchObject({
      decision: 'deny',
      withheld: true,
      note: 'the repository names a program',
    });
    expect(decideCall(p, bash('git log -5'), { checkProgram: clean }).decision).toBe('allow');
    expect(decideCall(p, bash('git log -5')).decision).toBe('allow');
    expect(asked).toEqual(['git', 'git']);
    // A deny needs no check.
    expect(decideCall(p, bash('git push'), { checkProgram: hostile }).withheld).toBeUndefined();
  });

  it('decides by hints as well as by name', () => {
    const p = policy('x', text);
    expect(decideCall(p, { name: 'other', hints: { readOnly: true } }).decision).toBe('allow');
    expect(decideCall(p, { name: 'other' }).decision).toBe('deny');
    expect(decideCall(p, { name: 'other', hints: { readOnly: true } }).decision).toBe('allow');
  });

  it('keys by every argument the rules that can take part read, through abstentions', () => {
    // `bash` has no base, so it abstains on what it does not match; `ba*` then judges the argument `other`.
    const p = policy(
      'x',
      [
        'mode: x',
        'tools:',
        '  bash: { commands: { "git log **": allow } }',
        '  "ba*": { decision: deny, argument: other, commands: { "rm **": ask } }',
      ].join('\n'),
    );
    const call = (command: string, other: string): CallInput => ({
      name: 'bash',
      arguments: { command, other },
    });
    expect(decideCall(p, call('rm x', 'rm y')).decision).toBe('ask');
    expect(decideCall(p, call('rm x', 'ls')).decision).toBe('deny');
    expect(decideCall(p, call('rm x', 'rm y')).decision).toBe('ask');
    expect(decideCall(p, call('git log', 'ls')).decision).toBe('allow');
  });

  it('asks the path resolver on every call: a path decision is never memoised', () => {
    const p = policy('x', 'mode: x\ntools:\n  read: { decision: deny, paths: { "**": allow } }\n');
    let inside = true;
    const resolvePath = (path: string) =>
      lexicalPathResolver(inside ? ws : '/elsewhere')(inside ? `${ws}/${path}` : `/work/space/${path}`);
    expect(decideCall(p, read('a.txt'), { resolvePath }).decision).toBe('allow');
    inside = false;
    expect(decideCall(p, read('a.txt'), { resolvePath }).decision).toBe('deny');
  });
});
