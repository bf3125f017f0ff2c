/**
 * Request-header bookkeeping: the delta between two consecutive headers and its replay. The loop logs a full
 * `request/header` at a session's first request (and after a resume), then a `request/header-delta` that says
 * exactly what changed, or a full header with reason `fallback` when a delta cannot express the change (duplicate
 * tool names). `replayHeaders(events)` rebuilds, byte for byte, the header of every model request from those
 * events alone (invariant 3 in docs/architecture.md).
 * @module
 */
import type {
  RequestHeader,
  RequestHeaderDelta,
  SessionEvent,
  SessionEventMap,
  ToolSchema,
} from './types.js';

/** How the header of a step is logged: nothing (unchanged), a delta, or a full header. */
export type HeaderLog =
  | { kind: 'none' }
  | { kind: 'delta'; delta: RequestHeaderDelta }
  | { kind: 'full'; reason: SessionEventMap['request/header']['reason'] };

/** Decides how to log `next` given the previously logged header (null: none yet in this agent's life). */
export function planHeaderLog(
  previous: RequestHeader | null,
  next: RequestHeader,
  resumed: boolean,
): HeaderLog {
  if (previous === null) return { kind: 'full', reason: resumed ? 'resume' : 'initial' };
  const delta = diffHeaders(previous, next);
  if (delta === null) return { kind: 'full', reason: 'fallback' };
  return Object.keys(delta).length === 0 ? { kind: 'none' } : { kind: 'delta', delta };
}

/** The delta from `a` to `b`; `{}` when nothing changed; null when a delta cannot express it. */
export function diffHeaders(a: RequestHeader, b: RequestHeader): RequestHeaderDelta | null {
  const before = byName(a.tools);
  const after = byName(b.tools);
  if (!before || !after) return null;
  const delta: RequestHeaderDelta = {};
  if (a.system !== b.system) delta.system = b.system;
  const removed = a.tools.filter((tool) => !after.has(tool.name)).map((tool) => tool.name);
  const added = b.tools.filter((tool) => !before.has(tool.name));
  const changed = b.tools.filter((tool) => {
    const old = before.get(tool.name);
    return old !== undefined && old !== tool && JSON.stringify(old) !== JSON.stringify(tool);
  });
  if (removed.length) delta.removed = removed;
  if (added.length) delta.added = added;
  if (changed.length) delta.changed = changed;
  const derived = applyTools(a.tools, delta).map((tool) => tool.name);
  const order = b.tools.map((tool) => tool.name);
  if (derived.join('\u0000') !== order.join('\u0000')) delta.order = order;
  return delta;
}

/** Applies a delta to the header it was computed from. */
export function applyDelta(header: RequestHeader, delta: RequestHeaderDelta): RequestHeader {
  return { system: delta.system ?? header.system, tools: applyTools(header.tools, delta) };
}

function applyTools(tools: ToolSchema[], delta: RequestHeaderDelta): ToolSchema[] {
  const removed = new Set(delta.removed ?? []);
  const changed = new Map((delta.changed ?? []).map((tool) => [tool.name, tool]));
  const kept = tools.filter((tool) => !removed.has(tool.name)).map((tool) => changed.get(tool.name) ?? tool);
  const all = [...kept, ...(delta.added ?? [])];
  if (!delta.order) return all;
  const index = new Map(all.map((tool) => [tool.name, tool]));
  return delta.order.map((name) => {
    const tool = index.get(name);
    if (!tool) throw new Error(`header delta orders an unknown tool \`${name}\``);
    return tool;
  });
}

function byName(tools: ToolSchema[]): Map<string, ToolSchema> | null {
  const map = new Map<string, ToolSchema>();
  for (const tool of tools) {
    if (map.has(tool.name)) return null;
    map.set(tool.name, tool);
  }
  return map;
}

/** The header in effect after the last `request/header` or delta in `events` (null before the first). */
export function foldRequestHeader(events: readonly SessionEvent[]): RequestHeader | null {
  let header: RequestHeader | null = null;
  for (const event of events) header = step(header, event);
  return header;
}

/**
 * Rebuilds the header of every answered model request: one entry per `assistant/message`, the header in effect
 * at that point (deep copies, so the result can be compared with what a model recorded).
 * @throws when a delta appears before any full header
 */
export function replayHeaders(events: readonly SessionEvent[]): RequestHeader[] {
  const headers: RequestHeader[] = [];
  let header: RequestHeader | null = null;
  for (const event of events) {
    header = step(header, event);
    if (event.type === 'assistant/message') {
      if (!header) throw new Error(`seq ${event.seq}: a model answered before any request/header was logged`);
      headers.push(structuredClone(header));
    }
  }
  return headers;
}

function step(header: RequestHeader | null, event: SessionEvent): RequestHeader | null {
  if (event.type === 'request/header') return event.data.header;
  if (event.type === 'request/header-delta') {
    if (!header) throw new Error(`seq ${event.seq}: request/header-delta before any request/header`);
    return applyDelta(header, event.data);
  }
  return header;
}
