#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm run build`, which `npm ci` runs via prepare).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/src/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('karmada-interpreter: dist/ is not built; run `npm ci` (or `npm run build`) in the checkout first\n');
  process.exit(1);
}
await import(cli.href);
