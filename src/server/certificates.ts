// Self-signed serving certificates for a working default (`npm start` with no TLS flags):
// a throwaway CA plus a serving certificate it signs, generated with @peculiar/x509 on WebCrypto
// (ECDSA P-256: fast to generate, no shelling out to openssl).
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata polyfill.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import { DEFAULT_SANS } from './default-sans.js';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface GeneratedCertificates {
  caPem: string;
  certPem: string;
  keyPem: string;
}


function serial(): string {
  // A positive 16-byte serial (leading byte < 0x80), as RFC 5280 asks.
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = bytes[0]! & 0x7f;
  return Buffer.from(bytes).toString('hex');
}

export async function generateSelfSigned(extraSans: string[] = [], validDays = 365): Promise<GeneratedCertificates> {
  const subtle = webcrypto.subtle as unknown as SubtleCrypto;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + validDays * 86_400_000);
  const caKeys = (await subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=karmada-interpreter-webhook self-signed CA',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const leafKeys = (await subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const sans = [...new Set([...DEFAULT_SANS, ...extraSans])];
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${sans.find((s) => !isIP(s)) ?? 'karmada-interpreter-webhook'}`,
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(sans.map((value) => ({ type: isIP(value) ? 'ip' : 'dns', value }) as const)),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const pkcs8 = await subtle.exportKey('pkcs8', leafKeys.privateKey);
  return {
    caPem: ca.toString('pem') + '\n',
    certPem: leaf.toString('pem') + '\n',
    keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') + '\n',
  };
}
