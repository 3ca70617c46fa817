// The generated self-signed set, built from ASN.1 schemas and node:crypto signatures: what a TLS client
// (Go's, for Karmada; Node's and curl's for users) checks must hold, and a real handshake must verify.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { generateSelfSigned } from '../../src/server/certificates.ts';

describe('generateSelfSigned', () => {
  it('makes a CA that may sign only certificates, and a serving certificate it signed', async () => {
    const generated = await generateSelfSigned(['interpreter.karmada-system.svc', '10.96.0.12']);
    const ca = new X509Certificate(generated.caPem);
    const leaf = new X509Certificate(generated.certPem);
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca) && leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkPrivateKey(createPrivateKey(generated.keyPem))).toBe(true);
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // extended key usage: TLS server only
    expect(leaf.subject).toBe('CN=localhost');
    expect(leaf.subjectAltName).toBe(
      'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:interpreter.karmada-system.svc, IP Address:10.96.0.12',
    );
    expect(leaf.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    const days = (Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)) / 86_400_000;
    expect(days).toBe(365);
    expect(Date.parse(leaf.validFrom)).toBeLessThanOrEqual(Date.now());
  });

  it('gives every certificate its own positive serial number', async () => {
    const serials = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const { caPem, certPem } = await generateSelfSigned();
      for (const pem of [caPem, certPem]) {
        const serial = new X509Certificate(pem).serialNumber;
        expect(Number.parseInt(serial.slice(0, 2), 16)).toBeLessThan(0x80);
        serials.add(serial);
      }
    }
    expect(serials.size).toBe(10);
  });

  it('passes a TLS client that trusts only the CA, by name and by IP address, and fails one that does not', async () => {
    const generated = await generateSelfSigned();
    const server = createServer({ cert: generated.certPem, key: generated.keyPem }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const handshake = (servername: string | undefined, ca: string | undefined) =>
      new Promise<boolean>((resolve) => {
        const socket = connect({ port, host: '127.0.0.1', servername, ca }, () => {
          socket.end();
          resolve(socket.authorized);
        });
        socket.on('error', () => resolve(false));
      });
    try {
      expect(await handshake('localhost', generated.caPem)).toBe(true);
      expect(await handshake(undefined, generated.caPem)).toBe(true); // 127.0.0.1 is in the SANs
      expect(await handshake('elsewhere.example', generated.caPem)).toBe(false);
      expect(await handshake('localhost', undefined)).toBe(false);
    } finally {
      server.close();
    }
  });
});
