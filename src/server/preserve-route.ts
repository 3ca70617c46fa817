// POST /preserve: preview failover state preservation for tools and UIs (Karmada never calls it).
// Body {"policy" | "rules", "observedObject"}; answer {"labels", "errors", "warnings"} as the CLI's -o json.
import type { FastifyInstance } from 'fastify';
import type { Registry } from '../interpreter/registry.ts';
import { statusReflector } from '../interpreter/reflect.ts';
import { InterpreterError } from '../interpreter/types.ts';
import { PreservationInputError, preserveForObject } from '../preservation/index.ts';
import type { LimitedBody } from './body.ts';

export function registerPreserveRoute(app: FastifyInstance, registry: Registry): void {
  const reflect = statusReflector(registry);
  app.post('/preserve', async (request, reply) => {
    const body = request.body as LimitedBody | undefined;
    if (body?.truncatedAt !== undefined) return reply.code(413).send({ error: `body exceeds the limit of ${body.truncatedAt} bytes` });
    let input: unknown;
    try {
      input = JSON.parse(body?.body ?? '');
    } catch (error) {
      return reply.code(400).send({ error: `body is not valid JSON: ${(error as Error).message}` });
    }
    if (!input || typeof input !== 'object' || Array.isArray(input)) {
      return reply.code(400).send({ error: 'body must be an object {"policy" | "rules", "observedObject"}' });
    }
    try {
      return reply.send(await preserveForObject(input as Parameters<typeof preserveForObject>[0], reflect));
    } catch (error) {
      if (error instanceof PreservationInputError) return reply.code(400).send({ error: error.message });
      if (error instanceof InterpreterError) return reply.code(422).send({ error: error.message });
      throw error;
    }
  });
}
