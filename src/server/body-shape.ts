// Bounds on the work a JSON body can cause, counted from its bytes as they arrive (one pass, outside
// strings, no allocation): values, keys in one object and nesting. Parsing, copying and diffing cost per
// value, and a single object with hundreds of thousands of keys costs more per key (V8's dictionary of
// keys grows by rehashing), so bytes alone do not bound the time a body holds the event loop.
// The bounds are far above real objects (docs/decisions/0015-bounds-on-what-a-body-holds.md):
// Kubernetes stores at most 1.5 MiB per object, and Karmada's largest requests carry two of them.
import { MAX_NESTING_DEPTH } from '../protocol/exchange.ts';

/**
 * JSON values in one request (objects, arrays, members and elements, the top level included): above the
 * densest object Kubernetes can store (1.5 MiB), low enough that each step of a request at the bound is
 * short (decision 0015 has the figures).
 */
export const MAX_BODY_VALUES = 100_000;
/**
 * Keys in one JSON object: above a Workflow's status.nodes filling 1.5 MiB with the smallest nodes
 * (decision 0015). One object's keys cost more each as their number grows.
 */
export const MAX_OBJECT_KEYS = 20_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const IN_OBJECT = 1;
const IN_ARRAY = 2;

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * Counts a JSON text fed in pieces. Exact for valid JSON; for invalid JSON the counts are approximate and
 * JSON.parse reports the error later. UTF-8 continuation bytes are never ASCII, so bytes are enough.
 */
export class BodyShape {
  values = 0;
  /** Refusal message once a bound is passed; later bytes are not looked at. */
  problem: string | undefined;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Set after '[': the next byte that is not whitespace or ']' starts the array's first element. */
  private arrayOpened = false;
  private readonly container = new Uint8Array(MAX_NESTING_DEPTH + 2);
  private readonly keys = new Int32Array(MAX_NESTING_DEPTH + 2);
  private readonly maxValues: number;
  private readonly maxKeys: number;

  constructor(maxValues = MAX_BODY_VALUES, maxKeys = MAX_OBJECT_KEYS) {
    this.maxValues = maxValues;
    this.maxKeys = maxKeys;
  }

  /** Feeds the next piece; returns the problem once a bound is passed. */
  feed(bytes: Uint8Array): string | undefined {
    if (this.problem !== undefined) return this.problem;
    if (this.values === 0) this.values = 1; // the top-level value
    let { depth, inString, escaped, arrayOpened, values } = this;
    const { container, keys } = this;
    for (let i = 0; i < bytes.length; i++) {
      if (inString) {
        // Most of a body is string bytes: jump to the quote that ends the string (a native search) instead
        // of looking at each byte; it may only end a piece, and a backslash left at the end escapes the next.
        if (escaped) {
          escaped = false;
          continue;
        }
        const end = stringEnd(bytes, i);
        if (end < 0) {
          escaped = backslashesBefore(bytes, bytes.length, i) % 2 === 1;
          break;
        }
        inString = false;
        i = end;
        continue;
      }
      const byte = bytes[i]!;
      if (isSpace(byte)) continue;
      if (arrayOpened) {
        arrayOpened = false;
        if (byte !== CLOSE_ARRAY) values++;
      }
      if (byte === QUOTE) {
        inString = true;
      } else if (byte === COLON) {
        values++;
        if (container[depth] === IN_OBJECT && ++keys[depth]! > this.maxKeys) {
          this.problem = `request has an object with more than ${this.maxKeys} keys; Kubernetes objects have a few thousand at most`;
          break;
        }
      } else if (byte === COMMA) {
        if (container[depth] === IN_ARRAY) values++;
      } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        if (depth >= MAX_NESTING_DEPTH) {
          this.problem = `request nests deeper than ${MAX_NESTING_DEPTH} levels; Kubernetes objects nest a few dozen`;
          break;
        }
        depth++;
        container[depth] = byte === OPEN_OBJECT ? IN_OBJECT : IN_ARRAY;
        keys[depth] = 0;
        arrayOpened = byte === OPEN_ARRAY;
      } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        if (depth > 0) depth--;
      }
      if (values > this.maxValues) {
        this.problem = `request has more than ${this.maxValues} JSON values; Kubernetes objects have tens of thousands at most`;
        break;
      }
    }
    Object.assign(this, { depth, inString, escaped, arrayOpened, values });
    return this.problem;
  }
}

/** The index of the quote that ends a string whose bytes start at `from` (no escape pending), or -1 if not in `bytes`. */
function stringEnd(bytes: Uint8Array, from: number): number {
  for (let at = from; ; at++) {
    at = bytes.indexOf(QUOTE, at);
    // A quote after an even run of backslashes ends the string; after an odd one it is escaped.
    if (at < 0 || backslashesBefore(bytes, at, from) % 2 === 0) return at;
  }
}

/** How many backslashes come right before `at`, looking no further back than `from`. */
function backslashesBefore(bytes: Uint8Array, at: number, from: number): number {
  let n = 0;
  while (at - n - 1 >= from && bytes[at - n - 1] === BACKSLASH) n++;
  return n;
}
