// `serve` in N processes sharing one port (node:cluster, round-robin), to measure one process against
// two on the benchmark machine. Usage: node bench/cluster-serve.ts N serve [options]
// (the options must include the certificate files so every worker serves the same certificate).
import cluster from 'node:cluster';

const [count, ...serveArgs] = process.argv.slice(2);
const workers = Number(count);
cluster.setupPrimary({ exec: 'dist/src/cli.js', args: serveArgs });
let listening = 0;
cluster.on('listening', (_worker, address) => {
  listening++;
  if (listening === workers) process.stdout.write(`${JSON.stringify({ msg: 'cluster serving', port: address.port, workers })}\n`);
});
for (let i = 0; i < workers; i++) cluster.fork();
process.on('SIGTERM', () => {
  for (const worker of Object.values(cluster.workers ?? {})) worker?.kill('SIGTERM');
  cluster.on('exit', () => {
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
});
