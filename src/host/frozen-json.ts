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

/**
 * Deep-freezes a value fresh from `JSON.parse` and records it as sealed. Only the root is recorded (a `WeakSet`
 * entry costs more than freezing a small object, and only roots are asked about): a nested value is frozen too,
 * and {@link sealedJson} of it alone normalises it once more, which is still correct.
 */
export function seal<T>(value: T): T {
  if (typeof value !== 'object' || value === null || sealed.has(value)) return value;
  freezeParsed(value);
  sealed.add(value);
  return value;
}

/** Deep-freezes what `JSON.parse` made: arrays and plain objects with own data properties only. */
function freezeParsed(value: object): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === 'object' && child !== null) freezeParsed(child);
    }
  } else {
    for (const key in value) {
      const child: unknown = (value as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) freezeParsed(child);
    }
  }
  Object.freeze(value);
}
