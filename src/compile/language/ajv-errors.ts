/**
 * The one translator from ajv errors to diagnostics, for every precompiled validator (policy documents, the
 * deployment file, the mode plugin's config).
 *
 * Contract: every ajv error is mapped to a diagnostic on the node it concerns, with a code from {@link LoadCode};
 * unknown keys point at the key and suggest the nearest allowed key, and a value outside an `enum` suggests the
 * nearest allowed value. Redundant errors (a failed `oneOf` whose branch explains it, the type errors of branches
 * that do not apply, the `if` of a conditional whose `then` failed) are dropped; every independent finding is
 * kept, so one bad rule never hides another.
 * @module
 */
import type { ErrorObject } from 'ajv';
import { makeDiagnostic, type LoadCode, type LoadDiagnostic } from './diagnostics.js';
import { suggest } from './suggest.js';
import type { JsonPath, Range } from '../types.js';

/** What the errors are about: the validated data and position lookups into its source. */
export interface ValidatedSource {
  file: string | null;
  data: unknown;
  locate(path: JsonPath): Range | undefined;
  keyRange(path: JsonPath): Range | undefined;
}

/** How a translation names places. */
export interface TranslateOptions {
  /** A path as people read it, in backticks, or '' for the whole document (default: `tools.web_*`). */
  describe?: (path: JsonPath) => string;
}

/**
 * Translates a validator's errors.
 * @param errors ajv's errors (`allErrors`, `verbose`)
 * @param source the validated data and its positions
 * @returns one diagnostic per independent finding, unsorted
 */
export function schemaDiagnostics(
  errors: readonly ErrorObject[],
  source: ValidatedSource,
  options: TranslateOptions = {},
): LoadDiagnostic[] {
  const describe = options.describe ?? describePath;
  return relevantErrors(errors).map((error) => toDiagnostic(error, source, describe));
}

/** Drops errors that a more precise error at the same or a deeper place already explains. */
function relevantErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    const list = byPath.get(e.instancePath) ?? [];
    list.push(e);
    byPath.set(e.instancePath, list);
  }
  const out: ErrorObject[] = [];
  for (const [path, list] of byPath) {
    const branchy = list.some((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
    // `maxProperties: 0` beside `additionalProperties: false` says the same of each key: keep the keyed error.
    let kept = list.some((e) => e.keyword === 'additionalProperties')
      ? list.filter((e) => e.keyword !== 'maxProperties')
      : list;
    if (branchy) {
      // A branch whose type does not fit the value is irrelevant: drop its errors (Spectral's approach).
      const wrongType = new Set(list.filter((e) => e.keyword === 'type').map((e) => e.parentSchema));
      kept = kept.filter((e) => !wrongType.has(e.parentSchema) && e.keyword !== 'type');
      const deeper = errors.some((e) => e.instancePath.startsWith(path + '/'));
      const explained = kept.some((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf') || deeper;
      if (explained) kept = kept.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf');
    }
    // A `propertyNames` failure always comes with the inner error that says why, and a failed `if`/`then` with
    // the errors of `then`: keep those.
    for (const e of kept) if (e.keyword !== 'propertyNames' && e.keyword !== 'if') out.push(e);
  }
  return out;
}

function toDiagnostic(
  error: ErrorObject,
  parsed: ValidatedSource,
  describe: (path: JsonPath) => string,
): LoadDiagnostic {
  const path = pointerToPath(error.instancePath, parsed.data);
  const where = describe(path);
  const at = (code: LoadCode, message: string, keyPath = path, help?: string, useKey = false) =>
    makeDiagnostic(
      code,
      'error',
      message,
      parsed.file,
      keyPath,
      (useKey ? parsed.keyRange(keyPath) : parsed.locate(keyPath)) ?? parsed.locate([]),
      help,
    );
  const parent = error.parentSchema as { title?: string; properties?: Record<string, unknown> } | undefined;
  if (error.propertyName !== undefined && isModeName(error)) {
    // A mode name as a key (inline `modes`): reported like a `mode:` value, at the key.
    const key = error.propertyName;
    return error.keyword === 'not'
      ? at(
          'reserved-mode-name',
          'mode name `default` is reserved: it means no mode',
          [...path, key],
          'pick another name',
          true,
        )
      : at(
          'invalid-mode-name',
          `invalid mode name ${show(key)}: use lowercase letters, digits and dashes, starting with a letter`,
          [...path, key],
          undefined,
          true,
        );
  }
  if (error.propertyName !== undefined) {
    const key = error.propertyName;
    const why = error.keyword === 'minLength' ? 'must not be empty' : String(error.message);
    return at(
      'schema',
      `key \`${key}\`${where ? ` in ${where}` : ''} ${why}`,
      [...path, key],
      undefined,
      true,
    );
  }
  if (error.keyword === 'minLength') {
    return at('schema', `${where || 'document'} must not be empty`);
  }
  if (error.keyword === 'pattern' && isModeName(error)) {
    return at(
      'invalid-mode-name',
      `invalid mode name ${show(error.data)}: use lowercase letters, digits and dashes, starting with a letter`,
    );
  }
  if (error.keyword === 'not' && isModeName(error)) {
    return at(
      'reserved-mode-name',
      'mode name `default` is reserved: it means no mode',
      path,
      'pick another name',
    );
  }
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const allowed = Object.keys(parent?.properties ?? {});
      if (allowed.length === 0) {
        return at(
          'unknown-key',
          `unknown key \`${key}\`${where ? ` in ${where}` : ''}: it takes no keys`,
          [...path, key],
          undefined,
          true,
        );
      }
      const [near] = suggest(key, allowed);
      const message = `unknown key \`${key}\`${where ? ` in ${where}` : ''}${near ? `: did you mean \`${near}\`?` : ''}`;
      const help = `allowed keys here: ${allowed.map((k) => `\`${k}\``).join(', ')}`;
      return at('unknown-key', message, [...path, key], help, true);
    }
    case 'required': {
      const key = String((error.params as { missingProperty: string }).missingProperty);
      // The help says what the key is, from the schema's own description of it (the one editors show).
      const described = (parent?.properties?.[key] as { description?: unknown } | undefined)?.description;
      const help =
        typeof described === 'string'
          ? `add \`${key}:\`, ${lowerFirst(described.replace(/\.$/, ''))}`
          : `add \`${key}:\``;
      return at(
        'missing-key',
        `missing required key \`${key}\`${where ? ` in ${where}` : ''}`,
        path,
        help,
        true,
      );
    }
    case 'enum':
    case 'oneOf':
    case 'anyOf': {
      if (isDecisionPlace(error)) {
        const value = show(error.data);
        const [near] = typeof error.data === 'string' ? nearDecision(error.data) : [];
        const tail = near ? `: did you mean \`${near}\`?` : '';
        return at(
          'invalid-decision',
          `${value} is not a decision${where ? ` for ${where}` : ''}${tail}`,
          path,
          error.keyword === 'enum'
            ? 'use `allow`, `deny` or `ask`'
            : 'use `allow`, `deny`, `ask` or `{ decision, reason }`',
        );
      }
      if (error.keyword === 'enum') {
        const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
        const names = allowed.filter((v): v is string => typeof v === 'string');
        const [near] = typeof error.data === 'string' ? suggest(error.data, names) : [];
        // A titled enum names what it lists, and its place is then plain (`PluginName`: "unknown plugin `x`").
        const noun = parent?.title
          ?.replace(/Name$/, '')
          .replace(/(?<=[a-z])([A-Z])/g, ' $1')
          .toLowerCase();
        const place = noun ? '' : where ? ` for ${where}` : '';
        return at(
          'schema',
          `unknown ${noun || 'value'} ${show(error.data)}${place}${near ? `: did you mean \`${near}\`?` : ''}`,
          path,
          `use ${allowed.map((v) => show(v)).join(', ')}`,
        );
      }
      return at('schema', `${where || 'document'} ${String(error.message)}`);
    }
    case 'type': {
      // The schema has no union types, so ajv names exactly one.
      const expected = String((error.params as { type: string }).type);
      return at(
        'invalid-type',
        `${where || 'document'} must be ${article(expected)}: got ${kindOf(error.data)}`,
      );
    }
    default:
      return at('schema', `${where || 'document'} ${String(error.message)}`);
  }
}

/**
 * The decision a wrong word meant: the nearest by spelling, or the verb a form of it names (`denied` is three
 * edits from `deny`, too far for spelling alone, as `allowed` is not).
 */
function nearDecision(word: string): string[] {
  const near = suggest(word, ['allow', 'deny', 'ask']);
  if (near.length > 0) return near;
  const form = /^(?:(allow)(?:s|ed|ing)?|(den)(?:y|ies|ied|ying)|(ask)(?:s|ed|ing)?)$/i.exec(word.trim());
  if (!form) return [];
  return [form[1] ? 'allow' : form[2] ? 'deny' : 'ask'];
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function isDecisionPlace(error: ErrorObject): boolean {
  const parent = error.parentSchema as { title?: string } | undefined;
  const title = parent?.title;
  return (
    title === 'Decision' || title === 'RuleValue' || title === 'ToolRuleValue' || title === 'PatternValue'
  );
}

function isModeName(error: ErrorObject): boolean {
  return (error.parentSchema as { title?: string } | undefined)?.title === 'ModeName';
}

/** Decodes an ajv instance path (JSON pointer) into segments, numbers where the data is an array. */
export function pointerToPath(pointer: string, data: unknown): JsonPath {
  if (pointer === '') return [];
  const path: JsonPath = [];
  let node: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) {
      path.push(Number(seg));
      node = node[Number(seg)];
    } else {
      path.push(seg);
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined;
    }
  }
  return path;
}

/** `tools` › `web_*` as people read it: `tools.web_*`, `tests[2].expect`, in backticks. */
export function describePath(path: JsonPath): string {
  if (path.length === 0) return '';
  let s = '';
  for (const seg of path) s += typeof seg === 'number' ? `[${seg}]` : s === '' ? seg : `.${seg}`;
  return `\`${s.length > 80 ? s.slice(0, 77) + '...' : s}\``;
}

function show(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return `\`${text.length > 60 ? text.slice(0, 57) + '...' : text}\``;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Uint8Array) return 'binary data';
  return typeof value === 'object' ? 'a mapping' : `${typeof value} ${show(value)}`;
}

function article(type: string): string {
  const name = type === 'object' ? 'mapping' : type === 'array' ? 'list' : type;
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}
