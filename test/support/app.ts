import { pino } from 'pino';
import { Registry } from '../../src/interpreter/registry.js';
import { buildApp, type AppOptions } from '../../src/server/app.js';
import { brokenModule, workloadModule } from './workload-module.js';

export const silentLogger = pino({ level: 'silent' });

export function testRegistry(): Registry {
  return new Registry({ 'builtin-ts': [workloadModule, brokenModule] });
}

export function testApp(overrides: Partial<AppOptions> = {}) {
  return buildApp({ registry: testRegistry(), logger: silentLogger, ...overrides });
}
