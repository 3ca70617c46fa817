// The baseline: a bare node:https server with the same certificate and keep-alive settings as ours,
// that reads the body, JSON.parses it and answers a fixed JSON body of the same size as our answer for
// that request (chosen by the URL path, /interpret/<case id>). The distance between it and our server
// is what routing, validation, the interpreter, patching and logging cost.
// Run as a child: node bench/baseline-server.ts <cert> <key> <sizes.json>; reports its
// port over IPC.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [certFile, keyFile, sizesFile] = process.argv.slice(2);
const sizes = JSON.parse(readFileSync(sizesFile!, 'utf8')) as Record<string, number>;

/** `{"apiVersion":…,"response":{"uid":…,"successful":true,"patch":"AAAA…"}}` padded to exactly `size` bytes. */
function fixedAnswer(size: number): Buffer {
  const head =
    '{"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterContext","response":{"uid":"00000000-0000-0000-0000-000000000000","successful":true,"patch":"';
  const tail = '"}}';
  return Buffer.from(head + 'A'.repeat(Math.max(0, size - head.length - tail.length)) + tail);
}

const answers = new Map(Object.entries(sizes).map(([id, size]) => [`/interpret/${id}`, fixedAnswer(size)]));
const fallback = fixedAnswer(512);

const server = createServer(
  { cert: readFileSync(certFile!), key: readFileSync(keyFile!), minVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'], keepAliveTimeout: 95_000 },
  (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const path = request.url!.split('?')[0]!;
      const body = answers.get(path) ?? fallback;
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      response.end(body);
    });
  },
);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => process.exit(0));
