// Where the caBundle for Karmada comes from: an explicit CA file, else the ca.crt that cert-manager
// (and our self-signed default) writes next to the serving pair, else the serving certificate chain
// itself (Go's verifier accepts any certificate in the pool as a trust anchor, so a self-signed
// serving certificate works as its own CA).
import { X509Certificate } from 'node:crypto';
import { access, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface CaSource {
  /** Explicit PEM bundle (--ca-file). */
  caFile?: string;
  /** The serving certificate; its directory is searched for ca.crt. */
  certFile?: string;
}

/** The file the CA bundle is read from, by the precedence above. */
export async function caBundleFile(source: CaSource): Promise<string> {
  if (source.caFile) return source.caFile;
  if (!source.certFile) throw new Error('no CA: give --ca-file, --cert-dir or --tls-cert-file');
  const sibling = join(dirname(source.certFile), 'ca.crt');
  try {
    await access(sibling);
    return sibling;
  } catch {
    return source.certFile;
  }
}

/** What a PEM file without certificates holds instead, for the refusal: "a PEM PRIVATE KEY", "no PEM block". */
function pemContents(pem: string): string {
  const labels = [...new Set([...pem.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----/g)].map((match) => match[1]))];
  if (labels.length === 0) return 'no PEM block';
  return labels.map((label) => `a PEM ${label}`).join(' and ');
}

/**
 * Reads the PEM bundle and checks that it holds at least one certificate that parses as X.509, so we
 * never publish junk (or a private key) as caBundle. Only the CERTIFICATE blocks are returned.
 * Used by `register`, `serve --register` and `webhook-config --ca-file`.
 */
export async function readCaBundle(source: CaSource): Promise<{ file: string; pem: string }> {
  const file = await caBundleFile(source);
  const pem = await readFile(file, 'utf8');
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${file} holds no PEM certificate (it holds ${pemContents(pem)}): give the CA certificate`);
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new Error(`${file}: unreadable certificate: ${(error as Error).message}`, { cause: error });
    }
  }
  return { file, pem: blocks.join('\n') + '\n' };
}
