/**
 * dsh-mode: a declarative policy engine for AI coding-agent session modes.
 *
 * Re-exports the public surface of each layer: the pure policy compiler, the reference host's seams and
 * services, and the mode engine plugin. See the README of each folder under `src/`.
 * @module
 */
export * from './compile/index.js';
export * from './host/index.js';
export * from './engine/index.js';
