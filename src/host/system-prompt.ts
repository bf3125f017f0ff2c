/**
 * `ctx.systemPrompt`: named prompt sections and the `system-prompt/assemble` waterfall. `assemble(context)` builds
 * `{sections, tools}` from the registered sections (text functions evaluated for the context; empty text dropped)
 * and `ctx.tools.schemas()`, lets the waterfall listeners change it, then renders the system text
 * deterministically: sections by order, then name (code-unit order), joined with a blank line. The returned header
 * is JSON-normalised and deep-frozen, so what is logged and what is sent are the same bytes.
 *
 * Caching (the assembly runs every step): the section order is sorted once per section change; the tool schemas
 * are the registry's frozen list, handed to the waterfall as a fresh array of the same frozen schemas (a listener
 * may filter, reorder or replace entries, never edit one in place). A schema already normalised is not
 * normalised again, and a header whose system text and tools equal the previous one's (element by element) is
 * that same header object, so the loop's header diff compares by identity.
 *
 * Tool views (`view()`) run after the whole waterfall, on the tools in their sealed JSON form (the bytes the header
 * sends, each read once), so no listener can show the model a schema a view did not keep; a view's answer is
 * cached per (sealed input list, key, registry version).
 * @module
 */
import { Service, symbols, type Context } from 'cordis';
import { containListeners, listening, ownedWaterfall, warn, type ContainedListeners } from './contain.js';
import { isSealedJson, sealedJson } from './frozen-json.js';
import { JournalSession } from './session.js';
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
  /** The sections in render order, sorted once per change (null: stale). */
  private sorted: readonly PromptSection[] | null = null;
  /** The header last assembled: the next one reuses it (or its tool list) when nothing changed. */
  private last: RequestHeader | null = null;
  /** The tool list `last` was normalised from, when that list was sealed (so unchanged since). */
  private lastInput: readonly unknown[] | null = null;
  /** The last tool list the views found sealed as handed over (so not copied). */
  private sealedInput: readonly unknown[] | null = null;
  /** The registered views, each with the list it last filtered, under which key, and what it kept. */
  private views: readonly ViewState[] = [];
  /**
   * The views applied for a quiet session (null: stale): those not registered `skipWhenQuiet`, alone (`loud`) or
   * after the host's own hiding of the `hiddenWhenQuiet` tools (`hiding`).
   */
  private quietViews: { loud: readonly ViewState[]; hiding: readonly ViewState[] } | null = null;
  /** The tool names {@link quietViews} hides (the registry's `hiddenWhenQuiet()` set it was built for). */
  private quietHidden: ReadonlySet<string> | null = null;
  /** Hides the tools registered `hiddenWhenQuiet` (its key: the registry's set of their names). */
  private readonly hiding: ViewState = newViewState({
    key: () => this.registry()?.hiddenWhenQuiet() ?? NOTHING_HIDDEN,
    keep: (tool, hidden) => !(hidden as ReadonlySet<string>).has(tool.name),
  });

  private readonly lists: ContainedListeners;
  /** Whether anyone listens to `system-prompt/assemble`. */
  private readonly listened: () => boolean;
  /**
   * The tool registry as this context sees it, resolved at the first assembly after each change of the `tools`
   * service (undefined: stale; null: none): `ctx.get()` and a call through the service proxy cost microseconds,
   * paid every step otherwise.
   */
  private toolsSeen: ToolsSeen | null | undefined;
  /** Counts provisions and removals of the `tools` service (a number: identities read through a proxy vary). */
  private toolsEpoch = 0;

  constructor(ctx: Context) {
    super(ctx, 'systemPrompt');
    this.lists = containListeners(ctx);
    this.listened = listening(this.lists, 'system-prompt/assemble');
    // cordis announces every provision and removal of a service to the contexts that see it.
    ctx.on('internal/service', (name: string) => {
      if (name === 'tools') {
        this.toolsSeen = undefined;
        this.toolsEpoch++;
      }
    });
  }

  private registry(): ToolsSeen | null {
    if (this.toolsSeen === undefined) {
      const tools = this.ctx.get('tools') ?? null;
      this.toolsSeen =
        tools === null
          ? null
          : (((tools as unknown as Record<symbol, unknown>)[symbols.original] as typeof tools | undefined) ??
            tools);
    }
    return this.toolsSeen;
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
    if (section.skipWhenQuiet !== undefined && typeof section.skipWhenQuiet !== 'boolean')
      throw new Error(`prompt section \`${section.name}\`: \`skipWhenQuiet\` must be a boolean`);
    return this.ctx.effect(
      () => {
        if (this.sections.has(section.name))
          throw new Error(`prompt section \`${section.name}\` is already registered`);
        this.sections.set(section.name, section);
        this.sorted = null;
        return () => {
          if (this.sections.get(section.name) === section) {
            this.sections.delete(section.name);
            this.sorted = null;
          }
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
    if (view.skipWhenQuiet !== undefined && typeof view.skipWhenQuiet !== 'boolean')
      throw new Error("a tool view's `skipWhenQuiet` must be a boolean");
    return this.ctx.effect(() => {
      const state = newViewState(view);
      this.views = [...this.views, state];
      this.quietViews = null;
      return () => {
        this.views = this.views.filter((entry) => entry !== state);
        this.quietViews = null;
      };
    }, 'systemPrompt.view()');
  }

  /** The registered section names, in render order. */
  names(): string[] {
    return this.inOrder().map((section) => section.name);
  }

  private inOrder(): readonly PromptSection[] {
    return (this.sorted ??= sortSections([...this.sections.values()]));
  }

  /**
   * Runs the assemble waterfall for `context` and renders the request header.
   * @returns the header to send (and log) and the final assembly
   */
  async assemble(context: AssembleContext = {}): Promise<{ header: RequestHeader; assembly: Assembly }> {
    // One frozen context for the sections, the listeners and the views: a listener cannot drop or swap the agent
    // the views then judge by (the mode engine's view would show a restricted agent the default mode's tools).
    // (A caller that hands in a frozen one, as the loop does once per agent, is not copied; assign, not spread:
    // freezing a spread copy takes V8's slow path.)
    if (!Object.isFrozen(context)) context = Object.freeze(Object.assign({}, context));
    // The base assembly is both the waterfall's argument and what the innermost step returns, so a listener may
    // change it before or after awaiting next().
    const listened = this.listened();
    // A quiet session (`Session` in types.ts) skips the sections and views registered `skipWhenQuiet`, and starts
    // from the registry's list without the `hiddenWhenQuiet` tools. A section's text or a listener may wake the
    // session (a `mode/set` appended mid-assembly): each is asked right before it is skipped, so a skipped hook is
    // never one the session's state by then needs.
    // Quiet only ever ends, so once awake the session is not asked again.
    const session = context.agent?.session;
    let quiet = JournalSession.isQuiet(session);
    const sections: Assembly['sections'] = [];
    for (const section of this.inOrder()) {
      if (quiet && section.skipWhenQuiet === true && (quiet = JournalSession.isQuiet(session))) continue;
      const text = renderText(section, context);
      if (text !== '') sections.push({ name: section.name, order: section.order, text });
    }
    const registry = this.registry();
    // Listeners get a fresh array of the registry's frozen schemas; without any, the frozen list itself is used.
    const schemas = (quiet ? registry?.quietSchemas() : registry?.schemas()) ?? NO_TOOLS;
    const base: Assembly = { sections, tools: (listened ? [...schemas] : schemas) as ToolSchema[] };
    const inner = async (): Promise<Assembly> => base;
    // No listener: the waterfall would return the base itself, so it is not dispatched.
    const settled = listened
      ? await ownedWaterfall(this.lists, 'system-prompt/assemble', [base, context], inner)
      : base;
    // Without listeners the base is this call's own object until it is returned: the views' list goes into it.
    // Woken by a listener: every view applies (the base list then lacks the `hiddenWhenQuiet` tools, which only
    // hides more for this one request).
    // A section's text or a listener may have woken it since.
    if (quiet) quiet = JournalSession.isQuiet(session);
    const views = quiet ? this.viewsWhenQuiet(listened) : this.views;
    const assembly = views.length === 0 ? settled : this.viewed(settled, context, !listened, views);
    // A listener may have reordered or added sections; most steps they are still in order, and no sort is paid.
    const sorted = isSorted(assembly.sections) ? assembly.sections : sortSections(assembly.sections);
    const system = sorted
      .map((section) => section.text)
      .filter((text) => text !== '')
      .join('\n\n');
    const header = this.normalised(system, assembly.tools);
    this.last = header;
    return { header, assembly };
  }

  /**
   * The settled assembly with every view applied in turn; each view's answer is reused while its input, its key
   * and the tool registry hold. A view judges the schemas in the form the header sends (sealed JSON, read once),
   * so nothing a listener handed over can look one way to the view and another in the header; a tool list that is
   * not an array shows nothing (no view could filter it).
   */
  private viewed(
    assembly: Assembly,
    context: AssembleContext,
    owned: boolean,
    views: readonly ViewState[],
  ): Assembly {
    if (!Array.isArray(assembly.tools)) {
      warn(this.ctx, 'the assembled tools are not a list; no tool is shown this request');
      return { ...assembly, tools: NO_TOOLS as ToolSchema[] };
    }
    // A view may depend on the registered tools (the mode engine's reads their annotations): any registration or
    // removal asks it again, even about a list it has seen (a listener may hand over a list it kept).
    // The registry's epoch too: a reloaded tools service counts its versions from the start again.
    const version = this.registry()?.version ?? -1;
    const epoch = this.toolsEpoch;
    // A list once found sealed stays sealed (frozen, of deep-frozen schemas): the registry's is checked once.
    let tools: readonly ToolSchema[] = assembly.tools;
    if (tools !== this.sealedInput) {
      tools = sealedList(tools);
      if (tools === assembly.tools) this.sealedInput = tools;
    }
    for (const state of views) {
      try {
        const key = state.view.key(context);
        const stale = state.epoch !== epoch || state.version !== version;
        if (stale || state.input !== tools || !Object.is(state.key, key)) {
          const kept: ToolSchema[] = [];
          for (let i = 0; i < tools.length; i++) if (state.view.keep(tools[i]!, key)) kept.push(tools[i]!);
          state.input = tools;
          state.key = key;
          state.epoch = epoch;
          state.version = version;
          state.kept = Object.freeze(kept);
        }
        tools = state.kept;
      } catch (error) {
        warn(this.ctx, 'a tool view failed; no tool is shown this request', error);
        state.input = null;
        tools = NO_TOOLS;
      }
    }
    if (tools === assembly.tools) return assembly;
    if (!owned) return { ...assembly, tools: tools as ToolSchema[] };
    assembly.tools = tools as ToolSchema[];
    return assembly;
  }

  /**
   * The views for a quiet session: every view not registered `skipWhenQuiet`, after the host's hiding of the
   * `hiddenWhenQuiet` tools when a listener could have handed one back (the base list has none). Rebuilt after a
   * view or a tool comes or goes.
   * @param listened whether the `system-prompt/assemble` waterfall ran
   */
  private viewsWhenQuiet(listened: boolean): readonly ViewState[] {
    const hidden = this.registry()?.hiddenWhenQuiet() ?? NOTHING_HIDDEN;
    if (this.quietViews === null || this.quietHidden !== hidden) {
      const loud = this.views.filter((state) => !state.skipWhenQuiet);
      this.quietViews = { loud, hiding: hidden.size > 0 ? [this.hiding, ...loud] : loud };
      this.quietHidden = hidden;
    }
    return listened ? this.quietViews.hiding : this.quietViews.loud;
  }

  /**
   * The JSON normal form of `{system, tools}` (what `JSON.parse(JSON.stringify(…))` yields), deep-frozen, reusing
   * the previous header or its tool list when equal to it element by element. The system text is a string and
   * its own normal form; a sealed schema is too.
   */
  private normalised(system: string, tools: unknown): RequestHeader {
    if (!Array.isArray(tools)) {
      // This header is not built from a list: a later step must not take it for the one `lastInput` gave.
      this.lastInput = null;
      return sealedJson({ system, tools } as RequestHeader);
    }
    const last = this.last;
    if (last !== null && tools === this.lastInput && last.system === system) return last;
    const previous = last?.tools;
    let same = previous !== undefined && previous.length === tools.length;
    let sealed = Object.isFrozen(tools);
    const normal: ToolSchema[] = new Array<ToolSchema>(tools.length);
    for (let i = 0; i < tools.length; i++) {
      const tool: unknown = tools[i];
      const isSealed = isSealedJson(tool);
      if (!isSealed) sealed = false;
      // In an array, JSON writes a hole, `undefined` or a function as null.
      const value = (isSealed ? tool : (sealedJson(tool) ?? null)) as ToolSchema;
      normal[i] = value;
      if (same && previous![i] !== value) same = false;
    }
    // Sealed throughout, the list cannot change: seen again, it gives this header again without the loop above.
    this.lastInput = sealed ? tools : null;
    if (same && last!.system === system) return last!;
    return Object.freeze({ system, tools: same ? previous! : Object.freeze(normal) }) as RequestHeader;
  }
}

const NO_TOOLS: readonly ToolSchema[] = Object.freeze([]);
const NOTHING_HIDDEN: ReadonlySet<string> = new Set();

/**
 * `list` as a frozen list of sealed JSON (what the header would send, each element read once): the list itself
 * when it is one already (unchangeable, so one seen again by identity is the same list), else a copy. Read by
 * index, never through the list's own methods (a listener's array may override `filter` or `every`). An element
 * with no JSON form is null, as in the header.
 */
function sealedList(list: readonly unknown[]): readonly ToolSchema[] {
  const length = list.length;
  if (Object.isFrozen(list)) {
    let sealed = true;
    for (let i = 0; i < length && sealed; i++) sealed = isSealedJson(list[i]);
    if (sealed) return list as readonly ToolSchema[];
  }
  const copy = new Array<ToolSchema>(length);
  for (let i = 0; i < length; i++) copy[i] = (sealedJson(list[i]) ?? null) as ToolSchema;
  return Object.freeze(copy);
}

/** What the assembly reads of the tool registry. */
interface ToolsSeen {
  schemas(): readonly ToolSchema[];
  /** {@link schemas} without the `hiddenWhenQuiet` tools (the same list when there are none). */
  quietSchemas(): readonly ToolSchema[];
  /** The names of the tools a quiet session is not shown (one set per registry change). */
  hiddenWhenQuiet(): ReadonlySet<string>;
  /** Counts registrations and removals. */
  readonly version: number;
}

interface ViewState {
  readonly view: ToolView;
  /** The view's `skipWhenQuiet`, read when it was registered. */
  readonly skipWhenQuiet: boolean;
  /** The sealed tool list the view last filtered (null: none). */
  input: readonly ToolSchema[] | null;
  key: unknown;
  /** The registry (its epoch, and its version) it was filtered at. */
  epoch: number;
  version: number;
  kept: readonly ToolSchema[];
}

function newViewState(view: ToolView): ViewState {
  const skipWhenQuiet = view.skipWhenQuiet === true;
  return { view, skipWhenQuiet, input: null, key: undefined, epoch: -1, version: -1, kept: [] };
}

/** In render order already (junk from a listener, a non-finite order or a non-array, is left to the sort). */
function isSorted(sections: readonly { name: string; order: number }[]): boolean {
  if (!Array.isArray(sections)) return false;
  for (let i = 0; i < sections.length; i++) {
    const section = sections[i]!;
    if (typeof section !== 'object' || section === null || !Number.isFinite(section.order)) return false;
    if (i > 0 && compareSections(sections[i - 1]!, section) > 0) return false;
  }
  return true;
}

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
