/**
 * `dsh-mode schema [NAME] [--out DIR]`: the JSON Schemas shipped in the package's `schema/` folder. Without
 * `--out` it prints one schema (NAME, default `policy`: `schema/policy.schema.json`) exactly as shipped; with
 * `--out DIR` it writes every `schema/*.json` into DIR (created if needed) and lists the files written.
 * `runSchema` returns a report and prints nothing.
 * @module
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suggest } from '../../compile/index.js';
import type { CliCommand, CommandSpec } from '../command.js';
import { UsageError } from '../errors.js';

/** The package's schema folder (from src/cli/commands or dist/cli/commands). */
export const SCHEMA_DIR: string = resolve(dirname(fileURLToPath(import.meta.url)), '../../../schema');

/** Options of {@link runSchema}. */
export interface RunSchemaOptions {
  /** The schema to print, by short name (`policy` for `policy.schema.json`). */
  name?: string;
  /** Write every schema into this folder instead of printing one. */
  out?: string;
  cwd: string;
}

/** What `schema` produced: the printed text, or the files written. */
export type SchemaReport = { kind: 'printed'; text: string } | { kind: 'written'; files: string[] };

/**
 * Lists the shipped schemas by short name.
 * @returns short name → file name, sorted
 */
export async function listSchemas(): Promise<Map<string, string>> {
  const files = (await readdir(SCHEMA_DIR)).filter((f) => f.endsWith('.json')).sort();
  return new Map(files.map((f) => [f.replace(/\.schema\.json$|\.json$/, ''), f]));
}

/**
 * Prints or writes the schemas.
 * @throws UsageError for an unknown schema name
 */
export async function runSchema(options: RunSchemaOptions): Promise<SchemaReport> {
  const schemas = await listSchemas();
  if (options.out !== undefined) {
    const dir = resolve(options.cwd, options.out);
    await mkdir(dir, { recursive: true });
    const files: string[] = [];
    for (const file of schemas.values()) {
      await writeFile(join(dir, file), await readFile(join(SCHEMA_DIR, file)));
      files.push(join(options.out, file));
    }
    return { kind: 'written', files };
  }
  const name = options.name ?? 'policy';
  const file = schemas.get(name);
  if (file === undefined) {
    const near = suggest(name, [...schemas.keys()]);
    throw new UsageError(
      `unknown schema \`${name}\``,
      near.length > 0
        ? `did you mean \`${near[0]}\`?`
        : `use one of ${[...schemas.keys()].map((s) => `\`${s}\``).join(', ')}`,
    );
  }
  return { kind: 'printed', text: await readFile(join(SCHEMA_DIR, file), 'utf8') };
}

const spec: CommandSpec = {
  name: 'schema',
  summary: 'print or write the JSON Schemas for editors',
  usage: 'schema [NAME] [--out DIR]',
  description: [
    'Prints one JSON Schema as shipped: NAME is `policy` (one policy document, the default) or another schema',
    'of the package schema/ folder by its short name. With --out, writes every schema/*.json into DIR instead',
    '(created if needed) and lists the files written.',
    '',
    'Exit codes: 0 done; 2 usage errors or a folder that cannot be written.',
  ].join('\n'),
  options: [{ name: 'out', type: 'string', value: 'DIR', description: 'write all schemas into DIR' }],
  examples: ['schema > policy.schema.json', 'schema --out .vscode/schemas'],
};

/** The command-line adapter of `schema`. */
export const command: CliCommand = {
  spec,
  async execute(args, env) {
    if (args.positionals.length > 1) throw new UsageError(`unexpected argument \`${args.positionals[1]}\``);
    const out = args.options.get('out');
    const [name] = args.positionals;
    let report: SchemaReport;
    try {
      report = await runSchema({
        ...(name ? { name } : {}),
        ...(typeof out === 'string' ? { out } : {}),
        cwd: env.cwd,
      });
    } catch (error) {
      if (error instanceof UsageError) throw error;
      return {
        kind: 'io',
        stderr: `error: cannot write schemas to \`${String(out)}\`: ${(error as Error).message}\n`,
      };
    }
    if (report.kind === 'printed')
      return { kind: 'ok', stdout: report.text.endsWith('\n') ? report.text : `${report.text}\n` };
    return { kind: 'ok', stdout: report.files.map((f) => `wrote ${f}\n`).join('') };
  },
};
