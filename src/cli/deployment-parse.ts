/**
 * Reading `cordis.yml` (DESIGN.md section 4): a YAML list of plugin entries `- id / name / config`, parsed with
 * positions and checked against the plugin-name registry. Pure apart from reading the file: nothing starts here,
 * and the file is never written. Every problem becomes a `DeploymentIssue` with `file:line:column`; the caller
 * refuses the whole deployment when there is any (never a half-started one).
 *
 * Relative paths in a config (the keys a plugin declares as paths) are resolved from the file's folder.
 * @module
 */
import { dirname, isAbsolute, resolve } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { FileRefusedError, readRegularFileSync } from '../compile/read-file.js';
import { suggest } from '../compile/suggest.js';
import { PLUGIN_NAMES, type PluginSpec } from './plugin-names.js';

/** One problem found while reading or starting a deployment, positioned in its file. */
export interface DeploymentIssue {
  file: string;
  line: number;
  column: number;
  /** One lowercase sentence, user values in backticks. */
  message: string;
}

/** One entry of the deployment, config paths already resolved. */
export interface DeploymentEntry {
  /** The entry's `id`, or its name when it has none. */
  id: string;
  name: string;
  spec: PluginSpec;
  config: Record<string, unknown>;
  /** Where the entry is (its `name`), for errors found later, at start. */
  at: { file: string; line: number; column: number };
  /** The position of a path inside this entry's `config`, falling back to the closest existing ancestor. */
  locate(path: readonly (string | number)[]): { file: string; line: number; column: number };
  /** The position of the key at a path inside this entry's `config` (for unknown keys), else `locate(path)`. */
  locateKey(path: readonly (string | number)[]): { file: string; line: number; column: number };
  /** The source range of the node at a path inside this entry's `config` (or its closest ancestor). */
  range(path: readonly (string | number)[]): Range | undefined;
  /** The folder relative paths resolve from (the file's folder). */
  baseDir: string;
}

/** A 1-based source range, `end` exclusive (the policy compiler's shape). */
export interface Range {
  start: { line: number; column: number };
  end: { line: number; column: number };
}

/** A parsed deployment: its entries in file order, or the issues that refuse it. */
export interface ParsedDeployment {
  file: string;
  entries: DeploymentEntry[];
  issues: DeploymentIssue[];
}

/** Thrown when a deployment cannot start; `main` maps it to exit code 2. */
export class DeploymentError extends Error {
  readonly exitCode = 2;
  constructor(readonly issues: DeploymentIssue[]) {
    super(issues.map((i) => `${i.file}:${i.line}:${i.column}: ${i.message}`).join('\n'));
    this.name = 'DeploymentError';
  }
}

const ENTRY_KEYS = ['id', 'name', 'config'];

/** Largest deployment file read, in bytes (it may hold inline policies of up to 1 MiB each). */
export const MAX_DEPLOYMENT_BYTES = 8 * 1024 * 1024;

/**
 * Reads and checks a deployment file.
 * @param file the path as the user gave it (reported as given)
 * @returns the entries and every issue found
 */
export function readDeployment(file: string): ParsedDeployment {
  let text: string;
  try {
    text = readRegularFileSync(file, MAX_DEPLOYMENT_BYTES).toString('utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'no such file'
        : error instanceof FileRefusedError
          ? `it ${error.message}`
          : (error as Error).message;
    return {
      file,
      entries: [],
      issues: [{ file, line: 1, column: 1, message: `cannot read the deployment: ${reason}` }],
    };
  }
  return parseDeployment(text, file, dirname(resolve(file)));
}

/**
 * Parses deployment text.
 * @param text the YAML text
 * @param file the name used in issues
 * @param baseDir the folder relative paths are resolved from
 */
export function parseDeployment(text: string, file: string, baseDir: string): ParsedDeployment {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const issues: DeploymentIssue[] = [];
  const at = (offset: number | undefined): { file: string; line: number; column: number } => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { file, line: Math.max(pos.line, 1), column: Math.max(pos.col, 1) };
  };
  const issue = (offset: number | undefined, message: string): void => {
    issues.push({ ...at(offset), message });
  };
  for (const error of doc.errors) issue(error.pos[0], `yaml: ${firstLine(error.message)}`);
  if (issues.length > 0) return { file, entries: [], issues };
  let data: unknown;
  try {
    // toJS enforces maxAliasCount: an alias bomb fails here instead of exhausting memory.
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    issue(0, `yaml: ${firstLine((error as Error).message)}`);
    return { file, entries: [], issues };
  }
  const root = doc.contents;
  if (!isSeq(root) || !Array.isArray(data)) {
    issue(root?.range?.[0], 'a deployment must be a list of plugin entries (`- name: …`)');
    return { file, entries: [], issues };
  }
  const entries: DeploymentEntry[] = [];
  const ids = new Set<string>();
  root.items.forEach((item, index) => {
    const node = item as Node;
    const value = data[index] as unknown;
    if (!isMap(node) || typeof value !== 'object' || value === null || Array.isArray(value)) {
      issue(
        node?.range?.[0],
        `entry ${index + 1} must be a mapping with \`name\` and optional \`id\`, \`config\``,
      );
      return;
    }
    const record = value as Record<string, unknown>;
    const keyAt = (key: string): number | undefined => {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === key);
      return (pair?.key as Node | undefined)?.range?.[0];
    };
    const valueAt = (key: string): number | undefined =>
      (node.get(key, true) as Node | undefined)?.range?.[0];
    for (const key of Object.keys(record)) {
      if (!ENTRY_KEYS.includes(key)) {
        issue(keyAt(key), `unknown key \`${key}\` in a plugin entry (expected \`id\`, \`name\`, \`config\`)`);
      }
    }
    const name = record.name;
    if (typeof name !== 'string' || name === '') {
      issue(
        name === undefined ? node.range?.[0] : valueAt('name'),
        'a plugin entry needs a `name` (a string)',
      );
      return;
    }
    // Own names only: `constructor`, `__proto__`… are not plugins.
    const spec = Object.hasOwn(PLUGIN_NAMES, name) ? PLUGIN_NAMES[name] : undefined;
    if (!spec) {
      const hint = didYouMean(name, Object.keys(PLUGIN_NAMES));
      issue(
        valueAt('name'),
        `unknown plugin \`${name}\`${hint ? `: did you mean \`${hint}\`?` : ''} (known: ${Object.keys(
          PLUGIN_NAMES,
        )
          .map((n) => `\`${n}\``)
          .join(', ')})`,
      );
      return;
    }
    const id = record.id === undefined ? name : record.id;
    if (typeof id !== 'string' || id === '') {
      issue(valueAt('id'), '`id` must be a non-empty string');
      return;
    }
    if (ids.has(id)) {
      issue(
        valueAt(record.id === undefined ? 'name' : 'id'),
        `duplicate plugin id \`${id}\` (give one of them an \`id\`)`,
      );
      return;
    }
    ids.add(id);
    const config = record.config ?? {};
    if (typeof config !== 'object' || Array.isArray(config)) {
      issue(valueAt('config'), `the config of \`${name}\` must be a mapping`);
      return;
    }
    const nodeAt = (path: readonly (string | number)[]): Node | undefined => {
      const full = ['config', ...path];
      for (let n = full.length; n > 0; n--) {
        const found = node.getIn(full.slice(0, n), true) as Node | undefined;
        if (found?.range) return found;
      }
      return undefined;
    };
    const locate = (path: readonly (string | number)[]): { file: string; line: number; column: number } =>
      at(nodeAt(path)?.range?.[0] ?? keyAt('name'));
    const locateKey = (
      path: readonly (string | number)[],
    ): { file: string; line: number; column: number } => {
      const parent = node.getIn(['config', ...path.slice(0, -1)], true);
      const last = path[path.length - 1];
      const pair = isMap(parent)
        ? parent.items.find((p) => isScalar(p.key) && p.key.value === last)
        : undefined;
      const offset = (pair?.key as Node | undefined)?.range?.[0];
      return offset === undefined ? locate(path) : at(offset);
    };
    const range = (path: readonly (string | number)[]): Range | undefined => {
      const found = nodeAt(path)?.range;
      if (!found) return undefined;
      const start = at(found[0]);
      const end = at(found[1]);
      return {
        start: { line: start.line, column: start.column },
        end: { line: end.line, column: end.column },
      };
    };
    const resolved = resolvePaths(
      config as Record<string, unknown>,
      spec.paths ?? [],
      baseDir,
      (key, message) => issues.push({ ...locate([key]), message }),
    );
    entries.push({
      id,
      name,
      spec,
      config: resolved,
      at: at(valueAt('name')),
      locate,
      locateKey,
      range,
      baseDir,
    });
  });
  return { file, entries, issues };
}

/** Resolves the declared path keys (a string or a list of strings) against `baseDir`. */
function resolvePaths(
  config: Record<string, unknown>,
  keys: readonly string[],
  baseDir: string,
  report: (key: string, message: string) => void,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  const one = (value: string): string => (isAbsolute(value) ? value : resolve(baseDir, value));
  for (const key of keys) {
    const value = out[key];
    if (value === undefined) continue;
    if (typeof value === 'string') out[key] = one(value);
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out[key] = value.map(one);
    else report(key, `\`${key}\` must be a path or a list of paths`);
  }
  return out;
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line.charAt(0).toLowerCase() + line.slice(1).replace(/\.$/, '');
}

/** The closest known name, if any is near (the policy compiler's did-you-mean). */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  return suggest(name, known)[0];
}
