// Small helpers shared by the CLI commands.
import { readFile } from 'node:fs/promises';
import { readYamlDocuments } from '../k8s/yaml-documents.ts';

/** Reads a YAML or JSON file ('-' = stdin) and returns every document. */
export async function readDocuments(path: string): Promise<unknown[]> {
  const text = path === '-' ? await readStdin() : await readFile(path, 'utf8');
  const values: unknown[] = [];
  for (const doc of readYamlDocuments(text)) {
    if (doc.error !== undefined) throw new Error(`${path}: document ${doc.document}: ${doc.error}`);
    if (doc.value !== null && doc.value !== undefined) values.push(doc.value);
  }
  return values;
}

export async function readSingleDocument(path: string): Promise<Record<string, any>> {
  const docs = await readDocuments(path);
  if (docs.length !== 1 || typeof docs[0] !== 'object' || Array.isArray(docs[0])) {
    throw new Error(`${path}: expected exactly one object, found ${docs.length} document(s)`);
  }
  return docs[0] as Record<string, any>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class UsageError extends Error {}
