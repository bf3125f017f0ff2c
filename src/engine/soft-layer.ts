/**
 * The soft layer: what the model sees (invariants 2 and 3 in docs/architecture.md).
 *
 * - The `mode:policy` section (order 50: after persona 0, before tool guidance 100–199) renders the folded mode's
 *   section; it is empty (so dropped) in the default mode and for agent-less assemblies.
 * - The tool view (`ctx.systemPrompt.view`) keeps the tools whose `authorize()` verdict in the folded mode is not
 *   deny. The host applies it after the whole assemble waterfall, so no listener, inner or outer, can show the
 *   model a tool the mode denies. In the default mode it removes only `exit_plan_mode`, which keeps a default-mode request byte-identical to a
 *   deployment without the engine. The gate stays the hard layer: a tool the model names anyway is still denied.
 * @module
 */
import type { PromptSection, ToolView } from '../host/types.js';
import type { ModeCore } from './core.js';
import { DEFAULT_MODE, MODE_SECTION, MODE_SECTION_ORDER } from './vocabulary.js';

/**
 * The section text for a mode the configuration does not define (invariant 9): the model is told why nothing runs.
 * @param mode the folded, undefined mode
 * @returns the section
 */
export function undefinedModeSection(mode: string): string {
  return (
    `This session is in ${mode} mode, which this deployment does not define, so every tool is denied. ` +
    'Ask the user to switch mode (for example to default) before doing anything else.'
  );
}

/**
 * Builds the `mode:policy` section.
 * @param core the engine state
 * @returns the section to register with `ctx.systemPrompt.section`
 */
export function createModeSection(core: ModeCore): PromptSection {
  return {
    name: MODE_SECTION,
    order: MODE_SECTION_ORDER,
    text: (context) => {
      if (!context.agent) return '';
      const mode = core.mode(context.agent.session);
      if (mode === DEFAULT_MODE) return '';
      return core.modes.get(mode)?.section ?? undefinedModeSection(mode);
    },
  };
}

/**
 * Builds the tool view: keyed by the folded mode (agent-less assemblies see the default mode's tools).
 * @param core the engine state
 * @returns the view to register with `ctx.systemPrompt.view`
 */
export function createToolView(core: ModeCore): ToolView {
  return {
    key: (context) => (context.agent ? core.mode(context.agent.session) : DEFAULT_MODE),
    keep: (tool, mode) => core.visible(mode as string, tool.name),
  };
}
