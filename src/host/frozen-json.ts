/**
 * Frozen JSON values: a value parsed from JSON and deep-frozen is its own JSON normal form for good (nothing can
 * change it afterwards), so the header assembly can skip re-normalising it each step. The set is module-wide
 * and weak: the tool registry seals the schemas it parses once at registration, the assembly seals what it
 * normalises, and either recognises the other's.
 * @module
 */

const sealed = new WeakSet<object>();

/** Whether `value` is a sealed JSON value (deep-frozen, JSON-normal). */
export function isSealedJson(value: unknown): boolean {
  return typeof value === 'object' && value !== null && sealed.has(value);
}

/** The JSON normal form of `value` (as `JSON.parse(JSON.stringify(value))`), deep-frozen and sealed. */
export function sealedJson<T>(value: T): T {
  if (isSealedJson(value)) return value;
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? (undefined as T) : seal(JSON.parse(text) as T);
}

/** Deep-freezes a value fresh from `JSON.parse` and records it as sealed. */
export function seal<T>(value: T): T {
  if (typeof value !== 'object' || value === null || sealed.has(value)) return value;
  for (const child of Object.values(value)) seal(child);
  Object.freeze(value);
  sealed.add(value);
  return value;
}
