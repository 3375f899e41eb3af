/**
 * DNS messages as c-ares writes and reads them (RFC 1035), for a Resolver whose servers are
 * simulated hosts: the query c-ares sends, and the answers it hands Node turned into the values
 * Node's cares_wrap gives JavaScript (the shapes of dns.resolve*, measured against Node 20, 22
 * and 24 with a DNS server on a dgram socket; test/compliance-net programs 129 and 130).
 *
 * What c-ares sends (the same bytes on 20, 22 and 24): a 16-bit random id, flags 0x0100 (a
 * standard query, recursion desired), one question, no EDNS record.
 */

/** The record type each query method of the channel asks for (getHostByAddr: a PTR query). */
export const QUERY_TYPES: Readonly<Record<string, number>> = {
  queryA: 1,
  queryNs: 2,
  queryCname: 5,
  querySoa: 6,
  queryPtr: 12,
  getHostByAddr: 12,
  queryMx: 15,
  queryTxt: 16,
  queryAaaa: 28,
  querySrv: 33,
  queryNaptr: 35,
  queryTlsa: 52,
  queryAny: 255,
  queryCaa: 257,
};

const T = { A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, MX: 15, TXT: 16, AAAA: 28, SRV: 33, NAPTR: 35, TLSA: 52, CAA: 257 } as const;
const CLASS_IN = 1;

/** One resource record: its owner, type, class and TTL, and where its data lies in the message. */
interface Record_ {
  name: string;
  type: number;
  cls: number;
  ttl: number;
  offset: number;
  length: number;
}

export interface DnsMessage {
  id: number;
  /** The response code (the low 4 bits of the flags). */
  rcode: number;
  truncated: boolean;
  questions: Array<{ name: string; type: number; cls: number }>;
  answers: Record_[];
  buf: Buffer;
}

/** What a query ends with: the arguments of the request's oncomplete, or a c-ares error name. */
export type WireResult = { records: unknown; ttls?: number[] } | { error: string };

/**
 * Node 24 puts `type` in the records of resolveMx, resolveSrv and resolveCaa too (a CAA record's
 * `type` before its tag), not only in resolveAny's; Node 20 and 22 do not (measured on 20.20,
 * 22.23 and 24.22).
 */
const TYPED_EVERYWHERE = Number(process.versions.node.split('.')[0]) >= 24;

class Malformed extends Error {}

/** The query c-ares sends for `name`, or undefined when the name cannot be encoded (EBADNAME). */
export function encodeQuery(id: number, name: string, type: number): Buffer | undefined {
  const trimmed = name.endsWith('.') ? name.slice(0, -1) : name;
  const parts: Buffer[] = [];
  for (const label of trimmed === '' ? [] : trimmed.split('.')) {
    // c-ares sends the name in lower case (EXAMPLE.test asks for example.test).
    const bytes = Buffer.from(label.toLowerCase(), 'latin1');
    if (bytes.length === 0 || bytes.length > 63) return undefined;
    parts.push(Buffer.from([bytes.length]), bytes);
  }
  const qname = Buffer.concat([...parts, Buffer.from([0])]);
  if (qname.length > 255) return undefined;
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2);
  header.writeUInt16BE(1, 4);
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(type, 0);
  tail.writeUInt16BE(CLASS_IN, 2);
  return Buffer.concat([header, qname, tail]);
}

/** A name at `offset`, following compression pointers; `next` is the offset after it in place. */
function readName(buf: Buffer, offset: number): { name: string; next: number } {
  const labels: string[] = [];
  let at = offset;
  let next = -1;
  for (let jumps = 0; ; ) {
    if (at >= buf.length) throw new Malformed();
    const length = buf[at]!;
    if (length === 0) {
      if (next < 0) next = at + 1;
      break;
    }
    if ((length & 0xc0) === 0xc0) {
      if (at + 1 >= buf.length || ++jumps > 64) throw new Malformed();
      if (next < 0) next = at + 2;
      at = ((length & 0x3f) << 8) | buf[at + 1]!;
      continue;
    }
    if ((length & 0xc0) !== 0 || at + 1 + length > buf.length) throw new Malformed();
    labels.push(escapeLabel(buf.subarray(at + 1, at + 1 + length)));
    at += 1 + length;
  }
  return { name: labels.join('.'), next };
}

/** A label as c-ares prints it: dots and backslashes escaped, other bytes as Latin-1. */
function escapeLabel(bytes: Buffer): string {
  let text = '';
  for (const byte of bytes) {
    if (byte === 0x2e || byte === 0x5c) text += `\\${String.fromCharCode(byte)}`;
    else text += String.fromCharCode(byte);
  }
  return text;
}

/** Decodes a reply; undefined when it is malformed (c-ares: EBADRESP). */
export function decodeMessage(buf: Buffer): DnsMessage | undefined {
  try {
    if (buf.length < 12) return undefined;
    const flags = buf.readUInt16BE(2);
    const counts = [buf.readUInt16BE(4), buf.readUInt16BE(6), buf.readUInt16BE(8), buf.readUInt16BE(10)];
    let at = 12;
    const questions: DnsMessage['questions'] = [];
    for (let i = 0; i < counts[0]!; i++) {
      const { name, next } = readName(buf, at);
      if (next + 4 > buf.length) return undefined;
      questions.push({ name, type: buf.readUInt16BE(next), cls: buf.readUInt16BE(next + 2) });
      at = next + 4;
    }
    const answers: Record_[] = [];
    for (let section = 1; section < 4; section++) {
      for (let i = 0; i < counts[section]!; i++) {
        const { name, next } = readName(buf, at);
        if (next + 10 > buf.length) return undefined;
        const length = buf.readUInt16BE(next + 8);
        if (next + 10 + length > buf.length) return undefined;
        const record = { name, type: buf.readUInt16BE(next), cls: buf.readUInt16BE(next + 2), ttl: buf.readInt32BE(next + 4), offset: next + 10, length };
        if (section === 1) answers.push(record);
        at = next + 10 + length;
      }
    }
    return { id: buf.readUInt16BE(0), rcode: flags & 0x0f, truncated: (flags & 0x0200) !== 0, questions, answers, buf };
  } catch (error) {
    if (error instanceof Malformed || error instanceof RangeError) return undefined;
    throw error;
  }
}

/** True when the reply answers this query: its question is ours (c-ares ignores any other). */
export function answersQuery(message: DnsMessage, id: number, name: string, type: number): boolean {
  if (message.id !== id || message.questions.length !== 1) return false;
  const q = message.questions[0]!;
  return q.type === type && q.cls === CLASS_IN && sameName(q.name, name);
}

function sameName(a: string, b: string): boolean {
  return a.replace(/\.$/, '').toLowerCase() === b.replace(/\.$/, '').toLowerCase();
}

/**
 * The error c-ares reports for a reply's response code (NOERROR with no answer: ENODATA), or
 * undefined when the reply goes on to be parsed.
 */
export function rcodeError(message: DnsMessage): string | undefined {
  switch (message.rcode) {
    case 0:
      return message.answers.length === 0 ? 'ENODATA' : undefined;
    case 1:
      return 'EFORMERR';
    case 2:
      return 'ESERVFAIL';
    case 3:
      return 'ENOTFOUND';
    case 4:
      return 'ENOTIMP';
    case 5:
      return 'EREFUSED';
    default:
      return 'EBADRESP';
  }
}

/** IPv6 text as c-ares prints it (inet_ntop: the longest run of zero groups as ::, IPv4 tails dotted). */
function ipv6Text(bytes: Buffer): string {
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push(bytes.readUInt16BE(i));
  let best = { base: -1, len: 0 };
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.len) best = { base: i, len: j - i };
    i = j;
  }
  if (best.len < 2) best = { base: -1, len: 0 };
  let text = '';
  for (let i = 0; i < 8; i++) {
    if (best.base >= 0 && i >= best.base && i < best.base + best.len) {
      if (i === best.base) text += ':';
      continue;
    }
    if (i !== 0) text += ':';
    // An IPv4-compatible or IPv4-mapped address ends in dotted decimal.
    if (i === 6 && best.base === 0 && (best.len === 6 || (best.len === 5 && words[5] === 0xffff))) {
      text += `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
      break;
    }
    text += words[i]!.toString(16);
  }
  if (best.base >= 0 && best.base + best.len === 8) text += ':';
  return text;
}

/** Reads the data of one record; throws Malformed when it does not fit its declared length. */
class RecordData {
  at: number;
  readonly end: number;
  constructor(
    readonly message: DnsMessage,
    record: Record_,
  ) {
    this.at = record.offset;
    this.end = record.offset + record.length;
  }
  need(bytes: number): void {
    if (this.at + bytes > this.end) throw new Malformed();
  }
  u8(): number {
    this.need(1);
    return this.message.buf[this.at++]!;
  }
  u16(): number {
    this.need(2);
    const value = this.message.buf.readUInt16BE(this.at);
    this.at += 2;
    return value;
  }
  u32(): number {
    this.need(4);
    const value = this.message.buf.readUInt32BE(this.at);
    this.at += 4;
    return value;
  }
  name(): string {
    const { name, next } = readName(this.message.buf, this.at);
    if (next > this.end) throw new Malformed();
    this.at = next;
    return name;
  }
  string(): string {
    const length = this.u8();
    this.need(length);
    const text = this.message.buf.toString('latin1', this.at, this.at + length);
    this.at += length;
    return text;
  }
  rest(): Buffer {
    const bytes = this.message.buf.subarray(this.at, this.end);
    this.at = this.end;
    return bytes;
  }
}

/** The records of `type` in the answer section (class IN), in order. */
function ofType(message: DnsMessage, type: number): Record_[] {
  return message.answers.filter((r) => r.type === type && r.cls === CLASS_IN);
}

/**
 * Addresses of `name` as c-ares' A/AAAA parser finds them: one pass over the answers in order,
 * following a CNAME whose owner is the name so far; each address's TTL capped by the CNAMEs'.
 */
function addresses(message: DnsMessage, qname: string, type: number): { addresses: string[]; ttls: number[]; canonical: string; aliased: boolean } {
  let current = qname;
  let cap = Number.POSITIVE_INFINITY;
  let aliased = false;
  const found: string[] = [];
  const ttls: number[] = [];
  for (const record of message.answers) {
    if (record.cls !== CLASS_IN || !sameName(record.name, current)) continue;
    if (record.type === T.CNAME) {
      current = new RecordData(message, record).name();
      cap = Math.min(cap, Math.max(0, record.ttl));
      aliased = true;
    } else if (record.type === type) {
      const data = new RecordData(message, record);
      if (type === T.A) {
        if (record.length !== 4) throw new Malformed();
        found.push(`${data.u8()}.${data.u8()}.${data.u8()}.${data.u8()}`);
      } else {
        if (record.length !== 16) throw new Malformed();
        found.push(ipv6Text(data.rest()));
      }
      ttls.push(Math.min(Math.max(0, record.ttl), cap));
    }
  }
  return { addresses: found, ttls, canonical: current, aliased };
}

function mx(message: DnsMessage, typed: boolean): Array<Record<string, unknown>> {
  return ofType(message, T.MX).map((record) => {
    const data = new RecordData(message, record);
    const priority = data.u16();
    return typed ? { exchange: data.name(), priority, type: 'MX' } : { exchange: data.name(), priority };
  });
}

function names(message: DnsMessage, type: number): string[] {
  return ofType(message, type).map((record) => new RecordData(message, record).name());
}

/** PTR targets of `qname` (following a CNAME, as c-ares does for reverse zones). */
function ptr(message: DnsMessage, qname: string): string[] {
  let current = qname;
  const found: string[] = [];
  for (const record of message.answers) {
    if (record.cls !== CLASS_IN || !sameName(record.name, current)) continue;
    if (record.type === T.CNAME) current = new RecordData(message, record).name();
    else if (record.type === T.PTR) found.push(new RecordData(message, record).name());
  }
  return found;
}

function txt(message: DnsMessage): string[][] {
  return ofType(message, T.TXT).map((record) => {
    const data = new RecordData(message, record);
    const chunks: string[] = [];
    while (data.at < data.end) chunks.push(data.string());
    return chunks;
  });
}

function srv(message: DnsMessage, typed: boolean): Array<Record<string, unknown>> {
  return ofType(message, T.SRV).map((record) => {
    const data = new RecordData(message, record);
    const priority = data.u16();
    const weight = data.u16();
    const port = data.u16();
    const name = data.name();
    return typed ? { name, port, priority, weight, type: 'SRV' } : { name, port, priority, weight };
  });
}

function naptr(message: DnsMessage): Array<Record<string, unknown>> {
  return ofType(message, T.NAPTR).map((record) => {
    const data = new RecordData(message, record);
    const order = data.u16();
    const preference = data.u16();
    const flags = data.string();
    const service = data.string();
    const regexp = data.string();
    const replacement = data.name();
    return { flags, service, regexp, replacement, order, preference };
  });
}

function soa(message: DnsMessage): Record<string, unknown> | undefined {
  const record = ofType(message, T.SOA)[0];
  if (record === undefined) return undefined;
  const data = new RecordData(message, record);
  const nsname = data.name();
  const hostmaster = data.name();
  return { nsname, hostmaster, serial: data.u32(), refresh: data.u32(), retry: data.u32(), expire: data.u32(), minttl: data.u32() };
}

function caa(message: DnsMessage, typed: boolean): Array<Record<string, unknown>> {
  return ofType(message, T.CAA).map((record) => {
    const data = new RecordData(message, record);
    const critical = data.u8();
    const tag = data.string();
    const value = data.rest().toString('latin1');
    if (!typed) return { critical, [tag]: value };
    // Node 24 sets `type` before the tag; earlier versions (resolveAny) after it.
    return TYPED_EVERYWHERE ? { critical, type: 'CAA', [tag]: value } : { critical, [tag]: value, type: 'CAA' };
  });
}

/**
 * TLSA records into `list` where Node puts them (22.15+ and 24): record k of the answer section
 * at list.length + k, counting every answer record, not only TLSA ones; other places stay holes.
 * So a reply of only TLSA records gives a dense list; resolveAny's TLSA entries land after holes,
 * and without `type`.
 */
function tlsaInto(list: unknown[], message: DnsMessage): void {
  const base = list.length;
  message.answers.forEach((record, k) => {
    if (record.type !== T.TLSA || record.cls !== CLASS_IN) return;
    const data = new RecordData(message, record);
    const certUsage = data.u8();
    const selector = data.u8();
    const match = data.u8();
    const bytes = data.rest();
    const copy = new ArrayBuffer(bytes.length);
    new Uint8Array(copy).set(bytes);
    list[base + k] = { certUsage, selector, match, data: copy };
  });
}

/**
 * What the channel hands Node for a reply to `method`'s query of `qname`: records (and TTLs for
 * A and AAAA) or a c-ares error name. `tlsaSupported`: the channel has queryTlsa (Node 22.15+),
 * so resolveAny lists TLSA records too.
 */
export function resultOf(message: DnsMessage, method: string, qname: string, tlsaSupported: boolean): WireResult {
  const error = rcodeError(message);
  if (error !== undefined) return { error };
  try {
    // NS and PTR replies without such a record fail; MX, TXT, SRV, NAPTR, CAA and TLSA ones
    // answer an empty list (measured on 20, 22 and 24).
    const empty = (records: unknown[]): WireResult => (records.length === 0 ? { error: 'ENODATA' } : { records });
    const list = (records: unknown[]): WireResult => ({ records });
    switch (method) {
      case 'queryA':
      case 'queryAaaa': {
        const found = addresses(message, qname, method === 'queryA' ? T.A : T.AAAA);
        return found.addresses.length === 0 ? { error: 'ENODATA' } : { records: found.addresses, ttls: found.ttls };
      }
      case 'queryCname': {
        const found = addresses(message, qname, T.A);
        if (!found.aliased && found.addresses.length === 0) return { error: 'ENODATA' };
        return { records: [found.canonical] };
      }
      case 'queryMx':
        return list(mx(message, TYPED_EVERYWHERE));
      case 'queryNs':
        return empty(names(message, T.NS));
      case 'queryTxt':
        return list(txt(message));
      case 'querySrv':
        return list(srv(message, TYPED_EVERYWHERE));
      case 'queryPtr':
      case 'getHostByAddr':
        return empty(ptr(message, qname));
      case 'queryNaptr':
        return list(naptr(message));
      case 'querySoa': {
        const record = soa(message);
        // One object, not a list.
        return record === undefined ? { error: 'EBADRESP' } : { records: record };
      }
      case 'queryCaa':
        return list(caa(message, TYPED_EVERYWHERE));
      case 'queryTlsa': {
        const records: unknown[] = [];
        tlsaInto(records, message);
        return list(records);
      }
      case 'queryAny':
        return { records: anyRecords(message, qname, tlsaSupported) };
      default:
        return { error: 'ENOTIMP' };
    }
  } catch (e) {
    if (e instanceof Malformed || e instanceof RangeError) return { error: 'EBADRESP' };
    throw e;
  }
}

/**
 * resolveAny's list, in Node's order: the name's addresses (or, when the answer aliases it, one
 * CNAME entry naming the canonical name), then AAAA, MX, NS, TXT, SRV, PTR, NAPTR, SOA, TLSA
 * (where Node has it; see tlsaInto), CAA, each parsed over the whole answer section.
 */
function anyRecords(message: DnsMessage, qname: string, tlsaSupported: boolean): unknown[] {
  const list: unknown[] = [];
  const v4 = addresses(message, qname, T.A);
  if (v4.aliased) list.push({ value: v4.canonical, type: 'CNAME' });
  else list.push(...v4.addresses.map((address, i) => ({ address, ttl: v4.ttls[i], type: 'A' })));
  const v6 = addresses(message, qname, T.AAAA);
  list.push(...v6.addresses.map((address, i) => ({ address, ttl: v6.ttls[i], type: 'AAAA' })));
  list.push(...mx(message, true));
  list.push(...names(message, T.NS).map((value) => ({ value, type: 'NS' })));
  list.push(...txt(message).map((entries) => ({ entries, type: 'TXT' })));
  list.push(...srv(message, true));
  list.push(...ptr(message, qname).map((value) => ({ value, type: 'PTR' })));
  list.push(...naptr(message).map((record) => ({ ...record, type: 'NAPTR' })));
  const start = soa(message);
  if (start !== undefined) list.push({ ...start, type: 'SOA' });
  if (tlsaSupported) tlsaInto(list, message);
  list.push(...caa(message, true));
  return list;
}
