/**
 * Contained dispatch: how the host calls plugin listeners when one plugin's bug must not break the host or the
 * other plugins. cordis' own `waterfall` and `emit` let a throwing listener break the emitting call,
 * so for the {@link CONTAINED_EVENTS} the host keeps the listener lists itself and wraps each call.
 *
 * The lists come from cordis's public registration hook: `ctx.on(name, …)` asks the `internal/listener` event
 * first, and a listener that answers takes the registration over (cordis itself keeps `internal/update` that
 * way). {@link containListeners} answers for the contained events on a context's root, once: from then on
 * `ctx.on('session/event', …)` stores the listener here, as an effect of the registering plugin's fiber (so
 * disposing the plugin removes it, and `fiber.getEffects()` lists it as `ctx.on("session/event")`), and
 * `prepend` puts it first, exactly as cordis would (from a context with a filter too: the hook is global); a
 * listener that is not a function is refused there. Every host service installs it when it starts; a listener
 * registered before the first one started went to cordis's own list and is never called, so apply the host
 * before the plugins that listen to these events (a deployment installs it on its fresh context).
 *
 * A `session/event` listener that only acts once everything else has seen an event may say so, and be left out
 * of the dispatch of every other event: `ctx.on('session/event', listener, { after })`, where `after(session,
 * event)` is a synchronous predicate. Such a listener is not in the waterfall; after the waterfall has settled
 * (every other listener included), `after` is asked, and only when it accepts is the listener called, with a
 * `next()` that is already done (so a listener written as `await next(); …` behaves as if it were outermost).
 * An event no `after` accepts costs no call, no promise and no await. The mode engine lands intents this way.
 * With `skipWhenQuiet: true` as well, not even `after` is asked about the events of a quiet session (see
 * `Session` in types.ts).
 *
 * A listener of an emitted event ({@link FILTERED_EVENTS}: `agent/created`, `tools/verdict`) that acts on only
 * some of them may say which: `ctx.on('agent/created', listener, { when })`, where `when(...args)` is a
 * synchronous predicate asked first; the listener is called only when it accepts (or throws: that is logged, and
 * the listener is called, as it would have been without `when`). cordis wraps every listener in a proxy that
 * traces each argument, which costs about a microsecond a call; the predicate is kept as it was given.
 *
 * The same hook also takes over the {@link OWNED_WATERFALLS} (`tools/pre-execute`, `system-prompt/assemble`,
 * `approval/request`). Those are not contained: {@link ownedWaterfall} runs them exactly as cordis's `waterfall`
 * would (same order, `next()` at most once, a listener's error propagates to the caller, which decides how to
 * fail). Owning them lets a hot path ask whether anyone listens ({@link listening}) through cordis's public API
 * only. A listener of one of them that cordis already held when the hook was installed is not lost: the host
 * then dispatches cordis's own waterfall as the innermost step of its own, for as long as the app lives (slower,
 * never open).
 * @module
 */
import type { Context, Events } from 'cordis';

declare module 'cordis' {
  interface EventOptions {
    /**
     * For a contained waterfall (`session/event`): call the listener only after the waterfall has settled, and
     * only for the events this synchronous predicate accepts (see `src/host/contain.ts`).
     */
    after?: (...args: never[]) => boolean;
    /**
     * With `after`: not even `after` is asked about the events of a quiet session (its owner would want none).
     */
    skipWhenQuiet?: boolean;
    /**
     * For an emitted contained event (`agent/created`, `tools/verdict`): call the listener only when this
     * synchronous predicate of the event's arguments accepts (see `src/host/contain.ts`).
     */
    when?: (...args: never[]) => boolean;
  }
}

/** The events whose listeners the host calls contained (a throwing listener is logged, never propagated). */
export const CONTAINED_EVENTS: readonly string[] = ['session/event', 'agent/created', 'tools/verdict'];

/** The one contained waterfall whose listeners may ask to be called only `after` it settled. */
export const AFTER_EVENT = 'session/event';

/** The contained events whose listeners may say `when` they want to be called. */
export const FILTERED_EVENTS: readonly string[] = ['agent/created', 'tools/verdict'];

/** The waterfalls the host keeps the listeners of and runs itself, with cordis's semantics (errors propagate). */
export const OWNED_WATERFALLS: readonly string[] = [
  'tools/pre-execute',
  'system-prompt/assemble',
  'approval/request',
];

type Listener = (...args: unknown[]) => unknown;

/** A listener registered with `after`: called once the waterfall has settled, for the events `when` accepts. */
export interface AfterListener {
  readonly when: (session: unknown, event: unknown) => boolean;
  readonly callback: Listener;
  /** Not asked about the events of a quiet session. */
  readonly skipWhenQuiet: boolean;
}

/**
 * The listener lists of the contained events, by event name, in dispatch order (prepended first); `after` holds
 * the listeners registered with the `after` option, by event name, in the order they are asked.
 */
export interface ContainedListeners extends ReadonlyMap<string, readonly Listener[]> {
  readonly after: ReadonlyMap<string, readonly AfterListener[]>;
  /** How many `after` listeners are not `skipWhenQuiet`: with none, a quiet session's append asks no one. */
  readonly loudAfter: { readonly count: number };
  /** The owned waterfalls cordis already held listeners of when the host took over: dispatched through cordis too. */
  readonly forwarded: ReadonlySet<string>;
  /** The root's event service, for {@link forwarded} waterfalls. */
  readonly events: Context['events'];
}

interface OwnLists extends Map<string, Listener[]> {
  readonly after: Map<string, AfterListener[]>;
  readonly loudAfter: { count: number };
  readonly forwarded: ReadonlySet<string>;
  readonly events: Context['events'];
}

const byRoot = new WeakMap<Context, OwnLists>();

/**
 * Takes over the registration of the {@link CONTAINED_EVENTS} on `ctx`'s root (idempotent).
 * @param ctx any context of the app
 * @returns the lists the contained dispatch reads
 */
export function containListeners(ctx: Context): ContainedListeners {
  const root = ctx.root;
  let lists = byRoot.get(root);
  if (lists) return lists;
  const names = [...CONTAINED_EVENTS, ...OWNED_WATERFALLS];
  const own = Object.assign(new Map<string, Listener[]>(names.map((name) => [name, []])), {
    after: new Map<string, AfterListener[]>([[AFTER_EVENT, []]]),
    loudAfter: { count: 0 },
    forwarded: new Set(OWNED_WATERFALLS.filter((name) => cordisListens(root, name))),
    events: root.events,
  });
  for (const name of CONTAINED_EVENTS)
    if (cordisListens(root, name))
      warn(root, `a ${name} listener was registered before the host started; it is never called`);
  lists = own;
  byRoot.set(root, own);
  root.on(
    'internal/listener',
    function (this: Context, name: string, listener: unknown, options: unknown) {
      const list = own.get(name);
      if (!list) return undefined;
      // Left to cordis, it would be kept where the host never looks (cordis would throw on dispatching it).
      if (typeof listener !== 'function')
        throw new TypeError(`ctx.on(${JSON.stringify(name)}): the listener must be a function`);
      // cordis passes the options object here (its typings say a boolean).
      const object =
        typeof options === 'object' && options !== null ? (options as Record<string, unknown>) : null;
      const prepend = object ? Boolean(object.prepend) : Boolean(options);
      const callback = listener as Listener;
      const when = object?.after;
      if (when !== undefined && (typeof when !== 'function' || !own.after.has(name)))
        throw new TypeError(
          own.after.has(name)
            ? `ctx.on(${JSON.stringify(name)}): the \`after\` option must be a function`
            : `ctx.on(${JSON.stringify(name)}): the \`after\` option is for ${AFTER_EVENT} only`,
        );
      const filter = object?.when;
      if (filter !== undefined && (typeof filter !== 'function' || !FILTERED_EVENTS.includes(name)))
        throw new TypeError(
          `ctx.on(${JSON.stringify(name)}): the \`when\` option must be a function, for ${FILTERED_EVENTS.join(' or ')}`,
        );
      const skipWhenQuiet = object?.skipWhenQuiet;
      if (skipWhenQuiet !== undefined && (typeof skipWhenQuiet !== 'boolean' || when === undefined))
        throw new TypeError(
          `ctx.on(${JSON.stringify(name)}): \`skipWhenQuiet\` must be a boolean, given with \`after\``,
        );
      // Kept in one list or the other for as long as the plugin lives; disposal removes it from where it is.
      const target: unknown[] = when === undefined ? list : own.after.get(name)!;
      const entry: unknown =
        when === undefined
          ? filter === undefined
            ? callback
            : filtered(this, name, filter as Listener, callback)
          : ({
              when: when as AfterListener['when'],
              callback,
              skipWhenQuiet: skipWhenQuiet === true,
            } satisfies AfterListener);
      const loud = when !== undefined && skipWhenQuiet !== true ? 1 : 0;
      return this.effect(
        () => {
          if (prepend) target.unshift(entry);
          else target.push(entry);
          own.loudAfter.count += loud;
          return () => {
            const at = target.indexOf(entry);
            if (at === -1) return;
            target.splice(at, 1);
            own.loudAfter.count -= loud;
          };
        },
        `ctx.on(${JSON.stringify(name)})`,
      );
    },
    // Global: cordis asks this hook with the registering context as `this`, and would otherwise skip it for a
    // context with a filter (`ctx.extend({ [Context.filter]: … })`), whose listener then went to cordis's own list,
    // never called (a pre-execute listener dropped lets through what it meant to narrow).
    { global: true },
  );
  return lists;
}

/** `callback` called only when `when` accepts the arguments (or throws, which is logged). */
function filtered(ctx: Context, name: string, when: Listener, callback: Listener): Listener {
  return (...args) => {
    let wanted: unknown = true;
    try {
      wanted = when(...args);
    } catch (error) {
      warn(
        ctx,
        `the \`when\` predicate of a ${name} listener failed (contained); the listener is called`,
        error,
      );
    }
    return wanted ? callback(...args) : undefined;
  };
}

/**
 * Whether cordis itself holds a listener of `name` (one registered before the host's hook), through the public
 * `events.dispatch` lookup. Should that lookup ever fail or change shape, the answer is yes: an owned waterfall is
 * then forwarded to cordis as well, which costs time and never drops a listener.
 */
function cordisListens(root: Context, name: string): boolean {
  try {
    const found: unknown = root.events.dispatch('waterfall', [name]);
    return !Array.isArray(found) || found.length > 0;
  } catch {
    return true;
  }
}

/**
 * A check of whether an owned waterfall has anyone to dispatch to, so a hot path can skip it. Resolved once: the
 * list is changed in place by registration and disposal, and what cordis held at the takeover never changes.
 * @param lists the app's lists ({@link containListeners})
 * @param name one of the {@link OWNED_WATERFALLS}
 * @returns `() => boolean`
 */
export function listening(lists: ContainedListeners, name: keyof Events): () => boolean {
  const list = lists.get(name as string);
  if (list === undefined || lists.forwarded.has(name as string)) return () => true;
  return () => list.length > 0;
}

/**
 * Runs one of the {@link OWNED_WATERFALLS} as cordis's `ctx.waterfall` would: the listeners in order over a
 * snapshot of the list, each given `next()` (callable once), `inner` last; a listener's throw or rejection
 * propagates. A waterfall cordis also holds listeners of runs cordis's own dispatch of them as its innermost step.
 * @param lists the app's lists ({@link containListeners})
 * @param name the waterfall
 * @param args its arguments, without `next`
 * @param inner the innermost step
 */
export function ownedWaterfall<R>(
  lists: ContainedListeners,
  name: keyof Events,
  args: readonly unknown[],
  inner: () => R,
): R {
  const chain = listeners(lists, name);
  const last: () => R = lists.forwarded.has(name as string)
    ? () => (lists.events.waterfall as (...all: unknown[]) => R)(name, ...args, inner)
    : inner;
  let index = 0;
  const dispatch = (): R => {
    const callback = chain[index++];
    if (callback === undefined) return last();
    let called = false;
    const next = (): R => {
      if (called) throw new Error('next() called multiple times');
      called = true;
      return dispatch();
    };
    return callback(...args, next) as R;
  };
  return dispatch();
}

/** The callbacks currently registered for `name`, snapshot in dispatch order. */
function listeners(lists: ContainedListeners, name: keyof Events): Listener[] {
  return [...(lists.get(name as string) ?? [])];
}

/** Where contained errors go: the context's logger (visible once an exporter is registered). */
export function warn(ctx: Context, message: string, error?: unknown): void {
  const detail = error === undefined ? '' : `: ${describeError(error)}`;
  ctx.logger('host').warn(`${message}${detail}`);
}

/** The message of anything thrown. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Runs a `(…args, next) => Promise<void>` waterfall in which every listener is contained: a listener that throws
 * before calling `next` has the rest of the chain run for it; one that throws after is only logged. `next()` runs
 * the rest once: calling it again (or after the host called it for a listener that returned) gives the same
 * promise. Resolves
 * after the innermost step and every listener have settled. Never rejects (unless `inner` does, with no
 * listener registered). `lists` may be passed pre-resolved: reaching the root costs about a microsecond.
 */
export async function containedWaterfall(
  ctx: Context,
  name: keyof Events,
  args: unknown[],
  inner: () => Promise<void>,
  lists: ContainedListeners = containListeners(ctx),
): Promise<void> {
  const chain = listeners(lists, name);
  if (chain.length === 0) return inner();
  const dispatch = async (index: number): Promise<void> => {
    if (index >= chain.length) {
      try {
        await inner();
      } catch (error) {
        warn(ctx, `the innermost ${String(name)} step failed`, error);
      }
      return;
    }
    let called: Promise<void> | undefined;
    // Runs the rest once; a second call (a listener's own, after the host called it for the listener) gets the
    // same promise instead of a throw, which from a listener's timer would be an uncaught exception.
    const next = (): Promise<void> => (called ??= dispatch(index + 1));
    try {
      await chain[index]!(...args, next);
    } catch (error) {
      warn(ctx, `a ${String(name)} listener failed (contained)`, error);
    }
    // A listener that never called next (or threw first) must not cut the others off.
    await (called ?? next());
  };
  await dispatch(0);
}

/**
 * The `after` listeners of `session/event` once an append's waterfall has settled: each is asked, in order,
 * whether it wants the event, and called (contained, with a `next()` already done) if it does. Returns undefined,
 * with nothing allocated, when none wants it (nearly every append), so the caller awaits nothing; else a promise
 * that never rejects.
 * @param ctx where a failure is logged
 * @param after the listeners (`lists.after.get('session/event')`, resolved once by the caller)
 * @param quiet whether the session is quiet now (asked before each `skipWhenQuiet` listener: one before it may wake it)
 */
export function runAfter(
  ctx: Context,
  after: readonly AfterListener[],
  session: unknown,
  event: unknown,
  quiet: () => boolean,
): Promise<void> | undefined {
  if (after.length === 0) return undefined;
  const first = nextWanted(ctx, after, 0, session, event, quiet);
  // Copied only once one is due: a listener's appends or disposal must not shift the ones after it.
  return first === -1 ? undefined : callAfter(ctx, after.slice(first), session, event, quiet);
}

async function callAfter(
  ctx: Context,
  after: readonly AfterListener[],
  session: unknown,
  event: unknown,
  quiet: () => boolean,
): Promise<void> {
  // An earlier listener's appends may change what a later one wants: each is asked right before its turn.
  for (let i = 0; i !== -1; i = nextWanted(ctx, after, i + 1, session, event, quiet)) {
    try {
      await after[i]!.callback(session, event, done);
    } catch (error) {
      warn(ctx, `a ${AFTER_EVENT} listener failed (contained)`, error);
    }
  }
}

/** The index of the next `after` listener from `from` that wants the event, or -1; a throwing predicate is logged. */
function nextWanted(
  ctx: Context,
  after: readonly AfterListener[],
  from: number,
  session: unknown,
  event: unknown,
  quiet: () => boolean,
): number {
  for (let i = from; i < after.length; i++) {
    const listener = after[i]!;
    if (listener.skipWhenQuiet && quiet()) continue;
    try {
      if (listener.when(session, event)) return i;
    } catch (error) {
      warn(ctx, `the \`after\` predicate of a ${AFTER_EVENT} listener failed (contained)`, error);
    }
  }
  return -1;
}

const done = (): Promise<void> => Promise.resolve();

/** Emits to every listener of `name`, containing and logging each listener's error. */
export function containedEmit(
  ctx: Context,
  name: keyof Events,
  args: unknown[],
  lists: ContainedListeners = containListeners(ctx),
): void {
  if ((lists.get(name as string)?.length ?? 0) === 0) return;
  for (const listener of listeners(lists, name)) {
    try {
      const result = listener(...args);
      if (result instanceof Promise)
        result.catch((error) => warn(ctx, `a ${String(name)} listener failed`, error));
    } catch (error) {
      warn(ctx, `a ${String(name)} listener failed (contained)`, error);
    }
  }
}
