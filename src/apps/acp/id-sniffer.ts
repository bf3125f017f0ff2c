/**
 * Reads the top-level `"id"` of a JSON-RPC message from its bytes as they stream by, without keeping them: the
 * way to answer a line too long to parse with an error for its request. A small state machine over the
 * top-level object (strings and nesting tracked, everything below the first level skipped); it keeps at most
 * the bytes of one key and of the id's value (up to 1 KiB), so its memory is constant whatever the line's length.
 * @module
 */
import type { JsonRpcId } from '@agentclientprotocol/sdk';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_VALUE_BYTES = 1024;

/** One sniffer per line. */
export class IdSniffer {
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** The bytes of the top-level key being read, or null. */
  #key: number[] | null = null;
  #expectKey = false;
  #lastKey = '';
  /** The bytes of the id's value while it is read, or null. */
  #value: number[] | null = null;
  #id: JsonRpcId | undefined;
  #done = false;

  /** Feeds the next bytes of the line. */
  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.byteLength && !this.#done; i++) this.#step(bytes[i]!);
  }

  /** The id, when the line's top level held a string or number `id` (`null` for an explicit null). */
  id(): JsonRpcId | undefined {
    if (this.#value !== null) this.#endValue();
    return this.#id;
  }

  #step(b: number): void {
    if (this.#value !== null) {
      // The id's value ends at a top-level `,` or `}` outside strings.
      if (!this.#inString && this.#depth === 1 && (b === 0x2c || b === 0x7d)) {
        this.#endValue();
        if (this.#done) return;
      } else {
        this.#value.push(b);
        if (this.#value.length > MAX_VALUE_BYTES) this.#done = true;
      }
    }
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (b === BACKSLASH) this.#escaped = true;
      else if (b === QUOTE) {
        this.#inString = false;
        if (this.#key !== null) {
          this.#lastKey = Buffer.from(this.#key).toString('utf8');
          this.#key = null;
        }
        return;
      }
      if (this.#key !== null) {
        this.#key.push(b);
        // Only `id` matters: a longer key is no longer collected.
        if (this.#key.length > 8) this.#key = [];
      }
      return;
    }
    switch (b) {
      case QUOTE:
        this.#inString = true;
        if (this.#depth === 1 && this.#expectKey && this.#value === null) {
          this.#key = [];
          this.#expectKey = false;
        }
        return;
      case 0x7b: // {
      case 0x5b: // [
        if (this.#depth === 0 && b !== 0x7b) this.#done = true;
        this.#depth++;
        if (this.#depth === 1) this.#expectKey = true;
        return;
      case 0x7d: // }
      case 0x5d: // ]
        this.#depth--;
        if (this.#depth <= 0) this.#done = true;
        return;
      case 0x2c: // ,
        if (this.#depth === 1) this.#expectKey = true;
        return;
      case 0x3a: // :
        if (this.#depth === 1 && this.#lastKey === 'id' && this.#value === null && this.#id === undefined) {
          this.#value = [];
        }
        return;
      default:
        // Anything but whitespace before the top-level object: not a JSON-RPC object.
        if (this.#depth === 0 && b !== 0x20 && b !== 0x09 && b !== 0x0d) this.#done = true;
    }
  }

  #endValue(): void {
    const raw = Buffer.from(this.#value ?? []).toString('utf8');
    this.#value = null;
    try {
      const value: unknown = JSON.parse(raw);
      if (typeof value === 'string' || typeof value === 'number' || value === null) this.#id = value;
    } catch {
      // not a readable id
    }
    // The first readable top-level id is the one answered.
    this.#done = this.#id !== undefined;
  }
}
