import { pino } from 'pino';
import { Registry } from '../../src/interpreter/registry.ts';
import { buildApp, type AppOptions } from '../../src/server/app.ts';
import { brokenModule, workloadModule } from './workload-module.ts';

export const silentLogger = pino({ level: 'silent' });

export function testRegistry(): Registry {
  return new Registry({ 'builtin-ts': [workloadModule, brokenModule] });
}

export function testApp(overrides: Partial<AppOptions> = {}) {
  return buildApp({ registry: testRegistry(), logger: silentLogger, ...overrides });
}

export interface HttpAnswer {
  status: number;
  headers: import('node:http').IncomingHttpHeaders;
  body: string;
}

const listening = new Map<ReturnType<typeof buildApp>, Promise<number>>();

/** Closes every app sendHttp started listening (afterAll). */
export async function closeListening(): Promise<void> {
  const apps = [...listening.keys()];
  listening.clear();
  await Promise.all(apps.map((app) => app.close()));
}

/** Sends one request to the app over a real loopback connection (the path Karmada's calls take). */
export async function sendHttp(
  app: ReturnType<typeof buildApp>,
  options: { method?: string; url: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<HttpAnswer> {
  let port = listening.get(app);
  if (!port) {
    port = app.listen({ port: 0, host: '127.0.0.1' }).then(() => (app.server.address() as import('node:net').AddressInfo).port);
    listening.set(app, port);
  }
  const { request } = await import('node:http');
  const target = await port;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: target, method: options.method ?? 'POST', path: options.url, headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
