#!/usr/bin/env node
// Entry point of the `karmada-interpreter` command; the dispatch table lives in src/cli/main.ts.
import { main } from './cli/main.ts';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
