/**
 * The shape of the plugin's config, checked before any policy is loaded: the envelope (`policies`, `modes`, the
 * loader's `source`) and the inline documents as the policy validator expects them (with their mode from the key
 * and positions through `source`). Every problem is reported through `fail` as an error at its config path.
 * @module
 */
import type { LoadCode } from '../compile/diagnostics.js';
import type { ParsedDocument } from '../compile/parse.js';
import { suggest } from '../compile/suggest.js';
import type { JsonPath, Range } from '../compile/types.js';
import type { ConfigSource } from './config.js';
import { DEFAULT_MODE } from './vocabulary.js';

const CONFIG_KEYS = ['policies', 'modes'];
const MODE_NAME = /^[a-z][a-z0-9-]*$/;

/** Reports one config error at a path. */
export type Fail = (code: LoadCode, message: string, path: JsonPath, help?: string) => void;

/**
 * Checks the config's own shape (everything but the inline documents' contents, which the policy validator
 * checks): a mapping with `policies` (non-empty paths) and `modes` (valid, unreserved names mapped to mappings).
 * @param raw the config as given
 * @param hasSource whether a loader-provided `source` sits beside the keys (then it is not an unknown key)
 * @param fail reports one error at a config path
 * @returns the usable paths and inline documents
 */
export function checkEnvelope(
  raw: unknown,
  hasSource: boolean,
  fail: Fail,
): { policies: string[]; inline: [string, Record<string, unknown>][] } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    fail('invalid-type', `the mode config must be a mapping: got ${kindOf(raw)}`, []);
    return { policies: [], inline: [] };
  }
  const record = raw as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (CONFIG_KEYS.includes(key) || (key === 'source' && hasSource)) continue;
    const [near] = suggest(key, CONFIG_KEYS);
    fail(
      'unknown-key',
      `unknown key \`${key}\` in the mode config${near ? `: did you mean \`${near}\`?` : ''}`,
      [key],
      'allowed keys here: `policies`, `modes`',
    );
  }
  return { policies: checkPolicies(record.policies, fail), inline: checkModes(record.modes, fail) };
}

/**
 * The loader's `source`, when the config carries a usable one (a user-written `source:` is not one).
 * @param raw the config as given
 * @returns the source, or undefined
 */
export function sourceOf(raw: unknown): ConfigSource | undefined {
  const s = (raw as { source?: unknown } | null)?.source as Partial<ConfigSource> | undefined;
  if (!s || typeof s !== 'object') return undefined;
  if (typeof s.locate !== 'function' || typeof s.file !== 'string' || typeof s.baseDir !== 'string')
    return undefined;
  return s as ConfigSource;
}

function checkPolicies(value: unknown, fail: Fail): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    fail('invalid-type', `\`policies\` must be a list of paths: got ${kindOf(value)}`, ['policies']);
    return [];
  }
  const out: string[] = [];
  value.forEach((item, i) => {
    if (typeof item === 'string' && item !== '') out.push(item);
    else
      fail('invalid-type', `\`policies[${i}]\` must be a non-empty path: got ${kindOf(item)}`, [
        'policies',
        i,
      ]);
  });
  return out;
}

function checkModes(value: unknown, fail: Fail): [string, Record<string, unknown>][] {
  if (value === undefined) return [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fail('invalid-type', `\`modes\` must be a mapping of mode name to policy: got ${kindOf(value)}`, [
      'modes',
    ]);
    return [];
  }
  const out: [string, Record<string, unknown>][] = [];
  for (const [key, body] of Object.entries(value as Record<string, unknown>)) {
    if (key === DEFAULT_MODE) {
      fail(
        'reserved-mode-name',
        'mode name `default` is reserved: it means no mode',
        ['modes', key],
        'pick another name',
      );
    } else if (!MODE_NAME.test(key)) {
      fail(
        'invalid-mode-name',
        `invalid mode name \`${key}\`: use lowercase letters, digits and dashes, starting with a letter`,
        ['modes', key],
      );
    } else if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      fail('invalid-type', `\`modes.${key}\` must be a policy mapping: got ${kindOf(body)}`, ['modes', key]);
    } else {
      out.push([key, body as Record<string, unknown>]);
    }
  }
  return out;
}

/** An inline document as the validator expects a parsed one: data with its mode, positions through `source`. */
export function inlineDocument(
  key: string,
  body: Record<string, unknown>,
  file: string | null,
  at: (path: JsonPath) => Range | undefined,
  keyAt: (path: JsonPath) => Range | undefined,
): ParsedDocument {
  const locate = (path: JsonPath) => at(['modes', key, ...path]);
  const keyRange = (path: JsonPath) => keyAt(['modes', key, ...path]);
  return { file, text: '', data: { mode: key, ...body }, diagnostics: [], locate, keyRange };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a mapping' : `${typeof value} \`${String(value)}\``;
}
