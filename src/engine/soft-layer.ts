/**
 * The soft layer: what the model sees (invariants 2 and 3 in docs/architecture.md).
 *
 * - The `mode:policy` section (order 50: after persona 0, before tool guidance 100–199) renders the folded mode's
 *   section; it is empty (so dropped) in the default mode and for agent-less assemblies.
 * - The assemble filter is registered with `prepend` (outermost) and filters *after* `await next()`, so tools that
 *   inner listeners add are filtered too. It keeps the tools whose `authorize()` verdict in the folded mode is
 *   not deny: in the default mode that removes only `exit_plan_mode`, which keeps a default-mode request
 *   byte-identical to a deployment without the engine. A listener registered outside ours may still widen the schemas; the gate keeps whatever
 *   it re-adds from running.
 * @module
 */
import type { AssembleContext, Assembly, PromptSection } from '../host/types.js';
import type { ModeCore } from './core.js';
import { DEFAULT_MODE, MODE_SECTION, MODE_SECTION_ORDER } from './vocabulary.js';

/** The `system-prompt/assemble` waterfall listener signature (the host's contract). */
export type AssembleListener = (
  assembly: Assembly,
  context: AssembleContext,
  next: () => Promise<Assembly>,
) => Promise<Assembly>;

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
 * Builds the assemble filter.
 * @param core the engine state
 * @returns the listener to register with `{ prepend: true }`
 */
export function createAssembleFilter(core: ModeCore): AssembleListener {
  return async (_assembly, context, next) => {
    const result = await next();
    const mode = context.agent ? core.mode(context.agent.session) : DEFAULT_MODE;
    const tools = result.tools.filter((tool) => core.visible(mode, tool.name));
    return tools.length === result.tools.length ? result : { ...result, tools };
  };
}
