/**
 * Test certificates for the simulated hosts, from the seed and without the openssl CLI:
 * `sim.tls()` (and `tlsCertificates(seed)`) give a certificate authority and, per host name, a
 * certificate it signed for that name and its private key, all in PEM, for
 * `tls.createServer({ key, cert })`, `https.request({ ca })`, mTLS and SNI.
 *
 * Keys are Ed25519, whose private key is 32 bytes drawn from the stream (seed, `tls:key:<name>`)
 * and whose signatures are deterministic, so the same seed gives the same bytes on every run
 * and Node version. Certificates are X.509 v3 built here (der.ts): the CA's has
 * basicConstraints CA:TRUE and keyUsage keyCertSign/cRLSign; a host's has CA:FALSE,
 * digitalSignature, extKeyUsage serverAuth and clientAuth (the same certificate serves as a
 * client certificate), and subjectAltName DNS:<name> (an IPv4 or IPv6 literal gets an IP entry
 * instead; `localhost` also gets 127.0.0.1 and ::1). They are valid from 2000 through 2099:
 * OpenSSL checks validity against the machine's real clock, not the virtual one (guide § TLS).
 */
import type { KeyObject } from 'node:crypto';
import { nodeCrypto } from '../node-crypto.js';
import { isIP } from 'node:net';
import { RandomStream } from '../random/stream.js';
import { parseSeed, type SeedInput } from '../random/seed.js';
import { UsageError } from '../errors.js';
import { activeWorld } from '../world.js';
import { bitString, boolean, explicit, objectIdentifier, octetString, sequence, set, time, tlv, unsignedInteger, utf8String } from './der.js';

/** A certificate authority and per-host certificates, in PEM. */
export interface TlsCertificates {
  /** The CA's certificate: trust it with `ca` (clients, and servers checking client certificates). */
  readonly ca: string;
  /** The CA's private key (PKCS#8), to sign certificates of your own. */
  readonly caKey: string;
  /** The certificate of host `name`, signed by the CA, valid for that name. */
  cert(name: string): string;
  /** The private key (PKCS#8) of `cert(name)`. */
  key(name: string): string;
}

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ed25519: '1.3.101.112',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

const NOT_BEFORE = new Date('2000-01-01T00:00:00Z');
const NOT_AFTER = new Date('2099-12-31T23:59:59Z');
/** PKCS#8 of an Ed25519 key, up to its 32 private bytes (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function drawn(seed: bigint, name: string, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  new RandomStream(seed, name).fill(bytes);
  return bytes;
}

function keyFor(seed: bigint, label: string): KeyObject {
  return nodeCrypto().createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, drawn(seed, `tls:key:${label}`, 32)]), format: 'der', type: 'pkcs8' });
}

function distinguishedName(commonName: string, organization?: string): Buffer {
  const rdns = [];
  if (organization !== undefined) rdns.push(set(sequence(objectIdentifier(OID.organization), utf8String(organization))));
  rdns.push(set(sequence(objectIdentifier(OID.commonName), utf8String(commonName))));
  return sequence(...rdns);
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(objectIdentifier(oid), boolean(true), octetString(value)) : sequence(objectIdentifier(oid), octetString(value));
}

function keyIdentifier(spki: Buffer): Buffer {
  return nodeCrypto().createHash('sha1').update(spki).digest();
}

/** An IP address's bytes, for an iPAddress subjectAltName. */
function ipBytes(address: string): Buffer {
  if (isIP(address) === 4) return Buffer.from(address.split('.').map(Number));
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = (text: string | undefined) => (text === undefined || text === '' ? [] : text.split(':'));
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return Buffer.concat(all.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

function pem(der: Buffer): string {
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
}

interface Issuer {
  name: Buffer;
  key: KeyObject;
  keyId: Buffer;
}

function certificate(seed: bigint, label: string, subject: Buffer, subjectKey: KeyObject, issuer: Issuer | undefined, altNames: Buffer[]): string {
  const spki = nodeCrypto().createPublicKey(subjectKey).export({ type: 'spki', format: 'der' });
  const ownKeyId = keyIdentifier(spki);
  const signer = issuer ?? { name: subject, key: subjectKey, keyId: ownKeyId };
  const isCa = issuer === undefined;
  const extensions = [
    extension(OID.basicConstraints, true, isCa ? sequence(boolean(true)) : sequence()),
    // keyCertSign + cRLSign for the CA; digitalSignature for a host.
    extension(OID.keyUsage, true, isCa ? tlv(0x03, Buffer.from([1, 0x06])) : tlv(0x03, Buffer.from([7, 0x80]))),
    extension(OID.subjectKeyIdentifier, false, octetString(ownKeyId)),
  ];
  if (!isCa) {
    extensions.push(extension(OID.authorityKeyIdentifier, false, sequence(tlv(0x80, signer.keyId))));
    extensions.push(extension(OID.extKeyUsage, false, sequence(objectIdentifier(OID.serverAuth), objectIdentifier(OID.clientAuth))));
    extensions.push(extension(OID.subjectAltName, false, sequence(...altNames)));
  }
  const serial = drawn(seed, `tls:serial:${label}`, 16);
  serial[0] = (serial[0]! & 0x7f) | 0x40; // positive, and always 16 bytes long
  const algorithm = sequence(objectIdentifier(OID.ed25519));
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(serial),
    algorithm,
    signer.name,
    sequence(time(NOT_BEFORE), time(NOT_AFTER)),
    subject,
    spki,
    explicit(3, sequence(...extensions)),
  );
  return pem(sequence(tbs, algorithm, bitString(nodeCrypto().sign(null, tbs, signer.key))));
}

/** The subjectAltName entries of a host name: DNS, or IP for an address; localhost's loopback addresses. */
function altNamesOf(name: string): Buffer[] {
  if (isIP(name) !== 0) return [tlv(0x87, ipBytes(name))];
  const names = [tlv(0x82, Buffer.from(name, 'ascii'))];
  if (name === 'localhost') names.push(tlv(0x87, ipBytes('127.0.0.1')), tlv(0x87, ipBytes('::1')));
  return names;
}

const HOST_NAME = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*$/;

/** The sets made so far, by seed (a CA costs about a millisecond, a host's certificate as much). */
const made = new Map<bigint, TlsCertificates>();
const MADE_MAX = 64;

/**
 * A CA and per-host certificates made from `seed` (a number, bigint or seed string, as Sim's
 * `seed` option): the same seed gives the same PEM text. Certificates are made on first use and
 * kept. `sim.tls()` is this for the Sim's seed; `tlsCertificates()` from 'dst-runtime' (host
 * code, scenarios) for the running simulation's.
 */
export function certificatesOf(seed: SeedInput): TlsCertificates {
  const root = parseSeed(seed, 'seed');
  let set = made.get(root);
  if (set === undefined) {
    if (made.size >= MADE_MAX) made.delete(made.keys().next().value!);
    set = build(root);
    made.set(root, set);
  }
  return set;
}

function build(root: bigint): TlsCertificates {
  const caKeyObject = keyFor(root, 'ca');
  const caName = distinguishedName('dst-runtime test CA', 'dst-runtime');
  const ca = certificate(root, 'ca', caName, caKeyObject, undefined, []);
  const caKeyId = keyIdentifier(nodeCrypto().createPublicKey(caKeyObject).export({ type: 'spki', format: 'der' }));
  const issuer: Issuer = { name: caName, key: caKeyObject, keyId: caKeyId };
  const hosts = new Map<string, { cert: string; key: string }>();
  const forHost = (name: string, api: string) => {
    if (typeof name !== 'string' || !(HOST_NAME.test(name) || isIP(name) !== 0) || name.length > 253) {
      throw new UsageError(`Failed to make a test certificate with ${api}: the name must be a host name or an IP address, got ${JSON.stringify(name)}`);
    }
    let entry = hosts.get(name);
    if (entry === undefined) {
      const key = keyFor(root, `host:${name}`);
      entry = {
        cert: certificate(root, `host:${name}`, distinguishedName(name), key, issuer, altNamesOf(name)),
        key: key.export({ type: 'pkcs8', format: 'pem' }) as string,
      };
      hosts.set(name, entry);
    }
    return entry;
  };
  return {
    ca,
    caKey: caKeyObject.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: (name) => forHost(name, 'cert(name)').cert,
    key: (name) => forHost(name, 'key(name)').key,
  };
}

/**
 * Test certificates for the simulated hosts (see TlsCertificates): from `seed`, or without one
 * from the running simulation's seed, so host code and scenarios get the same set as the
 * test's `sim.tls()`:
 *
 *     import { tlsCertificates } from 'dst-runtime';
 *     const pki = tlsCertificates();
 *     https.createServer({ key: pki.key('api'), cert: pki.cert('api') }, app).listen(443);
 *     https.get('https://api/', { ca: pki.ca });
 */
export function tlsCertificates(seed?: SeedInput): TlsCertificates {
  if (seed !== undefined) return certificatesOf(seed);
  const world = activeWorld();
  if (world === undefined) {
    throw new UsageError('Failed to make test certificates with tlsCertificates(): no simulation is running; pass a seed (tlsCertificates(seed)) or use sim.tls()');
  }
  return certificatesOf(world.seed);
}
