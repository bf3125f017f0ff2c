/**
 * Tool catalogs for `dsh-mode lint --tools CATALOG` (and `matrix`/`diff --tools`): the tools a deployment really
 * has, so lint can flag rules that match nothing (a renamed tool) and tools that only a `default` decides (a tool
 * nobody thought about). `dsh-mode catalog` writes one from a deployment's built-in tools and MCP servers.
 *
 * JSON shapes accepted:
 * - an array of tools `{ name, annotations?, inputSchema?, server?, trusted? }`, with names as the model sees them;
 * - an MCP `tools/list` result (one page) `{ tools: [...], nextCursor?, server?, trusted? }`;
 * - an array of such pages (and tools, mixed).
 * A page with a `server` names that server's tools as it lists them: they are prefixed `mcp__<server>__`, and
 * its annotations count only with `trusted: true` (MCP annotations are the server's claims). A tool or a page
 * with `trusted: false` has its hints ignored, as the runtime ignores an untrusted server's: it is judged by
 * MCP's defaults. A page that still has a `nextCursor` is a warning (its later pages are missing). A name listed
 * twice with different hints is an error; twice with the same hints counts once. A built-in tool listed with a
 * hint it does not have is a warning: its own annotations decide it (`tool-catalog.ts`).
 *
 * Annotations use MCP's names (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`); the short
 * names (`readOnly`, …) are accepted too. Anything else becomes a diagnostic with the code `invalid-catalog`; a
 * bad catalog never throws. {@link hintsOfAnnotations} is the one mapping from MCP's annotation names to the
 * policy language's hint names.
 * @module
 */
import { resolve } from 'node:path';
import { BUILTIN_TOOL_ANNOTATIONS, runsPrograms } from './builtin-tools.js';
import { FileRefusedError, readRegularFile } from '../../files/read-file.js';
import type { Diagnostic, Hints, JsonPath } from '../types.js';

/** One catalogued tool. */
export interface ToolCatalogEntry {
  name: string;
  /** The tool's declared hints, by their short names; absent when the catalog declares none or they are untrusted. */
  hints?: Hints;
  /** The MCP server that provides it, when the catalog says. */
  server?: string;
  /** False when its hints were ignored as untrusted; present only when the catalog says. */
  trusted?: boolean;
  /**
   * The arguments its `inputSchema` declares (`properties`), each with the JSON types it allows (empty when the
   * schema names none); absent when the catalog gives no `inputSchema` with `properties`. Lint checks argument
   * rules against it.
   */
  arguments?: Readonly<Record<string, readonly string[]>>;
  /**
   * Set on a built-in tool that runs programs (`bash`): a mode's `sandbox` setting applies to it. MCP tools run in
   * their server's process and never have it.
   */
  runsPrograms?: true;
}

/** What {@link parseCatalog} returns: the tools, and the problems found (an error means the catalog is unusable). */
export interface CatalogResult {
  tools: ToolCatalogEntry[];
  diagnostics: Diagnostic[];
}

/** A server name as a page's `server` may give it (no `__`, so prefixed names split one way). */
const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

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
  const warnings: Diagnostic[] = [];
  const diagnostic = (severity: 'error' | 'warning', message: string, path: JsonPath, help?: string) => {
    const d: Diagnostic = { code: 'invalid-catalog', severity, message, file, path };
    if (help) d.help = help;
    return d;
  };
  const fail = (message: string, path: JsonPath, help?: string): CatalogResult => ({
    tools: [],
    diagnostics: [diagnostic('error', message, path, help)],
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return fail(`catalog is not valid JSON: ${(error as Error).message}`, []);
  }
  // Every tool item with its place and the page it came from.
  const units: { item: unknown; path: JsonPath; page?: Page }[] = [];
  const addPage = (value: Record<string, unknown>, path: JsonPath): string | null => {
    const page = readPage(value);
    if (typeof page === 'string') return page;
    if (!Array.isArray(value.tools)) return 'a page must have a `tools` array';
    if (value.nextCursor !== undefined && value.nextCursor !== null) {
      const who = page.server === undefined ? 'a page' : `the page of server \`${page.server}\``;
      warnings.push(
        diagnostic(
          'warning',
          `${who} still has a \`nextCursor\`: the tools of its later pages are missing`,
          [...path, 'nextCursor'],
          'list every page (`dsh-mode catalog` does), or save the pages as an array',
        ),
      );
    }
    for (const [i, item] of value.tools.entries()) units.push({ item, path: [...path, 'tools', i], page });
    return null;
  };
  if (Array.isArray(data)) {
    for (const [i, item] of data.entries()) {
      if (isObject(item) && item.tools !== undefined && item.name === undefined) {
        const problem = addPage(item, [i]);
        if (problem) return fail(`catalog page ${i}: ${problem}`, [i]);
      } else units.push({ item, path: [i] });
    }
  } else if (isObject(data) && Array.isArray(data.tools)) {
    const problem = addPage(data, []);
    if (problem) return fail(`catalog: ${problem}`, []);
  } else {
    return fail(
      'catalog must be an array of tools or an object with a `tools` array',
      [],
      'write `[{"name": "read"}]`, or save the result of an MCP `tools/list` call',
    );
  }
  const tools: ToolCatalogEntry[] = [];
  const seen = new Map<string, { entry: ToolCatalogEntry; path: JsonPath }>();
  for (const [index, { item, path, page }] of units.entries()) {
    if (!isObject(item) || typeof item.name !== 'string' || item.name === '') {
      return fail(`catalog entry ${page ? path.at(-1) : index} has no \`name\` string`, path);
    }
    const own = readPage(item);
    if (typeof own === 'string') return fail(`tool \`${item.name}\`: ${own}`, path);
    const server = page?.server;
    const entry: ToolCatalogEntry = {
      name: server === undefined ? item.name : `mcp__${server}__${item.name}`,
    };
    // A plain entry with a built-in program tool's name is the host's own (`dsh-mode catalog` writes it so).
    if (server === undefined && own.server === undefined && runsPrograms(entry.name))
      entry.runsPrograms = true;
    const label = own.server ?? server;
    if (label !== undefined) entry.server = label;
    // A page with a server is untrusted unless it says so; a plain list is trusted unless it says not.
    const trusted = own.trusted ?? page?.trusted ?? (server === undefined ? undefined : false);
    if (trusted !== undefined) entry.trusted = trusted;
    if (item.annotations !== undefined) {
      if (!isObject(item.annotations)) {
        return fail(`\`annotations\` of tool \`${item.name}\` must be an object`, [...path, 'annotations']);
      }
      const hints: Hints = {};
      for (const [key, value] of Object.entries(item.annotations)) {
        const hint = HINT_NAMES[key];
        // MCP annotations also carry `title` and vendor keys: only the four hints matter to a policy.
        if (hint === undefined || !Object.hasOwn(HINT_NAMES, key)) continue;
        if (typeof value !== 'boolean') {
          return fail(`annotation \`${key}\` of tool \`${item.name}\` must be true or false`, [
            ...path,
            'annotations',
            key,
          ]);
        }
        hints[hint] = value;
      }
      if (trusted !== false) entry.hints = hints;
    }
    const declared = argumentsOf(item.inputSchema);
    if (declared !== undefined) entry.arguments = declared;
    const before = seen.get(entry.name);
    if (before) {
      if (sameHints(before.entry.hints, entry.hints)) continue;
      return fail(
        `tool \`${entry.name}\` is listed twice with different hints`,
        path,
        'a name must mean one tool: remove one of them, or give the servers different names',
      );
    }
    seen.set(entry.name, { entry, path });
    tools.push(entry);
  }
  for (const d of builtinConflicts(tools, file)) warnings.push(d);
  return { tools, diagnostics: warnings };
}

/**
 * The arguments an MCP `inputSchema` declares, with their types. Read leniently: a schema without `properties`
 * says nothing, and a property's `type` that is neither a string nor a list of strings counts as none.
 */
function argumentsOf(schema: unknown): Record<string, readonly string[]> | undefined {
  if (!isObject(schema) || !isObject(schema.properties)) return undefined;
  const out: Record<string, readonly string[]> = Object.create(null);
  for (const [name, property] of Object.entries(schema.properties)) {
    const type = isObject(property) ? property.type : undefined;
    out[name] =
      typeof type === 'string'
        ? [type]
        : Array.isArray(type)
          ? type.filter((t) => typeof t === 'string')
          : [];
  }
  return out;
}

/** What a page (or a tool) may say about where it comes from. */
interface Page {
  server?: string;
  trusted?: boolean;
}

/** The `server` and `trusted` of a page or tool, or what is wrong with them. */
function readPage(value: Record<string, unknown>): Page | string {
  const page: Page = {};
  if (value.server !== undefined) {
    if (typeof value.server !== 'string' || !SERVER_NAME.test(value.server)) {
      return '`server` must be a server name (letters, digits, `-`, single `_`)';
    }
    page.server = value.server;
  }
  if (value.trusted !== undefined) {
    if (typeof value.trusted !== 'boolean') return '`trusted` must be true or false';
    page.trusted = value.trusted;
  }
  return page;
}

/** Equal once MCP's defaults fill the absent hints (no hints and `{}` say the same). */
function sameHints(a: Hints | undefined, b: Hints | undefined): boolean {
  const full = (h: Hints | undefined) => {
    const readOnly = h?.readOnly === true;
    return [readOnly, h?.destructive ?? !readOnly, h?.idempotent === true, h?.openWorld ?? true].join();
  };
  return full(a) === full(b);
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
    ...(runsPrograms(name) ? { runsPrograms: true as const } : {}),
  }));
}

/**
 * Warnings for catalog entries that name a built-in tool with a hint it does not have: such an entry does not
 * change how the tool is decided (its own annotations do), so the file says something untrue about it.
 * @param tools the entries of one catalog file
 * @param file the file as given
 * @returns one warning per contradicting entry
 */
function builtinConflicts(tools: readonly ToolCatalogEntry[], file: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const tool of tools) {
    const own = Object.hasOwn(BUILTIN_TOOL_ANNOTATIONS, tool.name)
      ? hintsOfAnnotations(BUILTIN_TOOL_ANNOTATIONS[tool.name as keyof typeof BUILTIN_TOOL_ANNOTATIONS])
      : undefined;
    if (own === undefined || tool.hints === undefined) continue;
    const wrong = (Object.keys(tool.hints) as (keyof Hints)[]).filter(
      (h) => tool.hints![h] !== undefined && tool.hints![h] !== own[h],
    );
    if (wrong.length === 0) continue;
    out.push({
      code: 'invalid-catalog',
      severity: 'warning',
      message: `\`${tool.name}\` is a built-in tool: its own annotations decide it, not the catalog's ${wrong
        .map((h) => `\`${h}: ${String(tool.hints![h])}\``)
        .join(', ')}`,
      file,
      path: [],
      help: `remove the annotations of \`${tool.name}\` (\`dsh-mode catalog\` writes the true ones)`,
    });
  }
  return out;
}
