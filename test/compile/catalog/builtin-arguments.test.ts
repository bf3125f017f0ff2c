/**
 * The compiler's table of the built-in tools' arguments is the host's tool schemas, read off them: lint judges
 * argument rules on the built-in tools by it, so it must not drift from what the tools really take.
 */
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_ARGUMENT_TYPES,
  BUILTIN_PATH_ARGUMENTS,
} from '../../../src/compile/catalog/builtin-arguments.js';
import { builtinTools } from '../../../src/host/tools/index.js';

describe('BUILTIN_ARGUMENT_TYPES', () => {
  it('lists every built-in tool with the arguments and types its schema declares', () => {
    const fromHost = new Map(
      builtinTools.map((tool) => {
        const properties = (tool.parameters as { properties: Record<string, { type?: string }> }).properties;
        return [tool.name, Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, [v.type]]))];
      }),
    );
    expect(new Map(BUILTIN_ARGUMENT_TYPES)).toEqual(fromHost);
  });

  it('declares each path argument as a string', () => {
    for (const [tool, { argument }] of BUILTIN_PATH_ARGUMENTS)
      expect(BUILTIN_ARGUMENT_TYPES.get(tool)?.[argument]).toEqual(['string']);
  });
});
