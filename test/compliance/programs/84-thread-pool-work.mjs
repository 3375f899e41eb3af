// zlib and crypto work on Node's thread pool: the results, the errors (with their codes), the
// shape of the wrapped functions, and what plain Node guarantees about when a completion comes
// (after the synchronous code, the nextTicks and the promise jobs of the turn that started it).
import crypto, { pbkdf2 as namedPbkdf2 } from 'node:crypto';
import zlib, { gzip as namedGzip } from 'node:zlib';
import { promisify } from 'node:util';
import { pipeline } from 'node:stream/promises';
import { Readable, Writable } from 'node:stream';

const order = [];
const hex = (b) => Buffer.from(b).toString('hex');

crypto.pbkdf2('pw', 'salt', 1000, 16, 'sha256', (err, key) => order.push(`pbkdf2 ${err ?? hex(key)}`));
zlib.gzip('hello', (err, gz) => order.push(`gzip ${err ?? zlib.gunzipSync(gz).toString()}`));
process.nextTick(() => order.push('nextTick'));
Promise.resolve().then(() => order.push('promise'));
order.push('sync');

await new Promise((resolve) => setTimeout(resolve, 200)); // long enough for the thread pool, plainly
console.log('first turn:', order.slice(0, 3).join(', '));
console.log('completions:', order.slice(3).sort().join(' | '));

console.log('named imports:', namedPbkdf2 === crypto.pbkdf2, namedGzip === zlib.gzip);
console.log('shape:', crypto.pbkdf2.name, crypto.pbkdf2.length, crypto.subtle.digest.name, crypto.subtle.digest.length);
const pair = await promisify(crypto.generateKeyPair)('ed25519');
console.log('promisified generateKeyPair:', Object.keys(pair).sort().join(','), pair.publicKey.asymmetricKeyType);
const message = Buffer.from('message');
const signature = await promisify(crypto.sign)(null, message, pair.privateKey);
console.log('sign/verify with callbacks:', signature.length, await promisify(crypto.verify)(null, message, pair.publicKey, signature));
console.log('scrypt:', hex(await promisify(crypto.scrypt)('pw', 'salt', 8)));
console.log('hkdf:', hex(await promisify(crypto.hkdf)('sha256', 'key', 'salt', 'info', 8)));
console.log('checkPrime:', await promisify(crypto.checkPrime)(7919n));
console.log('digest:', hex(await crypto.subtle.digest('SHA-256', message)).slice(0, 16));
const hmacKey = await crypto.subtle.importKey('raw', Buffer.alloc(16, 1), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
console.log('hmac:', hex(await crypto.subtle.sign('HMAC', hmacKey, message)).slice(0, 16));
const aesKey = await crypto.subtle.importKey('raw', Buffer.alloc(16, 2), 'AES-GCM', false, ['encrypt', 'decrypt']);
const iv = Buffer.alloc(12, 3);
const sealed = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, aesKey, message);
console.log('aes-gcm:', Buffer.from(await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, aesKey, sealed)).toString());

// importKey completes without the thread pool: its promise settles before an immediate.
const race = [];
setImmediate(() => race.push('immediate'));
crypto.subtle.importKey('raw', Buffer.alloc(16), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']).then(() => race.push('importKey'));
await new Promise((resolve) => setTimeout(resolve, 50));
console.log('importKey vs immediate:', race.join(', '));

const chunks = [];
await pipeline(Readable.from(['a', 'b', 'c']), zlib.createDeflate(), zlib.createInflate(), new Writable({
  write(chunk, _encoding, callback) { chunks.push(String(chunk)); callback(); },
}));
console.log('stream pipeline:', chunks.join(''));
console.log('brotli:', zlib.brotliDecompressSync(await promisify(zlib.brotliCompress)('brotli!')).toString());

zlib.gunzip(Buffer.from('not gzip at all'), (err) => console.log('gunzip error:', err.code, err.errno, err.message));
await new Promise((resolve) => setTimeout(resolve, 100));
try {
  crypto.pbkdf2('pw', 'salt', 1, 16, 'no-such-digest', () => {});
} catch (err) {
  console.log('pbkdf2 bad digest throws:', err.code);
}
try {
  crypto.pbkdf2('pw', 'salt', 1, 16, 'sha256');
} catch (err) {
  console.log('pbkdf2 without a callback throws:', err.code);
}
await crypto.subtle.digest('NO-SUCH', message).catch((err) => console.log('digest bad algorithm rejects:', err.name));
console.log('done');
