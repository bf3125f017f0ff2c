/**
 * `cordis.yml` entry names and config keys are looked up as own names only: a name inherited from
 * `Object.prototype` (`constructor`, `toString`, `__proto__`, `hasOwnProperty`) is an unknown plugin (a plain-object
 * lookup passed it as known and then silently dropped it at start, where a typo must be an error), and such a
 * config key is an "unknown config key", not a nonsense type message.
 */
import { describe, expect, it } from 'vitest';
import { parseDeployment } from '../../src/deploy/index.js';

const issues = (text: string) =>
  parseDeployment(text, 'cordis.yml', '/base').diagnostics.map(
    (d) => `${d.range?.start.line}:${d.range?.start.column} ${d.message}`,
  );

describe('plugin names and config keys are own names only', () => {
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    it(`\`- name: ${name}\` is an unknown plugin`, () => {
      const found = issues(`- name: host\n- name: ${name}\n`);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(new RegExp(`^2:9 unknown plugin \`${name}\``));
    });
  }

  it('a config key named after an Object.prototype member is an unknown key', () => {
    expect(issues('- name: host\n  config:\n    toString: x\n')).toEqual([
      '3:5 unknown key `toString` in `config` of entry 1 (`host`)',
    ]);
  });
});
