// The certificates of the TLS, https and http2 compliance programs: made by
// tlsCertificates('0x17') (test/unit/runtime/tls/certificates.test.mjs checks they still are),
// and a self-signed one for localhost made with the openssl CLI. Read from files, so a plain run
// does not load dst-runtime.
import fs from 'node:fs';

const read = (name) => fs.readFileSync(new URL(name, import.meta.url), 'utf8');

export const ca = read('ca.pem');
export const cert = (name) => read(`${name}-cert.pem`);
export const key = (name) => read(`${name}-key.pem`);
export const selfSigned = { cert: read('self-signed-cert.pem'), key: read('self-signed-key.pem') };
