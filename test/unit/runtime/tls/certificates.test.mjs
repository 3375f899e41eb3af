// runtime/tls/certificates.ts: the test certificates are a pure function of the seed (the PEM
// files of test/compliance-net/programs/tls were made by tlsCertificates('0x17') and must stay
// byte-identical on every Node version), and are what Node's X509Certificate expects: a CA that
// issued and signed each host's certificate, names and usages where TLS looks for them.
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import { tlsCertificates } from 'dst-runtime';

const PINNED = new URL('../../../compliance-net/programs/tls/', import.meta.url);
const pinned = (name) => fs.readFileSync(new URL(name, PINNED), 'utf8');

describe('tlsCertificates (runtime/tls/certificates.ts)', () => {
  it("seed 0x17 gives the pinned PEM files byte for byte (same seed, same bytes, any Node version)", () => {
    const pki = tlsCertificates('0x17');
    assert.equal(pki.ca, pinned('ca.pem'));
    for (const name of ['localhost', 'client', 'tenant-a', 'tenant-b']) {
      assert.equal(pki.cert(name), pinned(`${name}-cert.pem`), name);
      assert.equal(pki.key(name), pinned(`${name}-key.pem`), name);
    }
    assert.equal(tlsCertificates(0x17).ca, pki.ca, 'a number and its hex string are one seed');
    assert.notEqual(tlsCertificates(0x18).ca, pki.ca);
  });

  it('a host certificate: issued and signed by the CA, its name in subjectAltName, its key, usable both ways', () => {
    const pki = tlsCertificates(42);
    const ca = new X509Certificate(pki.ca);
    const host = new X509Certificate(pki.cert('kv-1'));
    assert.equal(ca.ca, true);
    assert.equal(ca.subject, 'O=dst-runtime\nCN=dst-runtime test CA');
    assert.equal(ca.verify(ca.publicKey), true, 'the CA is self-signed');
    assert.equal(host.ca, false);
    assert.equal(host.subject, 'CN=kv-1');
    assert.equal(host.issuer, ca.subject);
    assert.equal(host.checkIssued(ca), true);
    assert.equal(host.verify(ca.publicKey), true);
    assert.equal(host.subjectAltName, 'DNS:kv-1');
    assert.equal(host.checkHost('kv-1'), 'kv-1');
    assert.equal(host.checkHost('kv-2'), undefined);
    assert.deepEqual(host.keyUsage, ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
    assert.equal(host.validFrom, 'Jan  1 00:00:00 2000 GMT');
    assert.equal(host.validTo, 'Dec 31 23:59:59 2099 GMT');
    assert.equal(host.checkPrivateKey(createPrivateKey(pki.key('kv-1'))), true);
    assert.equal(createPublicKey(pki.caKey).asymmetricKeyType, 'ed25519');
    assert.notEqual(pki.cert('kv-2'), pki.cert('kv-1'));
    assert.equal(pki.cert('kv-1'), pki.cert('kv-1'), 'made once, kept');
  });

  it('IP literals get an IP entry; localhost also gets its loopback addresses', () => {
    const pki = tlsCertificates(42);
    assert.equal(new X509Certificate(pki.cert('10.0.0.7')).subjectAltName, 'IP Address:10.0.0.7');
    assert.equal(new X509Certificate(pki.cert('fd00::7')).subjectAltName, 'IP Address:FD00:0:0:0:0:0:0:7');
    assert.equal(new X509Certificate(pki.cert('localhost')).subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    assert.equal(new X509Certificate(pki.cert('localhost')).checkIP('127.0.0.1'), '127.0.0.1');
  });

  it('refuses a name that is not a host name or an address, and a bad seed', () => {
    const pki = tlsCertificates(42);
    for (const bad of ['', 'a b', '-x', 'x..y', 42]) {
      assert.throws(() => pki.cert(bad), /Failed to make a test certificate with cert\(name\): the name must be a host name or an IP address/);
    }
    assert.throws(() => pki.key('a/b'), /with key\(name\)/);
    assert.throws(() => tlsCertificates('not a seed'), /seed/);
  });
});
