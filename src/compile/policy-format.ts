/**
 * What a policy text is before it is parsed: the size limit its reader enforces and the syntax its name says.
 * Its own small module so that reading (`source.ts`) and the built-in snapshot (`builtin-snapshot.ts`) need not
 * load the parser (`parse.ts`, which re-exports both).
 * @module
 */

/** Largest policy text accepted, in UTF-8 bytes. */
export const MAX_POLICY_BYTES = 1024 * 1024;

/**
 * The syntax a file is read in, by its name.
 * @param file the file's name or label (`git:REV:path` too), or null for inline text
 * @returns `json` for `*.json`, else `yaml`
 */
export function syntaxOf(file: string | null): 'yaml' | 'json' {
  return file !== null && /\.json$/i.test(file) ? 'json' : 'yaml';
}
