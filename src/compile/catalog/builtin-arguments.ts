/**
 * The path argument of each built-in file tool (`read`, `list`, `grep`, `write`, `edit`): its name, and the value
 * the tool uses when a call leaves it out. `paths:` rules on these tools need no `argument:`; an MCP tool names its
 * own with `argument:`. The values match the host's tool schemas (`list` and `grep` default to the workspace root),
 * so a rule judges the folder the tool will really read.
 * @module
 */

/** A built-in tool's path argument. */
export interface PathArgument {
  readonly argument: string;
  /** What the tool uses when the call omits the argument. */
  readonly default?: string;
}

/** The built-in file tools' path arguments, by tool name. */
export const BUILTIN_PATH_ARGUMENTS: ReadonlyMap<string, PathArgument> = new Map([
  ['read', { argument: 'path' }],
  ['write', { argument: 'path' }],
  ['edit', { argument: 'path' }],
  ['list', { argument: 'path', default: '.' }],
  ['grep', { argument: 'path', default: '.' }],
]);

/** A tool's declared arguments, each with the JSON types its schema allows. */
export type DeclaredArguments = Readonly<Record<string, readonly string[]>>;

/**
 * Every argument of the built-in tools, with its JSON type, as the host's tool schemas declare them
 * (`test/compile/catalog/builtin-arguments.test.ts` compares the two). Lint checks argument rules on these tools against it
 * when no catalog gives their `inputSchema`.
 */
export const BUILTIN_ARGUMENT_TYPES: ReadonlyMap<string, DeclaredArguments> = new Map<
  string,
  DeclaredArguments
>([
  ['read', { path: ['string'], offset: ['integer'], limit: ['integer'] }],
  ['list', { path: ['string'] }],
  ['grep', { pattern: ['string'], path: ['string'], ignoreCase: ['boolean'] }],
  ['write', { path: ['string'], content: ['string'] }],
  ['edit', { path: ['string'], old_string: ['string'], new_string: ['string'] }],
  ['bash', { command: ['string'], timeout_ms: ['integer'] }],
  ['todo_write', { todos: ['array'] }],
]);
