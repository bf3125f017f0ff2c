/**
 * Tool catalogs for `dsh-mode lint --tools CATALOG`: the tools a deployment really has, so lint can flag rules
 * that match nothing (a renamed tool) and tools that only a `default` decides (a tool nobody thought about).
 *
 * Two JSON shapes are accepted: an array of `{ name, annotations? }`, or an MCP `tools/list` result
 * `{ tools: [...] }`. Annotations use MCP's names (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
 * `openWorldHint`); the short names (`readOnly`, …) are accepted too. Anything else becomes a diagnostic with
 * the code `invalid-catalog` (an error); a bad catalog never throws. {@link hintsOfAnnotations} is the one
 * mapping from MCP's annotation names to the policy language's hint names.
 * @module
 */
import { resolve } from 'node:path';
import { BUILTIN_TOOL_ANNOTATIONS } from './builtin-tools.js';
import { FileRefusedError, readRegularFile } from './read-file.js';
import type { Diagnostic, Hints, JsonPath } from './types.js';

/** One catalogued tool. */
export interface ToolCatalogEntry {
  name: string;
  /** The tool's declared hints, by their short names; absent when the catalog declares none. */
  hints?: Hints;
}

/** What {@link parseCatalog} returns: the tools, and the problems found (an error means the catalog is unusable). */
export interface CatalogResult {
  tools: ToolCatalogEntry[];
  diagnostics: Diagnostic[];
}

const HINT_NAMES: Record<string, keyof Hints> = {
  readOnlyHint: 'readOnly',
  destructiveHint: 'destructive',
  idempotentHint: 'idempotent',
  openWorldHint: 'openWorld',
  readOnly: 'readOnly',
  destructive: 'destructive',
  idempotent: 'idempotent',
  openWorld: 'openWorld',
};

/**
 * Parses a catalog file's text.
 * @param text the file's contents (JSON)
 * @param file the file as given, for diagnostics
 * @returns the tools and any diagnostics; on an error, `tools` is empty
 */
export function parseCatalog(text: string, file: string): CatalogResult {
  const fail = (message: string, path: JsonPath, help?: string): CatalogResult => {
    const d: Diagnostic = { code: 'invalid-catalog', severity: 'error', message, file, path };
    if (help) d.help = help;
    return { tools: [], diagnostics: [d] };
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return fail(`catalog is not valid JSON: ${(error as Error).message}`, []);
  }
  const list: unknown = Array.isArray(data) ? data : isObject(data) ? data.tools : undefined;
  const base: JsonPath = Array.isArray(data) ? [] : ['tools'];
  if (!Array.isArray(list)) {
    return fail(
      'catalog must be an array of tools or an object with a `tools` array',
      [],
      'write `[{"name": "read"}]`, or save the result of an MCP `tools/list` call',
    );
  }
  const tools: ToolCatalogEntry[] = [];
  for (const [i, item] of list.entries()) {
    if (!isObject(item) || typeof item.name !== 'string' || item.name === '') {
      return fail(`catalog entry ${i} has no \`name\` string`, [...base, i]);
    }
    const entry: ToolCatalogEntry = { name: item.name };
    if (item.annotations !== undefined) {
      if (!isObject(item.annotations)) {
        return fail(`\`annotations\` of tool \`${item.name}\` must be an object`, [
          ...base,
          i,
          'annotations',
        ]);
      }
      const hints: Hints = {};
      for (const [key, value] of Object.entries(item.annotations)) {
        const hint = HINT_NAMES[key];
        // MCP annotations also carry `title` and vendor keys: only the four hints matter to a policy.
        if (hint === undefined || !Object.hasOwn(HINT_NAMES, key)) continue;
        if (typeof value !== 'boolean') {
          return fail(`annotation \`${key}\` of tool \`${item.name}\` must be true or false`, [
            ...base,
            i,
            'annotations',
            key,
          ]);
        }
        hints[hint] = value;
      }
      entry.hints = hints;
    }
    tools.push(entry);
  }
  return { tools, diagnostics: [] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Maps MCP `ToolAnnotations` to the policy language's short hint names; absent hints stay absent, so the compiler
 * applies MCP's defaults, and keys other than the four hints are ignored.
 * @param annotations the tool's annotations, if any
 * @returns the hints, or undefined when the tool declares none
 */
export function hintsOfAnnotations(annotations: McpAnnotations | undefined): Hints | undefined {
  if (annotations === undefined) return undefined;
  const hints: Hints = {};
  for (const [key, hint] of Object.entries(MCP_HINT_NAMES)) {
    const value = annotations[key as keyof McpAnnotations];
    if (typeof value === 'boolean') hints[hint] = value;
  }
  return hints;
}

const MCP_HINT_NAMES = {
  readOnlyHint: 'readOnly',
  destructiveHint: 'destructive',
  idempotentHint: 'idempotent',
  openWorldHint: 'openWorld',
} as const satisfies Record<string, keyof Hints>;

/** The four hints of MCP's `ToolAnnotations`, by MCP's names. */
export type McpAnnotations = { readonly [K in keyof typeof MCP_HINT_NAMES]?: unknown };

/** Largest catalog file read, in bytes. */
export const MAX_CATALOG_BYTES = 16 * 1024 * 1024;

/**
 * Reads and parses a catalog file (`--tools`); an unreadable or invalid one yields diagnostics, never a throw.
 * @param file the file as given (reported as given)
 * @param cwd the folder a relative `file` resolves from (default: the process's folder)
 * @returns the tools and any diagnostics; on an error, `tools` is empty
 */
export async function loadCatalog(file: string, cwd?: string): Promise<CatalogResult> {
  let text: string;
  try {
    text = (await readRegularFile(cwd === undefined ? file : resolve(cwd, file), MAX_CATALOG_BYTES)).toString(
      'utf8',
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : error instanceof FileRefusedError
          ? error.message
          : (error as Error).message;
    return {
      tools: [],
      diagnostics: [
        { code: 'io', severity: 'error', message: `cannot read catalog \`${file}\`: ${why}`, file, path: [] },
      ],
    };
  }
  return parseCatalog(text, file);
}

/**
 * The default catalog: every built-in tool with its hints (see `builtin-tools.ts`).
 * @returns a fresh list, in registration order, `exit_plan_mode` last
 */
export function builtinToolCatalog(): ToolCatalogEntry[] {
  return Object.entries(BUILTIN_TOOL_ANNOTATIONS).map(([name, annotations]) => ({
    name,
    hints: hintsOfAnnotations(annotations)!,
  }));
}
