/**
 * `ctx.systemPrompt`: named prompt sections and the `system-prompt/assemble` waterfall. `assemble(context)` builds
 * `{sections, tools}` from the registered sections (text functions evaluated for the context; empty text dropped)
 * and `ctx.tools.schemas()`, lets the waterfall listeners (cordis's own `waterfall`) change it, applies the tool
 * views, then renders the system text deterministically: sections by order, then name (code-unit order), joined
 * with a blank line. The returned header is JSON-normalised and deep-frozen, so what is logged and what is sent
 * are the same bytes.
 *
 * Tool views (`view()`) run after the whole waterfall, on the tool list in its sealed JSON form (the bytes the
 * header sends), so no listener can show the model a schema a view did not keep.
 * @module
 */
import { Service, type Context } from 'cordis';
import { warn } from './contain.js';
import { sealedJson } from './frozen-json.js';
import type {
  AssembleContext,
  Assembly,
  PromptSection,
  PromptSections,
  RequestHeader,
  ToolSchema,
  ToolView,
} from './types.js';

declare module 'cordis' {
  interface Context {
    systemPrompt: SystemPromptService;
  }
  interface Events {
    /** Shapes each request: listeners await `next()` and may change the assembly it returns. */
    'system-prompt/assemble'(
      assembly: Assembly,
      context: AssembleContext,
      next: () => Promise<Assembly>,
    ): Promise<Assembly>;
  }
}

/** The `ctx.systemPrompt` service. */
export class SystemPromptService extends Service implements PromptSections {
  private readonly sections = new Map<string, PromptSection>();
  private views: readonly ToolView[] = [];

  constructor(ctx: Context) {
    super(ctx, 'systemPrompt');
  }

  /**
   * Registers a section for as long as the calling plugin lives.
   * @returns a disposer that removes it
   * @throws when a section with that name is already registered
   */
  section(section: PromptSection): () => void {
    if (typeof section.name !== 'string' || section.name === '')
      throw new Error('a prompt section needs a name');
    if (!Number.isFinite(section.order))
      throw new Error(`prompt section \`${section.name}\` needs a numeric order`);
    return this.ctx.effect(
      () => {
        if (this.sections.has(section.name))
          throw new Error(`prompt section \`${section.name}\` is already registered`);
        this.sections.set(section.name, section);
        return () => {
          if (this.sections.get(section.name) === section) this.sections.delete(section.name);
        };
      },
      `systemPrompt.section(${JSON.stringify(section.name)})`,
    );
  }

  /**
   * Registers a tool view for as long as the calling plugin lives (see {@link ToolView}).
   * @returns a disposer that removes it
   */
  view(view: ToolView): () => void {
    if (typeof view?.key !== 'function' || typeof view.keep !== 'function')
      throw new Error('a tool view needs `key` and `keep` functions');
    return this.ctx.effect(() => {
      this.views = [...this.views, view];
      return () => {
        this.views = this.views.filter((entry) => entry !== view);
      };
    }, 'systemPrompt.view()');
  }

  /** The registered section names, in render order. */
  names(): string[] {
    return sortSections([...this.sections.values()]).map((section) => section.name);
  }

  /**
   * Runs the assemble waterfall for `context` and renders the request header.
   * @returns the header to send (and log) and the final assembly
   */
  async assemble(context: AssembleContext = {}): Promise<{ header: RequestHeader; assembly: Assembly }> {
    // One frozen context for the sections, the listeners and the views: a listener cannot drop or swap the agent
    // the views then judge by (the mode engine's view would show a restricted agent the default mode's tools).
    context = Object.freeze({ ...context });
    const sections: Assembly['sections'] = [];
    for (const section of sortSections([...this.sections.values()])) {
      const text = renderText(section, context);
      if (text !== '') sections.push({ name: section.name, order: section.order, text });
    }
    // A fresh array of the registry's frozen schemas: a listener may filter, reorder or replace entries.
    const schemas = [...(this.ctx.get('tools')?.schemas() ?? [])];
    // The base assembly is both the waterfall's argument and what the innermost step returns, so a listener may
    // change it before or after awaiting next().
    const base: Assembly = { sections, tools: schemas };
    const settled = await this.ctx.waterfall('system-prompt/assemble', base, context, async () => base);
    // Sealed once, before the views: a view judges each schema in the form the header sends, so nothing a
    // listener handed over can look one way to a view and another in the header.
    const sealed: unknown = sealedJson(settled.tools);
    const tools = this.views.length === 0 ? sealed : this.viewed(sealed, context);
    const system = sortSections(settled.sections)
      .map((section) => section.text)
      .filter((text) => text !== '')
      .join('\n\n');
    // JSON-normal and deep-frozen as it is: the text is a string, and the tools are sealed.
    const header = Object.freeze(tools === undefined ? { system } : { system, tools }) as RequestHeader;
    return { header, assembly: { ...settled, tools: (tools ?? []) as ToolSchema[] } };
  }

  /**
   * The sealed tool list with every view applied in turn. A tool list that is not an array shows nothing (no
   * view could filter it), and neither does a view that throws.
   */
  private viewed(sealed: unknown, context: AssembleContext): readonly ToolSchema[] {
    if (!Array.isArray(sealed)) {
      warn(this.ctx, 'the assembled tools are not a list; no tool is shown this request');
      return NO_TOOLS;
    }
    let tools = sealed as readonly ToolSchema[];
    for (const view of this.views) {
      try {
        const key = view.key(context);
        tools = tools.filter((tool) => view.keep(tool, key));
      } catch (error) {
        warn(this.ctx, 'a tool view failed; no tool is shown this request', error);
        tools = NO_TOOLS;
      }
    }
    return Object.freeze(tools);
  }
}

const NO_TOOLS: readonly ToolSchema[] = Object.freeze([]);

function compareSections(a: { name: string; order: number }, b: { name: string; order: number }): number {
  return a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

function renderText(section: PromptSection, context: AssembleContext): string {
  const text = typeof section.text === 'function' ? section.text(context) : section.text;
  return typeof text === 'string' ? text : '';
}

function sortSections<T extends { name: string; order: number }>(sections: readonly T[]): T[] {
  return [...sections].sort(compareSections);
}
