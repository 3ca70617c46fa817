// POST /preserve: preview failover state preservation for tools and UIs (Karmada never calls it).
// Body {"policy" | "rules", "observedObject"}; answer {"labels", "errors", "warnings"} as the CLI's -o json.
// The rules' JSONPath is user input: the server evaluates it on the untrusted-work pool.
import type { FastifyInstance } from 'fastify';
import type { Registry } from '../interpreter/registry.ts';
import { statusReflector } from '../interpreter/reflect.ts';
import { InterpreterError } from '../interpreter/types.ts';
import { PreservationInputError, preserveForObject, type EvaluateRules, type ReflectStatus } from '../preservation/index.ts';
import { MAX_NESTING_DEPTH, nestsDeeperThan } from '../protocol/exchange.ts';
import type { ReadBody } from './request-body.ts';

export function registerPreserveRoute(app: FastifyInstance, registry: Registry, options: { evaluate?: EvaluateRules; reflect?: ReflectStatus } = {}): void {
  const reflect = options.reflect ?? statusReflector(registry);
  app.post('/preserve', async (request, reply) => {
    const body = request.body as ReadBody | undefined;
    if (body?.truncatedAt !== undefined) return reply.code(413).send({ error: `body exceeds the limit of ${body.truncatedAt} bytes` });
    if (body?.refused !== undefined) return reply.code(400).send({ error: body.refused });
    let input: unknown;
    try {
      input = JSON.parse(body?.body ?? '');
    } catch (error) {
      return reply.code(400).send({ error: `body is not valid JSON: ${(error as Error).message}` });
    }
    if (!body?.shapeChecked && nestsDeeperThan(input, MAX_NESTING_DEPTH)) {
      return reply.code(400).send({ error: `body nests deeper than ${MAX_NESTING_DEPTH} levels; Kubernetes objects nest a few dozen` });
    }
    if (!input || typeof input !== 'object' || Array.isArray(input)) {
      return reply.code(400).send({ error: 'body must be an object {"policy" | "rules", "observedObject"}' });
    }
    try {
      return reply.send(await preserveForObject(input as Parameters<typeof preserveForObject>[0], reflect, options.evaluate));
    } catch (error) {
      if (error instanceof PreservationInputError) return reply.code(400).send({ error: error.message });
      if (error instanceof InterpreterError) return reply.code(422).send({ error: error.message });
      throw error;
    }
  });
}
