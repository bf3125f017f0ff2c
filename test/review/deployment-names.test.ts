/**
 * Review finding: `cordis.yml` entry names and config keys were looked up in plain objects, so names inherited
 * from `Object.prototype` (`constructor`, `toString`, `__proto__`, `hasOwnProperty`) passed as known plugins and
 * were then silently dropped at start (a typo-class input that must be an error, DESIGN.md section 6), and such a
 * config key got a nonsense type message instead of "unknown config key".
 */
import { describe, expect, it } from 'vitest';
import { parseDeployment } from '../../src/deploy/index.js';

const issues = (text: string) =>
  parseDeployment(text, 'cordis.yml', '/base').diagnostics.map(
    (d) => `${d.range?.start.line}:${d.range?.start.column} ${d.message}`,
  );

describe('review: plugin names and config keys are own names only', () => {
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
