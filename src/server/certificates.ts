// Self-signed serving certificates for a working default (`npm start` with no TLS flags): a throwaway
// CA plus a serving certificate it signs, ECDSA P-256 (fast to generate, no shelling out to openssl).
// Node can parse and verify certificates but not build them. The certificate structures come from
// @peculiar/asn1-x509 (RFC 5280 as ASN.1 schemas, DER by @peculiar/asn1-schema); keys and signatures
// from node:crypto. We used @peculiar/x509, which builds on the same schemas, but it also loads CMS,
// PKCS#12, RSA and a dependency-injection container: twice the import time (~0.23 s against ~0.11 s),
// on the critical path of a first start.
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  GeneralName,
  KeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  id_ce_subjectKeyIdentifier,
  id_kp_serverAuth,
} from '@peculiar/asn1-x509';
import { createHash, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { DEFAULT_SANS } from './default-sans.ts';

export interface GeneratedCertificates {
  caPem: string;
  certPem: string;
  keyPem: string;
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2'; // RFC 5758: parameters absent
const COMMON_NAME = '2.5.4.3';

interface KeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
  spki: SubjectPublicKeyInfo;
  /** RFC 5280 4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
  keyId: Buffer;
}

function newKeyPair(): KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = AsnConvert.parse(publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo);
  return { publicKey, privateKey, spki, keyId: createHash('sha1').update(Buffer.from(spki.subjectPublicKey)).digest() };
}

function commonName(cn: string): Name {
  return new Name([new RelativeDistinguishedName([new AttributeTypeAndValue({ type: COMMON_NAME, value: new AttributeValue({ utf8String: cn }) })])]);
}

/** A positive 16-byte serial (leading bit clear), as RFC 5280 asks. */
function serial(): ArrayBuffer {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f || 0x01;
  return new Uint8Array(bytes).buffer;
}

function extension(extnID: string, critical: boolean, value: unknown): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

function signed(tbs: TBSCertificate, issuerKey: KeyObject): X509Certificate {
  const signature = sign('sha256', Buffer.from(AsnConvert.serialize(tbs)), { key: issuerKey, dsaEncoding: 'der' });
  const certificate = new Certificate({
    tbsCertificate: tbs,
    signatureAlgorithm: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
    signatureValue: new Uint8Array(signature).buffer,
  });
  return new X509Certificate(Buffer.from(AsnConvert.serialize(certificate)));
}

export async function generateSelfSigned(extraSans: string[] = [], validDays = 365): Promise<GeneratedCertificates> {
  const notBefore = new Date(Date.now() - 60_000);
  const validity = new Validity({ notBefore, notAfter: new Date(notBefore.getTime() + validDays * 86_400_000) });
  const caKeys = newKeyPair();
  const caName = commonName('karmada-interpreter-webhook self-signed CA');
  // Both certificates are issued by the CA (the CA by itself) for the same period.
  const issue = (subject: Name, keys: KeyPair, extensions: Extension[]) =>
    signed(
      new TBSCertificate({
        version: Version.v3,
        serialNumber: serial(),
        signature: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
        issuer: caName,
        validity,
        subject,
        subjectPublicKeyInfo: keys.spki,
        extensions: new Extensions(extensions),
      }),
      caKeys.privateKey,
    );

  const ca = issue(caName, caKeys, [
    extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: true, pathLenConstraint: 0 })),
    extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign)),
    extension(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(caKeys.keyId)),
  ]);
  const leafKeys = newKeyPair();
  const sans = [...new Set([...DEFAULT_SANS, ...extraSans])];
  const leaf = issue(commonName(sans.find((s) => !isIP(s)) ?? 'karmada-interpreter-webhook'), leafKeys, [
    extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: false })),
    extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment)),
    extension(id_ce_extKeyUsage, false, new ExtendedKeyUsage([id_kp_serverAuth])),
    extension(
      id_ce_subjectAltName,
      false,
      new SubjectAlternativeName(sans.map((value) => new GeneralName(isIP(value) ? { iPAddress: value } : { dNSName: value }))),
    ),
    extension(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(leafKeys.keyId)),
    extension(id_ce_authorityKeyIdentifier, false, new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(caKeys.keyId) })),
  ]);
  return {
    caPem: ca.toString(),
    certPem: leaf.toString(),
    keyPem: leafKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  };
}
