import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Sim } from 'dst-runtime';

const SEED = 0x6b65;
const FIXTURES = fileURLToPath(new URL('./fixtures/crypto-keys/', import.meta.url));
const REGISTER_MJS = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));
const DATA = Buffer.from('the message');
const EC_CURVES = ['P-256', 'prime256v1', 'P-384', 'secp384r1', 'P-521', 'secp521r1', 'secp256k1'];

/** DER bytes of a key, as hex: two keys are the same key when these are equal. */
function keyHex(key) {
  if (typeof key === 'string' || Buffer.isBuffer(key)) return Buffer.from(key).toString('hex');
  if (key instanceof crypto.KeyObject) {
    return key.type === 'secret'
      ? key.export().toString('hex')
      : key.export({ format: 'der', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString('hex');
  }
  return JSON.stringify(key);
}

/** Runs `body` in one client of a fresh simulation with `seed`; resolves with what it returned. */
async function inHost(seed, body) {
  let value;
  let failure;
  const sim = new Sim({ seed });
  sim.client('keys', async () => {
    try {
      value = await body();
    } catch (error) {
      failure = error;
    }
  });
  await sim.run();
  if (failure !== undefined) throw failure;
  return value;
}

/** Every key and signature kind this change makes from the seed, as printable strings. */
async function everything() {
  const out = {};
  for (const type of ['ed25519', 'ed448', 'x25519', 'x448']) {
    const { publicKey, privateKey } = crypto.generateKeyPairSync(type);
    out[type] = [keyHex(privateKey), keyHex(publicKey)];
  }
  for (const namedCurve of EC_CURVES) {
    const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve });
    const der = crypto.sign('sha256', DATA, privateKey);
    const p1363 = crypto.sign(null, DATA, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    const streamed = crypto.createSign('SHA384').update('the ').update('message').sign(privateKey, 'hex');
    const later = await promisify(crypto.sign)('sha512', DATA, privateKey);
    out[`ec ${namedCurve}`] = [keyHex(privateKey), der.toString('hex'), p1363.toString('hex'), streamed, later.toString('hex')];
  }
  const rsa = crypto.generateKeyPairSync('rsa', {
    modulusLength: 1024,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  out.rsa = [rsa.privateKey, rsa.publicKey];
  const later = await promisify(crypto.generateKeyPair)('ec', { namedCurve: 'P-256', publicKeyEncoding: { format: 'jwk' } });
  out['generateKeyPair ec'] = [keyHex(later.privateKey), keyHex(later.publicKey)];
  const { publicKey: rsaPublic, privateKey: rsaPrivate } = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 });
  const pss = { key: rsaPrivate, padding: crypto.constants.RSA_PKCS1_PSS_PADDING };
  out.pss = [
    crypto.sign('sha256', DATA, pss).toString('hex'),
    crypto.sign('sha384', DATA, { ...pss, saltLength: crypto.constants.RSA_PSS_SALTLEN_DIGEST }).toString('hex'),
    crypto.createSign('sha512').update(DATA).sign({ ...pss, saltLength: 10 }, 'base64'),
    (await promisify(crypto.sign)('sha256', DATA, pss)).toString('hex'),
  ];
  const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  out.forms = [
    crypto.sign('sha256', new Uint8Array(DATA).buffer, ec).toString('hex'),
    crypto.sign('sha256', new DataView(new Uint8Array(DATA).buffer), ec).toString('hex'),
    new crypto.Sign('sha256').update(DATA).sign(ec, 'hex'),
    crypto.Sign('sha256').update(DATA).sign(ec, 'hex'),
    crypto.sign('sha256', DATA, { ...pss, saltLength: -3 }).toString('hex'),
    crypto.sign('sha3-256', DATA, ec).toString('hex'),
  ];
  out.encrypt = [
    crypto.publicEncrypt(rsaPublic, DATA).toString('hex'),
    crypto.publicEncrypt({ key: rsaPrivate, oaepHash: 'sha256', oaepLabel: Buffer.from('label') }, 'text').toString('hex'),
    crypto.publicEncrypt({ key: rsaPublic, padding: crypto.constants.RSA_PKCS1_PADDING }, DATA).toString('hex'),
  ];
  const dh = crypto.createDiffieHellman(crypto.getDiffieHellman('modp14').getPrime(), 2);
  const group = crypto.getDiffieHellman('modp5');
  out.dh = [dh.generateKeys('hex'), dh.getPrivateKey('hex'), group.generateKeys('hex'), group.getPrivateKey('hex')];
  out.hmac = keyHex(crypto.generateKeySync('hmac', { length: 200 }));
  out.aes = keyHex(await promisify(crypto.generateKey)('aes', { length: 192 }));
  const ecdh = crypto.createECDH('secp521r1');
  out.ecdh = [ecdh.generateKeys('hex'), ecdh.getPrivateKey('hex')];
  const subtle = crypto.webcrypto.subtle;
  const webEc = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const webSig = await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, webEc.privateKey, DATA);
  out.webEc = [keyHex(Buffer.from(await subtle.exportKey('pkcs8', webEc.privateKey))), Buffer.from(webSig).toString('hex')];
  const hidden = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, false, ['sign', 'verify']);
  out.webHidden = Buffer.from(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, hidden.privateKey, DATA)).toString('hex');
  const jwk = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  // Node 24 warns (DEP0204) on KeyObject.from of a non-extractable CryptoKey: such a key a host did
  // not generate (imported, cloned) is left to OpenSSL there; on 20 and 22 it signs from the seed.
  const major = Number(process.versions.node.split('.')[0]);
  const imported = await subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, major < 24 ? false : true, ['sign']);
  out.webImported = Buffer.from(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, imported, DATA)).toString('hex');
  if (major < 24) {
    out.webCloned = Buffer.from(await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, structuredClone(hidden.privateKey), DATA)).toString('hex');
  }
  const webRsa = await subtle.generateKey({ name: 'RSA-PSS', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['sign']);
  out.webPss = Buffer.from(await subtle.sign({ name: 'RSA-PSS', saltLength: 32 }, webRsa.privateKey, DATA)).toString('hex');
  const webOaep = await subtle.generateKey({ name: 'RSA-OAEP', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['encrypt', 'decrypt']);
  out.webOaep = Buffer.from(await subtle.encrypt({ name: 'RSA-OAEP', label: Buffer.from('l') }, webOaep.publicKey, DATA)).toString('hex');
  // SHA3 in WebCrypto is Node 24's.
  const sha3 = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']);
  // SHA3 in WebCrypto is Node 24's; elsewhere the call rejects the same way every time.
  const webSha3 = await subtle.sign({ name: 'ECDSA', hash: 'SHA3-256' }, sha3.privateKey, DATA).catch(() => undefined);
  if (webSha3 !== undefined) out.webSha3 = Buffer.from(webSha3).toString('hex');
  const webHmac = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
  out.webHmac = Buffer.from(await subtle.exportKey('raw', webHmac)).toString('hex');
  return out;
}

describe('key generation and ECDSA signatures in a host draw from the seed (seed 0x6b65)', function () {
  this.timeout(120_000);

  it('the same seed makes the same keys and signatures; another seed makes others', async () => {
    const warnings = [];
    // ExperimentalWarnings are the program's own (SHA3 in WebCrypto on Node 24, as plainly).
    const onWarning = (warning) => warning.name !== 'ExperimentalWarning' && warnings.push(`${warning.code}: ${warning.message}`);
    process.on('warning', onWarning);
    let first;
    try {
      first = await inHost(SEED, everything);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    // None of the simulation's own: e.g. DEP0204 for KeyObject.from of a non-extractable key (24).
    assert.deepEqual(warnings, []);
    const second = await inHost(SEED, everything);
    assert.deepEqual(second, first);
    const other = await inHost(SEED + 1, everything);
    for (const key of Object.keys(first)) assert.notDeepEqual(other[key], first[key], key);
  });

  it('Node verifies every signature, and every key pair is a pair', async () => {
    const seen = await inHost(SEED, async () => {
      const checks = [];
      for (const namedCurve of EC_CURVES) {
        const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve });
        for (const hash of ['sha1', 'sha256', 'sha384', 'sha512', 'sha3-256']) {
          checks.push([`${namedCurve} ${hash} der`, crypto.verify(hash, DATA, publicKey, crypto.sign(hash, DATA, privateKey))]);
          const p1363 = crypto.sign(hash, DATA, { key: privateKey, dsaEncoding: 'ieee-p1363' });
          checks.push([`${namedCurve} ${hash} p1363`, crypto.verify(hash, DATA, { key: publicKey, dsaEncoding: 'ieee-p1363' }, p1363)]);
        }
        const pem = privateKey.export({ format: 'pem', type: 'sec1' });
        const signer = crypto.createSign('RSA-SHA256');
        signer.write('the ');
        signer.end('message');
        const fromStream = signer.sign(pem);
        checks.push([`${namedCurve} stream`, crypto.createVerify('sha256').update(DATA).verify(publicKey, fromStream)]);
        const latin = crypto.createSign('sha256').update('caf\u00e9', 'latin1').sign(privateKey);
        checks.push([`${namedCurve} latin1`, crypto.verify('sha256', Buffer.from('caf\u00e9', 'latin1'), publicKey, latin)]);
      }
      for (const type of ['ed25519', 'ed448']) {
        const { publicKey, privateKey } = crypto.generateKeyPairSync(type);
        checks.push([type, crypto.verify(null, DATA, publicKey, crypto.sign(null, DATA, privateKey))]);
      }
      for (const type of ['x25519', 'x448']) {
        const a = crypto.generateKeyPairSync(type);
        const b = crypto.generateKeyPairSync(type);
        const ab = crypto.diffieHellman({ privateKey: a.privateKey, publicKey: b.publicKey });
        const ba = crypto.diffieHellman({ privateKey: b.privateKey, publicKey: a.publicKey });
        checks.push([type, ab.equals(ba)]);
      }
      for (const modulusLength of [512, 1000, 2048]) {
        const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength, publicExponent: 3 });
        checks.push([`rsa ${modulusLength} details`, privateKey.asymmetricKeyDetails.modulusLength === modulusLength]);
        checks.push([`rsa ${modulusLength} e`, publicKey.asymmetricKeyDetails.publicExponent === 3n]);
        checks.push([`rsa ${modulusLength} sign`, crypto.verify('sha256', DATA, publicKey, crypto.sign('sha256', DATA, privateKey))]);
        const secret = crypto.publicEncrypt(publicKey, Buffer.from('hi'));
        checks.push([`rsa ${modulusLength} decrypt`, crypto.privateDecrypt(privateKey, secret).toString() === 'hi']);
      }
      const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 1031 });
      const PSS = crypto.constants.RSA_PKCS1_PSS_PADDING;
      for (const [hash, saltLength] of [['sha256', undefined], ['sha1', crypto.constants.RSA_PSS_SALTLEN_DIGEST], ['sha512', 0], ['sha384', 17]]) {
        const signature = crypto.sign(hash, DATA, { key: rsa.privateKey, padding: PSS, saltLength });
        // Verifying with the exact salt length checks the length too (undefined: the most the key allows).
        const exact = saltLength === undefined ? crypto.constants.RSA_PSS_SALTLEN_MAX_SIGN : saltLength;
        checks.push([`pss ${hash} ${saltLength}`, crypto.verify(hash, DATA, { key: rsa.publicKey, padding: PSS, saltLength: exact }, signature)]);
      }
      const most = crypto.sign('sha256', DATA, { key: rsa.privateKey, padding: PSS, saltLength: -3 });
      checks.push(['pss -3', crypto.verify('sha256', DATA, { key: rsa.publicKey, padding: PSS, saltLength: crypto.constants.RSA_PSS_SALTLEN_MAX_SIGN }, most)]);
      const streamedPss = crypto.createSign('sha256').update(DATA).sign({ key: rsa.privateKey, padding: PSS });
      checks.push(['pss stream', crypto.createVerify('sha256').update(DATA).verify({ key: rsa.publicKey, padding: PSS }, streamedPss)]);
      for (const [oaepHash, oaepLabel] of [[undefined, undefined], ['sha256', Buffer.from('label')], ['sha384', new Uint8Array([1, 2])]]) {
        const ciphertext = crypto.publicEncrypt({ key: rsa.publicKey, oaepHash, oaepLabel }, DATA);
        const plain = crypto.privateDecrypt({ key: rsa.privateKey, oaepHash, oaepLabel }, ciphertext);
        checks.push([`oaep ${oaepHash}`, plain.equals(DATA)]);
      }
      const pkcs1 = crypto.publicEncrypt({ key: rsa.publicKey, padding: crypto.constants.RSA_PKCS1_PADDING }, DATA);
      const block = crypto.privateDecrypt({ key: rsa.privateKey, padding: crypto.constants.RSA_NO_PADDING }, pkcs1);
      const separator = block.indexOf(0, 2);
      checks.push(['pkcs1 block', block[0] === 0 && block[1] === 2 && separator === block.length - DATA.length - 1 && block.subarray(separator + 1).equals(DATA)]);
      const modp14 = crypto.getDiffieHellman('modp14');
      const alice = crypto.createDiffieHellman(modp14.getPrime(), modp14.getGenerator());
      const bob = crypto.getDiffieHellman('modp14');
      const [alicePublic, bobPublic] = [alice.generateKeys(), bob.generateKeys()];
      checks.push(['dh', alice.computeSecret(bobPublic).equals(bob.computeSecret(alicePublic))]);
      checks.push(['dh modp14 bits', BigInt(`0x${alice.getPrivateKey('hex')}`).toString(2).length === 225]);
      checks.push(['dh kept', alice.generateKeys().equals(alicePublic)]);
      const modp2 = crypto.createDiffieHellman(crypto.getDiffieHellman('modp2').getPrime());
      modp2.generateKeys();
      checks.push(['dh modp2 bits', BigInt(`0x${modp2.getPrivateKey('hex')}`).toString(2).length === 1022]);
      const a = crypto.createECDH('prime256v1');
      const b = crypto.createECDH('prime256v1');
      const [aPublic, bPublic] = [a.generateKeys(), b.generateKeys()];
      checks.push(['ecdh', a.computeSecret(bPublic).equals(b.computeSecret(aPublic))]);
      const subtle = crypto.webcrypto.subtle;
      for (const namedCurve of ['P-256', 'P-384', 'P-521']) {
        const pair = await subtle.generateKey({ name: 'ECDSA', namedCurve }, false, ['sign', 'verify']);
        const signature = await subtle.sign({ name: 'ECDSA', hash: 'SHA-384' }, pair.privateKey, DATA);
        checks.push([`web ${namedCurve}`, await subtle.verify({ name: 'ECDSA', hash: 'SHA-384' }, pair.publicKey, signature, DATA)]);
      }
      const webRsa = await subtle.generateKey(
        { name: 'RSASSA-PKCS1-v1_5', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
        true,
        ['sign', 'verify'],
      );
      const rsaSig = await subtle.sign('RSASSA-PKCS1-v1_5', webRsa.privateKey, DATA);
      checks.push(['web rsa', await subtle.verify('RSASSA-PKCS1-v1_5', webRsa.publicKey, rsaSig, DATA)]);
      const pssKeys = await subtle.generateKey({ name: 'RSA-PSS', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-384' }, false, ['sign', 'verify']);
      const pssSig = await subtle.sign({ name: 'RSA-PSS', saltLength: 20 }, pssKeys.privateKey, DATA);
      checks.push(['web pss', await subtle.verify({ name: 'RSA-PSS', saltLength: 20 }, pssKeys.publicKey, pssSig, DATA)]);
      const oaepKeys = await subtle.generateKey({ name: 'RSA-OAEP', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-1' }, false, ['encrypt', 'decrypt']);
      const sealed = await subtle.encrypt({ name: 'RSA-OAEP', label: new Uint8Array([7]) }, oaepKeys.publicKey, DATA);
      const opened = await subtle.decrypt({ name: 'RSA-OAEP', label: new Uint8Array([7]) }, oaepKeys.privateKey, sealed);
      checks.push(['web oaep', Buffer.from(opened).equals(DATA)]);
      return checks;
    });
    assert.deepEqual(
      seen.filter(([, ok]) => ok !== true),
      [],
    );
    assert.ok(seen.length > 80);
  });

  it('results have the shapes, details and attributes plain Node gives them', async () => {
    const shape = (value) => {
      if (value instanceof crypto.KeyObject) {
        return { type: value.type, asymmetric: value.asymmetricKeyType, details: value.asymmetricKeyDetails, size: value.symmetricKeySize };
      }
      if (value instanceof globalThis.CryptoKey) {
        return { type: value.type, algorithm: value.algorithm, extractable: value.extractable, usages: value.usages };
      }
      if (Buffer.isBuffer(value)) return 'Buffer';
      if (value instanceof ArrayBuffer) return `ArrayBuffer ${value.byteLength}`;
      return typeof value === 'string' ? `string ${value.split('\n')[0]}` : value;
    };
    const shapes = async () => {
      const out = [];
      const pair = (p) => [shape(p.publicKey), shape(p.privateKey)];
      out.push(pair(crypto.generateKeyPairSync('ed25519', { publicKeyEncoding: { type: 'spki', format: 'der' } })));
      out.push(pair(crypto.generateKeyPairSync('ec', { namedCurve: 'P-384', privateKeyEncoding: { type: 'sec1', format: 'pem' } })));
      const jwk = crypto.generateKeyPairSync('ec', { namedCurve: 'secp256k1', publicKeyEncoding: { format: 'jwk' } }).publicKey;
      out.push(Object.keys(jwk).sort(), jwk.crv);
      out.push(pair(crypto.generateKeyPairSync('rsa', { modulusLength: 768 })));
      out.push(pair(await promisify(crypto.generateKeyPair)('x448')));
      out.push(shape(crypto.generateKeySync('hmac', { length: 123 })));
      out.push(crypto.sign('sha256', DATA, { key: crypto.generateKeyPairSync('ec', { namedCurve: 'P-521' }).privateKey, dsaEncoding: 'ieee-p1363' }).length);
      out.push(shape(crypto.createSign('sha256').update('x').sign(crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, 'base64')).slice(0, 6));
      const ecdh = crypto.createECDH('secp384r1');
      out.push(ecdh.generateKeys('base64', 'compressed').length, ecdh.generateKeys().length);
      const subtle = crypto.webcrypto.subtle;
      out.push(pair(await subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])));
      out.push(pair(await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-384' }, true, ['deriveBits'])));
      out.push(
        pair(
          await subtle.generateKey({ name: 'RSA-OAEP', modulusLength: 1024, publicExponent: new Uint8Array([3]), hash: 'SHA-1' }, false, [
            'encrypt',
            'decrypt',
          ]),
        ),
      );
      out.push(shape(await subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt'])));
      const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 });
      out.push(shape(crypto.publicEncrypt(rsa.publicKey, DATA)), crypto.publicEncrypt(rsa.publicKey, DATA).length);
      out.push(crypto.sign('sha256', DATA, { key: rsa.privateKey, padding: crypto.constants.RSA_PKCS1_PSS_PADDING }).length);
      const dh = crypto.getDiffieHellman('modp14');
      // A Diffie-Hellman public key is an integer: 1 time in 256 it has a leading zero byte, which
      // Node leaves out (255 bytes, 340 base64 characters instead of 344). Plain Node's key here
      // is not seeded, so only the bounds are compared.
      const dhPublic = Buffer.from(dh.generateKeys('base64'), 'base64').length;
      out.push(dhPublic > 240 && dhPublic <= 256, shape(dh.generateKeys()));
      const signing = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-521' }, false, ['sign']);
      out.push(shape(await subtle.sign({ name: 'ECDSA', hash: 'SHA-512' }, signing.privateKey, DATA)));
      return out;
    };
    assert.deepEqual(await inHost(SEED, shapes), await shapes());
  });

  it("bad calls fail as Node's do: same errors, thrown or passed at the same points", async () => {
    const attempts = async () => {
      const out = [];
      const attempt = async (label, fn) => {
        try {
          const value = await fn();
          out.push([label, 'ok', typeof value]);
        } catch (error) {
          out.push([label, error.name, error.code, error.message]);
        }
      };
      await attempt('ec curve', () => crypto.generateKeyPairSync('ec', { namedCurve: 'P-999' }));
      await attempt('ec no options', () => crypto.generateKeyPairSync('ec'));
      await attempt('rsa length', () => crypto.generateKeyPairSync('rsa', { modulusLength: 'big' }));
      await attempt('rsa exponent', () => crypto.generateKeyPairSync('rsa', { modulusLength: 1024, publicExponent: -1 }));
      await attempt('rsa encoding', () => crypto.generateKeyPairSync('rsa', { modulusLength: 1024, publicKeyEncoding: { type: 'sec1', format: 'pem' } }));
      await attempt('ed options', () => crypto.generateKeyPairSync('ed25519', 7));
      await attempt('ed encoding', () => crypto.generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs1', format: 'pem' } }));
      await attempt('no callback', () => crypto.generateKeyPair('ed25519', {}));
      await attempt('callback error', () => promisify(crypto.generateKeyPair)('rsa', { modulusLength: 64 }));
      await attempt('hmac length', () => crypto.generateKeySync('hmac', { length: 3 }));
      await attempt('aes length', () => promisify(crypto.generateKey)('aes', { length: 100 }));
      const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
      await attempt('sign digest', () => crypto.sign('nope', DATA, ec));
      await attempt('sign data', () => crypto.sign('sha256', 'text', ec));
      await attempt('sign public', () => crypto.sign('sha256', DATA, crypto.createPublicKey(ec)));
      await attempt('sign callback', () => promisify(crypto.sign)('nope', DATA, ec));
      await attempt('createSign', () => crypto.createSign('nope'));
      await attempt('Sign twice', () => {
        const signer = crypto.createSign('sha256').update('x');
        signer.sign(ec);
        return signer.sign(ec);
      });
      const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 });
      await attempt('oaep too long', () => crypto.publicEncrypt(rsa.publicKey, Buffer.alloc(100)));
      await attempt('oaep hash', () => crypto.publicEncrypt({ key: rsa.publicKey, oaepHash: 'nope' }, DATA));
      await attempt('pss salt', () => crypto.sign('sha512', DATA, { key: rsa.privateKey, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 100 }));
      await attempt('dh small', () => crypto.createDiffieHellman(Buffer.from('fb', 'hex')).generateKeys());
      await attempt('dh encoding', () => crypto.getDiffieHellman('modp5').generateKeys('nope'));
      await attempt('sign algorithm object', () => crypto.sign(Object.create(null), DATA, ec));
      await attempt('inherited encoding', () =>
        promisify(crypto.generateKeyPair)('rsa', Object.assign(Object.create({ publicKeyEncoding: { format: 'bogus' } }), { modulusLength: 1024 })),
      );
      await attempt('ecdh format', () => crypto.createECDH('prime256v1').generateKeys('hex', 'sideways'));
      const subtle = crypto.webcrypto.subtle;
      await attempt('web usages', () => subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['encrypt']));
      await attempt('web curve', () => subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-1' }, true, ['sign']));
      const verifyOnly = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
      const oaep = await subtle.generateKey({ name: 'RSA-OAEP', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['encrypt', 'decrypt']);
      await attempt('web oaep usage', () => subtle.encrypt({ name: 'RSA-OAEP' }, oaep.privateKey, DATA));
      await attempt('web oaep long', () => subtle.encrypt({ name: 'RSA-OAEP' }, oaep.publicKey, Buffer.alloc(200)));
      await attempt('web sign usage', () => subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, verifyOnly.publicKey, DATA));
      return out;
    };
    assert.deepEqual(await inHost(SEED, attempts), await attempts());
  });

  it("calls outside hosts are left to OpenSSL and leave the hosts' streams alone", async () => {
    const run = async (outside) => {
      const sim = new Sim({ seed: SEED });
      let keys;
      sim.client('keys', async () => {
        const first = keyHex(crypto.generateKeyPairSync('ed25519').privateKey);
        await new Promise((resolve) => setTimeout(resolve, 5));
        keys = [first, keyHex(crypto.generateKeyPairSync('ed25519').privateKey)];
      });
      // Real immediates of the test runner, outside every host, running while the simulation does.
      const made = [];
      const more = () => {
        made.push(keyHex(crypto.generateKeyPairSync('ed25519').privateKey));
        if (made.length < outside) setImmediate(more);
      };
      if (outside > 0) setImmediate(more);
      await sim.run();
      await new Promise((resolve) => setImmediate(resolve));
      return { keys, made };
    };
    const quiet = await run(0);
    const noisy = await run(20);
    assert.deepEqual(noisy.keys, quiet.keys);
    assert.ok(noisy.made.length >= 2);
    assert.equal(new Set([...noisy.made, ...quiet.keys]).size, noisy.made.length + quiet.keys.length);
  });

  it('a program run with --import dst-runtime/register prints the same keys and signature for the same seed', () => {
    const run = (args, seed) => {
      const env = { ...process.env, DST_SEED: seed };
      delete env.NODE_OPTIONS;
      const result = spawnSync(process.execPath, [...args, 'print-keys.mjs'], { cwd: FIXTURES, env, encoding: 'utf8', timeout: 60_000 });
      assert.equal(result.status, 0, result.stderr);
      return result.stdout;
    };
    const simulated = [run(['--import', REGISTER_MJS], '0x6b65'), run(['--import', REGISTER_MJS], '0x6b65')];
    assert.equal(simulated[1], simulated[0]);
    assert.notEqual(run(['--import', REGISTER_MJS], '0x6b66'), simulated[0]);
    assert.notEqual(run([], '0x6b65'), run([], '0x6b65'));
  });

  it("every secret key kind this Node's WebCrypto generates still resolves, and from the seed", async () => {
    const subtle = crypto.webcrypto.subtle;
    const kinds = [
      [{ name: 'AES-GCM', length: 128 }, ['encrypt']],
      [{ name: 'AES-KW', length: 256 }, ['wrapKey']],
      [{ name: 'HMAC', hash: 'SHA-256', length: 100 }, ['sign']],
      [{ name: 'AES-OCB', length: 128 }, ['encrypt']],
      [{ name: 'ChaCha20-Poly1305' }, ['encrypt']],
      [{ name: 'KMAC128' }, ['sign']],
    ];
    const exportOf = async (key) => {
      for (const format of ['raw', 'raw-secret']) {
        try {
          return Buffer.from(await subtle.exportKey(format, key)).toString('hex');
        } catch {
          // the other format
        }
      }
      return 'unexported';
    };
    // The kinds plain Node generates here (Node 24 has AES-OCB, ChaCha20 and KMAC; 20 and 22 do not).
    const supported = [];
    for (const [algorithm, usages] of kinds) {
      if (await subtle.generateKey(algorithm, true, usages).then(() => true, () => false)) supported.push([algorithm, usages]);
    }
    assert.ok(supported.length >= 2);
    const make = () =>
      inHost(SEED, async () => {
        const out = [];
        for (const [algorithm, usages] of supported) out.push(await exportOf(await subtle.generateKey(algorithm, true, usages)));
        return out;
      });
    const first = await make();
    assert.deepEqual(await make(), first);
    assert.ok(!first.includes('unexported'));
  });

  it('a SHAKE digest in a host causes no warning of the simulation\'s own (--pending-deprecation)', () => {
    const program = [
      "const crypto = require('node:crypto');",
      "const { privateKey } = crypto.generateKeyPairSync('ed25519');",
      "const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;",
      "try { crypto.sign('shake256', Buffer.from('x'), ec); } catch (e) { console.log(e.code); }",
      "try { crypto.createSign('shake256').update('x').sign(ec); } catch (e) { console.log(e.code); }",
      "console.log(crypto.sign(null, Buffer.from('x'), privateKey).length);",
    ].join('\n');
    const run = (args) => {
      const env = { ...process.env, DST_SEED: '0x6b65' };
      delete env.NODE_OPTIONS;
      return spawnSync(process.execPath, ['--pending-deprecation', ...args, '-e', program], { env, encoding: 'utf8', timeout: 60_000 });
    };
    const plain = run([]);
    const simulated = run(['--require', REGISTER_MJS.replace(/\.mjs$/, '.cjs')]);
    assert.equal(simulated.stdout, plain.stdout);
    assert.doesNotMatch(simulated.stderr, /DeprecationWarning/);
    assert.doesNotMatch(plain.stderr, /DeprecationWarning/);
  });
});
