// Request values as Karmada holds them once Go's encoding/json decoded the request: golang/go
// src/encoding/json/decode.go, unquoteBytes, case 'u':
//   if utf16.IsSurrogate(rr) {
//     rr1 := getu4(s[r:])
//     if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar { /* A valid pair; consume. */ }
//     // Invalid surrogate; fall back to replacement rune.
//     rr = unicode.ReplacementChar
//   }
// so each escaped lone surrogate is one U+FFFD (JSON.parse keeps it), a valid pair is its character, and
// a leading U+FEFF is an ordinary character that Go keeps.
import { describe, expect, it } from 'vitest';
import { goDecoded, goText } from '../../src/protocol/go-json.ts';

describe('goDecoded', () => {
  it('turns each escaped lone surrogate into one U+FFFD, as Go, and keeps pairs and a leading BOM', () => {
    expect(goText(JSON.parse('"\\ud800"'))).toBe('\ufffd');
    expect(goText(JSON.parse('"a\\udc00b\\ud800"'))).toBe('a\ufffdb\ufffd');
    // A high surrogate followed by another high one: the first falls back to U+FFFD, the second is read again.
    expect(goText(JSON.parse('"\\ud800\\ud800"'))).toBe('\ufffd\ufffd');
    expect(goText(JSON.parse('"\\ud83d\\ude00"'))).toBe('😀');
    expect(goText(JSON.parse('"\\ufeffabc"'))).toBe('\ufeffabc');
  });

  it('returns the very value when Go reads it as JSON.parse did, and copies only the way to what changes', () => {
    const same = JSON.parse('{"spec":{"weird":"\\ufeffabc","\\ufeffk":[1,"x"]},"status":{"a":1}}');
    expect(goDecoded(same)).toBe(same);
    const object = JSON.parse('{"spec":{"s":"\\ud800","keep":{"a":1}},"status":{"a":1},"list":["x","\\udfff"]}');
    const decoded = goDecoded(object);
    expect(decoded).toEqual({ spec: { s: '\ufffd', keep: { a: 1 } }, status: { a: 1 }, list: ['x', '\ufffd'] });
    expect(decoded.status).toBe(object.status);
    expect(decoded.spec.keep).toBe(object.spec.keep);
    expect(object.spec.s).toBe('\ud800');
  });

  it('decodes keys too: two keys Go reads alike are one, the later winning; __proto__ stays a key', () => {
    const object = JSON.parse('{"\\ud800":1,"a":2,"\\udc00":3,"__proto__":{"x":"\\ud800"}}');
    const decoded = goDecoded(object);
    expect(Object.keys(decoded).sort()).toEqual(['__proto__', 'a', '\ufffd']);
    expect(decoded['\ufffd']).toBe(3);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(decoded, '__proto__')?.value).toEqual({ x: '\ufffd' });
  });
});
