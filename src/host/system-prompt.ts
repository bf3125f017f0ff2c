/**
 * `ctx.systemPrompt`: named prompt sections and the `system-prompt/assemble` waterfall. `assemble(context)` builds
 * `{sections, tools}` from the registered sections (text functions evaluated for the context; empty text dropped)
 * and `ctx.tools.schemas()`, lets the waterfall listeners change it, then renders the system text
 * deterministically: sections by order, then name (code-unit order), joined with a blank line. The returned header
 * is JSON-normalised, so what is logged and what is sent are the same bytes.
 * @module
 */
import { Service, type Context } from 'cordis';
import { containListeners, waterfall } from './contain.js';
import type { AssembleContext, Assembly, PromptSection, PromptSections, RequestHeader } from './types.js';

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

  constructor(ctx: Context) {
    super(ctx, 'systemPrompt');
    containListeners(ctx);
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

  /** The registered section names, in render order. */
  names(): string[] {
    return sortSections([...this.sections.values()]).map((section) => section.name);
  }

  /**
   * Runs the assemble waterfall for `context` and renders the request header.
   * @returns the header to send (and log) and the final assembly
   */
  async assemble(context: AssembleContext = {}): Promise<{ header: RequestHeader; assembly: Assembly }> {
    // The base assembly is both the waterfall's argument and what the innermost step returns, so a listener may
    // change it before or after awaiting next().
    const base: Assembly = {
      sections: sortSections([...this.sections.values()])
        .map((section) => ({ name: section.name, order: section.order, text: renderText(section, context) }))
        .filter((section) => section.text !== ''),
      tools: this.ctx.get('tools')?.schemas() ?? [],
    };
    const inner = async (): Promise<Assembly> => base;
    const assembly = await waterfall(this.ctx, 'system-prompt/assemble', base, context, inner);
    const system = sortSections(assembly.sections)
      .map((section) => section.text)
      .filter((text) => text !== '')
      .join('\n\n');
    const header = JSON.parse(JSON.stringify({ system, tools: assembly.tools })) as RequestHeader;
    return { header, assembly };
  }
}

function renderText(section: PromptSection, context: AssembleContext): string {
  const text = typeof section.text === 'function' ? section.text(context) : section.text;
  return typeof text === 'string' ? text : '';
}

function sortSections<T extends { name: string; order: number }>(sections: T[]): T[] {
  return [...sections].sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
