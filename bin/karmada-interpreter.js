#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm run build`, which `npm ci` runs via prepare).
import { existsSync } from 'node:fs';

// An older Node.js fails while linking dist/ with a message about a missing export: say what is wrong instead.
const major = Number(process.versions.node.split('.')[0]);
if (major < 26) {
  process.stderr.write(
    `karmada-interpreter: needs Node.js 26 or later, this is ${process.version}; run it with the checkout's own (node_modules/.bin/node, which npm scripts and npx use)\n`,
  );
  process.exit(1);
}

const cli = new URL('../dist/src/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('karmada-interpreter: dist/ is not built; run `npm ci` (or `npm run build`) in the checkout first\n');
  process.exit(1);
}
await import(cli.href);
