/**
 * The runtime catalogue of session events agrees with what the code declares: its keys equal `SessionEventMap`'s
 * (at the type level, so tsc fails on drift, and from the declarations in src/ read with the TypeScript parser),
 * each payload is the declared payload type, and `surface` agrees with `SURFACE_EVENT_TYPES`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { listSessionEvents, SESSION_EVENT_CATALOG } from '../../src/event-catalog.js';
import { HOST_EVENT_CATALOG } from '../../src/host/event-catalog.js';
import { SURFACE_EVENT_TYPES, type SessionEventType } from '../../src/host/types.js';

const SRC = resolve(import.meta.dirname, '../../src');

/** Every `SessionEventMap` member declared under src/ (the host's interface and plugins' augmentations). */
function declaredEvents(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of readdirSync(SRC, { recursive: true }).map(String)) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(join(SRC, file), 'utf8');
    if (!text.includes('SessionEventMap')) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isInterfaceDeclaration(node) && node.name.text === 'SessionEventMap') {
        for (const member of node.members) {
          if (ts.isPropertySignature(member) && member.name && ts.isStringLiteral(member.name)) {
            out.set(member.name.text, member.type?.getText(source).replace(/\s+/g, ' ') ?? 'unknown');
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

describe('session event catalogue', () => {
  it('has exactly the keys of SessionEventMap (type level)', () => {
    expectTypeOf<keyof typeof SESSION_EVENT_CATALOG>().toEqualTypeOf<SessionEventType>();
  });

  it('has exactly the event types declared in src/', () => {
    const declared = declaredEvents();
    expect(declared.size).toBeGreaterThan(10);
    expect(Object.keys(SESSION_EVENT_CATALOG).sort()).toEqual([...declared.keys()].sort());
  });

  it('gives each event the payload type it is declared with', () => {
    const declared = declaredEvents();
    for (const entry of listSessionEvents()) expect(entry.payload, entry.type).toBe(declared.get(entry.type));
  });

  it('names each entry by its key', () => {
    for (const [key, entry] of Object.entries(SESSION_EVENT_CATALOG)) expect(entry.type).toBe(key);
  });

  it('agrees with SURFACE_EVENT_TYPES', () => {
    for (const entry of listSessionEvents()) {
      expect(entry.surface, entry.type).toBe(SURFACE_EVENT_TYPES.has(entry.type) ? 'surface' : 'log-only');
    }
    for (const type of SURFACE_EVENT_TYPES) expect(Object.keys(SESSION_EVENT_CATALOG)).toContain(type);
  });

  it('lists the host’s events first, in declaration order, then the engine’s', () => {
    const host = Object.keys(HOST_EVENT_CATALOG);
    expect(listSessionEvents().map((e) => e.type)).toEqual([...host, 'mode/set']);
    expect(host).toEqual([...declaredEvents().keys()].filter((k) => k !== 'mode/set'));
  });

  it('says who writes and reads every event', () => {
    for (const entry of listSessionEvents()) {
      expect(entry.writer.length, entry.type).toBeGreaterThan(0);
      expect(entry.readers.length, entry.type).toBeGreaterThan(0);
      expect(entry.description, entry.type).toMatch(/\.$/);
    }
  });
});
