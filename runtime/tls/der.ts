/**
 * The few DER encodings an X.509 v3 certificate needs (ITU-T X.690): just enough for the test
 * certificates of certificates.ts, with no dependency.
 */

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** A tag-length-value of `tag` around `parts`. */
export function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

export const sequence = (...parts: Buffer[]): Buffer => tlv(0x30, ...parts);
export const set = (...parts: Buffer[]): Buffer => tlv(0x31, ...parts);
export const octetString = (bytes: Buffer): Buffer => tlv(0x04, bytes);
export const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
export const boolean = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0]));
/** [n] EXPLICIT. */
export const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 + n, inner);
/** A BIT STRING of whole bytes. */
export const bitString = (bytes: Buffer): Buffer => tlv(0x03, Buffer.from([0]), bytes);

/** A non-negative INTEGER from its big-endian bytes (a leading zero keeps it positive). */
export function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const minimal = bytes.subarray(start);
  return tlv(0x02, (minimal[0]! & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

/** An OBJECT IDENTIFIER from its dotted form. */
export function objectIdentifier(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [40 * parts[0]! + parts[1]!];
  for (const part of parts.slice(2)) {
    const base128 = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) base128.unshift(0x80 | (v & 0x7f));
    out.push(...base128);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
export function time(date: Date): Buffer {
  const digits = `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2))) : tlv(0x18, Buffer.from(digits));
}
