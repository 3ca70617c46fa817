import { defineConfig } from 'vitest/config';

// `npm test`: unit and in-process tests, files sharing worker processes (isolate: false) so the suite
// runs in about a minute on 2 cores. `npm run test:integration`: real server processes under load and
// attack (timing bounds, signals, images), one file at a time.
export default defineConfig({
  test: {
    testTimeout: 20000,
    hookTimeout: 20000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'interpreters/**/*.test.ts'],
          exclude: ['test/integration/**'],
          pool: 'forks',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 120000,
        },
      },
    ],
  },
});
