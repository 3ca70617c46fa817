// An in-process HTTPS server on loopback with a fresh self-signed CA: what `conformance`, the
// end-to-end tests and the benchmark talk to, so they exercise the real TLS + HTTP path.
import { pino, type Logger } from 'pino';
import type { Registry } from '../interpreter/registry.ts';
import { buildApp, type AppOptions } from './app.ts';
import { generateSelfSigned } from './certificates.ts';

export interface LocalServer {
  url: string;
  ca: string;
  port: number;
  app: ReturnType<typeof buildApp>;
  close(): Promise<void>;
}

export async function startLocalServer(registry: Registry, options: Partial<AppOptions> & { logger?: Logger } = {}): Promise<LocalServer> {
  const certs = await generateSelfSigned();
  const app = buildApp({ registry, logger: options.logger ?? pino({ level: 'silent' }), ...options, https: { cert: certs.certPem, key: certs.keyPem } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `https://localhost:${port}/interpret`, ca: certs.caPem, port, app, close: () => app.close() };
}
