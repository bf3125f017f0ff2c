/**
 * A parsed text's positions as plain data: the shape of its YAML tree (mappings, sequences, other nodes) with each
 * node's range, so that `locate` and `keyRange` can answer without the `yaml` package or the text. `parse.ts`
 * builds it (`positionTree`); the built-in snapshot stores it as JSON (`builtin-snapshot.ts`).
 *
 * Contract: `treeLocator(tree)` answers exactly as the `locate`/`keyRange` of the `ParsedDocument` the tree was
 * built from, for every path, existing or not (the closest existing parent, an empty value's key); each answer is
 * a fresh object. A test compares the two over every path of many files.
 * @module
 */
import type { JsonPath, Range } from './types.js';

/** A range as `[startLine, startColumn, endLine, endColumn]` (1-based, end exclusive). */
export type RangeTuple = [number, number, number, number];

/** One node: `m` for a mapping, `s` for a sequence, neither for anything else (scalars, aliases). */
export interface PositionNode {
  /** The node's range; absent when the node has none. */
  r?: RangeTuple;
  /** A mapping's pairs, in order. */
  m?: PositionPair[];
  /** A sequence's items, in order (null for an item that is no node). */
  s?: (PositionNode | null)[];
}

/** One pair of a mapping. */
export interface PositionPair {
  /** The key as a lookup reads it (a scalar key's value as a string), or null for a non-scalar key. */
  k: string | null;
  /** The key node, or null for a pair without one. */
  kn: PositionNode | null;
  /** The value node, or null for a pair without one. */
  v: PositionNode | null;
  /** Whether the value is empty (`key:` and nothing): no value, no range, or a zero-width one. */
  e: boolean;
}

/** What a tree answers: the two lookups of a parsed document. */
export interface TreeLocator {
  locate(path: JsonPath): Range | undefined;
  keyRange(path: JsonPath): Range | undefined;
}

/** Mappings this small are searched directly (as in `parse.ts`). */
const INDEX_MIN_ITEMS = 16;

/**
 * The lookups of a position tree.
 * @param root the tree's root (the document's contents), or null for an empty document
 * @returns `locate` and `keyRange`, as the parsed document's
 */
export function treeLocator(root: PositionNode | null): TreeLocator {
  const index = new WeakMap<PositionNode, Map<string, PositionPair>>();
  const pairOf = (map: PositionNode, key: string): PositionPair | undefined => {
    const pairs = map.m!;
    if (pairs.length < INDEX_MIN_ITEMS) return pairs.find((p) => p.k === key);
    let byKey = index.get(map);
    if (byKey === undefined) {
      byKey = new Map();
      for (const p of pairs) if (p.k !== null && !byKey.has(p.k)) byKey.set(p.k, p);
      index.set(map, byKey);
    }
    return byKey.get(key);
  };
  const find = (path: JsonPath, wantKey: boolean): Range | undefined => {
    let node: PositionNode | null = root;
    let keyNode: PositionNode | undefined;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      let next: PositionNode | null | undefined;
      let nextKey: PositionNode | undefined;
      if (node?.m !== undefined) {
        const pair = pairOf(node, String(seg));
        if (pair) {
          // A found pair has a scalar key, so its key node is there.
          nextKey = pair.kn ?? undefined;
          next = pair.e && i === path.length - 1 ? pair.kn : (pair.v ?? pair.kn);
        }
      } else if (node?.s !== undefined && typeof seg === 'number') {
        next = node.s[seg];
      }
      if (next === undefined || next === null) {
        const parent = keyNode && wantKey ? keyNode : node;
        return rangeOf(parent) ?? rangeOf(keyNode);
      }
      node = next;
      keyNode = nextKey;
    }
    if (wantKey && keyNode) return rangeOf(keyNode);
    return rangeOf(node) ?? rangeOf(keyNode);
  };
  return { locate: (path) => find(path, false), keyRange: (path) => find(path, true) };
}

function rangeOf(node: PositionNode | null | undefined): Range | undefined {
  const r = node?.r;
  if (r === undefined) return undefined;
  return { start: { line: r[0], column: r[1] }, end: { line: r[2], column: r[3] } };
}
