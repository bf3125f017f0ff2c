/**
 * Sealed JSON: a value's JSON normal form (what `JSON.parse(JSON.stringify(value))` yields), deep-frozen. The
 * host seals what it hands to several parties (a tool's schema, a call's arguments, a request header), so that
 * none of them can change what another one judges, logs or sends.
 * @module
 */

/** The JSON normal form of `value`, deep-frozen; undefined when it has none (a function, `undefined`). */
export function sealedJson<T>(value: T): T {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? (undefined as T) : deepFreeze(JSON.parse(text) as T);
}

/** Deep-freezes what `JSON.parse` made: arrays and plain objects with own data properties only. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
