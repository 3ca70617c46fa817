// What "a well-formed answer" means for the reliability tests: HTTP 200, a ResourceInterpreterContext
// Karmada decodes, a uid echoed when the request had one, failures with a code and a message, and
// successes that pass Karmada's own response verification with a patch that applies.
import fastJsonPatch from 'fast-json-patch';
import { expect } from 'vitest';
import { verifyResponse } from '../../src/protocol/karmada-client.ts';
import type { InterpreterContext, InterpreterRequest } from '../../src/protocol/wire.ts';

export function expectWellFormed(status: number, text: string, sent: unknown): InterpreterContext {
  expect(status).toBe(200);
  const body = JSON.parse(text) as InterpreterContext;
  expect(body.apiVersion).toBe('config.karmada.io/v1alpha1');
  expect(body.kind).toBe('ResourceInterpreterContext');
  const response = body.response!;
  expect(typeof response.uid).toBe('string');
  expect(typeof response.successful).toBe('boolean');
  const request = (sent as { request?: InterpreterRequest } | null)?.request;
  // The uid is echoed whenever the request carries one, failures included (Karmada logs by it).
  if (typeof request?.uid === 'string') expect(response.uid).toBe(request.uid);
  if (!response.successful) {
    expect(Number.isInteger(response.status?.code)).toBe(true);
    expect(response.status!.code).toBeGreaterThanOrEqual(400);
    expect(response.status!.code).toBeLessThan(600);
    expect(typeof response.status!.message).toBe('string');
    expect(response.status!.message!.length).toBeGreaterThan(0);
    return body;
  }
  expect(verifyResponse(request!, body)).toBeUndefined();
  if (response.patch) {
    const ops = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8'));
    expect(Array.isArray(ops)).toBe(true);
    // The ban is off: "__proto__" is an ordinary key on the wire (Go's json-patch applies such ops, e.g.
    // a Lua AggregateStatus that rebuilds status removes a "__proto__" key the member reported).
    fastJsonPatch.applyPatch(JSON.parse(JSON.stringify(request!.object)), ops, true, false, false);
  }
  return body;
}
