// Key generation, signatures and encryption OpenSSL randomizes: what plain Node guarantees of them (every signature
// verifies, every pair is a pair, the shapes and details of the results, the errors with their
// codes, when the callbacks and promises settle), not the random bytes themselves.
import crypto, { generateKeyPairSync as namedGenerateKeyPairSync, sign as namedSign } from 'node:crypto';
import { promisify } from 'node:util';

const data = Buffer.from('message');
const order = [];

console.log('named imports:', namedGenerateKeyPairSync === crypto.generateKeyPairSync, namedSign === crypto.sign);
console.log('shape:', crypto.generateKeyPair.name, crypto.generateKeyPair.length, crypto.sign.length, crypto.subtle.sign.length);

for (const namedCurve of ['P-256', 'secp384r1', 'P-521', 'secp256k1']) {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve });
  const der = crypto.sign('sha256', data, privateKey);
  const p1363 = crypto.sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  const streamed = crypto.createSign('sha384').update('mess').update('age').sign(privateKey, 'base64');
  console.log(
    namedCurve,
    privateKey.asymmetricKeyDetails.namedCurve,
    crypto.verify('sha256', data, publicKey, der),
    p1363.length,
    crypto.verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, p1363),
    crypto.createVerify('sha384').update(data).verify(publicKey, streamed, 'base64'),
  );
}
const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 1024, publicKeyEncoding: { type: 'pkcs1', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'der' } });
console.log('rsa:', rsa.publicKey.split('\n')[0], Buffer.isBuffer(rsa.privateKey), crypto.createPublicKey(rsa.publicKey).asymmetricKeyDetails);
for (const type of ['ed25519', 'ed448', 'x25519', 'x448']) {
  const { publicKey, privateKey } = crypto.generateKeyPairSync(type, { publicKeyEncoding: { format: 'jwk' } });
  console.log(type, Object.keys(publicKey).sort().join(','), privateKey.asymmetricKeyType);
}
console.log('hmac:', crypto.generateKeySync('hmac', { length: 100 }).symmetricKeySize);
const rsaKeys = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 });
const pss = { key: rsaKeys.privateKey, padding: crypto.constants.RSA_PKCS1_PSS_PADDING };
const pssSignature = crypto.sign('sha256', data, pss);
console.log('pss:', pssSignature.length, crypto.verify('sha256', data, { key: rsaKeys.publicKey, padding: pss.padding }, pssSignature));
const sealed = crypto.publicEncrypt({ key: rsaKeys.publicKey, oaepHash: 'sha256' }, data);
console.log('oaep:', sealed.length, crypto.privateDecrypt({ key: rsaKeys.privateKey, oaepHash: 'sha256' }, sealed).toString());
const modp14 = crypto.getDiffieHellman('modp14');
const dh = crypto.createDiffieHellman(modp14.getPrime(), modp14.getGenerator());
dh.generateKeys();
console.log('dh:', dh.computeSecret(modp14.generateKeys()).equals(modp14.computeSecret(dh.getPublicKey())));
const ecdh = crypto.createECDH('prime256v1');
const other = crypto.createECDH('prime256v1');
console.log('ecdh:', ecdh.generateKeys('hex', 'compressed').length, ecdh.computeSecret(other.generateKeys()).equals(other.computeSecret(ecdh.getPublicKey())));

for (const [label, fn] of [
  ['bad curve', () => crypto.generateKeyPairSync('ec', { namedCurve: 'nope' })],
  ['bad modulus', () => crypto.generateKeyPairSync('rsa', { modulusLength: -1 })],
  ['bad encoding', () => crypto.generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: { type: 'pkcs1', format: 'pem' } })],
  ['no callback', () => crypto.generateKeyPair('ed25519', {})],
  ['bad digest', () => crypto.sign('nope', data, crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)],
]) {
  try {
    fn();
    console.log(label, 'did not throw');
  } catch (error) {
    console.log(label, error.name, error.code);
  }
}

crypto.generateKeyPair('ec', { namedCurve: 'P-256' }, (err, pub, priv) => order.push(`generateKeyPair ${err} ${pub.type} ${priv.type}`));
crypto.generateKey('aes', { length: 256 }, (err, key) => order.push(`generateKey ${err} ${key.symmetricKeySize}`));
crypto.generateKeyPair('rsa', { modulusLength: 64 }, (err) => order.push(`small rsa ${err.code}`));
process.nextTick(() => order.push('nextTick'));
Promise.resolve().then(() => order.push('promise'));
order.push('sync');
await new Promise((resolve) => setTimeout(resolve, 200)); // long enough for the thread pool, plainly
console.log('first turn:', order.slice(0, 3).join(', '));
console.log('completions:', order.slice(3).sort().join(' | '));

const pair = await promisify(crypto.generateKeyPair)('ec', { namedCurve: 'P-384' });
const signature = await promisify(crypto.sign)('sha256', data, pair.privateKey);
console.log('callbacks:', await promisify(crypto.verify)('sha256', data, pair.publicKey, signature));

const subtle = crypto.subtle;
const web = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
const webSignature = await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, web.privateKey, data);
console.log('web ecdsa:', webSignature.byteLength, web.privateKey.extractable, web.publicKey.extractable, web.privateKey.usages.join(','),
  await subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, web.publicKey, webSignature, data));
const webRsa = await subtle.generateKey({ name: 'RSA-PSS', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
console.log('web rsa:', JSON.stringify(webRsa.privateKey.algorithm, (k, v) => (v instanceof Uint8Array ? [...v] : v)));
const webPss = await subtle.sign({ name: 'RSA-PSS', saltLength: 32 }, webRsa.privateKey, data);
console.log('web pss:', webPss.byteLength, await subtle.verify({ name: 'RSA-PSS', saltLength: 32 }, webRsa.publicKey, webPss, data));
const webOaep = await subtle.generateKey({ name: 'RSA-OAEP', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['encrypt', 'decrypt']);
const webSealed = await subtle.encrypt({ name: 'RSA-OAEP' }, webOaep.publicKey, data);
console.log('web oaep:', webSealed.byteLength, Buffer.from(await subtle.decrypt({ name: 'RSA-OAEP' }, webOaep.privateKey, webSealed)).toString());
const webAes = await subtle.generateKey({ name: 'AES-CBC', length: 128 }, true, ['encrypt']);
console.log('web aes:', (await subtle.exportKey('raw', webAes)).byteLength, webAes.algorithm.length);
await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, []).catch((error) => console.log('web error:', error.name, error.message));

// Where importKey and generateKey settle among other promise jobs.
const settled = [];
const jwk = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
const imports = [
  subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']).then(() => settled.push('ec')),
  subtle.importKey('raw', new Uint8Array(16), { name: 'AES-GCM' }, false, ['encrypt']).then(() => settled.push('aes')),
];
let ticks = 0;
const tick = () => {
  settled.push(`t${++ticks}`);
  if (ticks < 6) return Promise.resolve().then(tick);
};
Promise.resolve().then(tick);
await Promise.all(imports);
await new Promise((resolve) => setTimeout(resolve, 10));
console.log('settled:', settled.join(' '));
const webPair = await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, true, ['sign', 'verify']);
const hmac = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
console.log('pair prototype:', Object.getPrototypeOf(webPair) === null, 'hmac algorithm:', JSON.stringify(hmac.algorithm));
// A failed job calls back with the error alone: arguments.length is 1, not 2 (Node's own; the
// test harness's common.expectsError checks it).
const edPrivate = crypto.generateKeyPairSync('ed25519').privateKey;
await new Promise((resolve) =>
  crypto.sign('sha256', data, edPrivate, function () {
    console.log('failed sign callback:', arguments.length, arguments[0]?.message);
    resolve();
  }),
);
