/**
 * The built-in tools' annotations are written once (`src/compile/catalog/builtin-tools.ts`): the host's tools, the
 * engine's `exit_plan_mode` and the default catalog of `matrix`, `diff` and the start notices all read them.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_TOOL_ANNOTATIONS } from '../../src/compile/catalog/builtin-tools.js';
import { builtinToolCatalog, hintsOfAnnotations } from '../../src/compile/catalog/catalog.js';
import { EXIT_PLAN_MODE_HINTS } from '../../src/engine/authorize.js';
import { builtinTools } from '../../src/host/tools/index.js';

describe('the built-in tool table', () => {
  it("lists the host's built-in tools in registration order, then exit_plan_mode", () => {
    expect(Object.keys(BUILTIN_TOOL_ANNOTATIONS)).toEqual([
      ...builtinTools.map((t) => t.name),
      'exit_plan_mode',
    ]);
  });

  it("is what the host's tool definitions declare", () => {
    for (const tool of builtinTools) {
      expect(tool.annotations, tool.name).toEqual(
        BUILTIN_TOOL_ANNOTATIONS[tool.name as keyof typeof BUILTIN_TOOL_ANNOTATIONS],
      );
    }
  });

  it('gives the default catalog, and the hints the engine judges exit_plan_mode with', () => {
    expect(builtinToolCatalog()).toEqual([
      { name: 'read', hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false } },
      { name: 'list', hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false } },
      { name: 'grep', hints: { readOnly: true, destructive: false, idempotent: true, openWorld: false } },
      { name: 'write', hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false } },
      { name: 'edit', hints: { readOnly: false, destructive: true, idempotent: false, openWorld: false } },
      {
        name: 'bash',
        hints: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
        runsPrograms: true,
      },
      {
        name: 'todo_write',
        hints: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
      },
      {
        name: 'exit_plan_mode',
        hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
      },
    ]);
    expect(hintsOfAnnotations(BUILTIN_TOOL_ANNOTATIONS.exit_plan_mode)).toEqual(EXIT_PLAN_MODE_HINTS);
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(BUILTIN_TOOL_ANNOTATIONS)).toBe(true);
    expect(Object.isFrozen(BUILTIN_TOOL_ANNOTATIONS.read)).toBe(true);
  });
});

describe('hintsOfAnnotations', () => {
  it('maps MCP names to short names, keeps absent hints absent and ignores other keys', () => {
    expect(hintsOfAnnotations(undefined)).toBeUndefined();
    expect(hintsOfAnnotations({})).toEqual({});
    expect(hintsOfAnnotations({ readOnlyHint: true, openWorldHint: false })).toEqual({
      readOnly: true,
      openWorld: false,
    });
    expect(hintsOfAnnotations({ destructiveHint: 'yes' } as never)).toEqual({});
  });
});
