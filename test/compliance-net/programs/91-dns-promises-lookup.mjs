// dns.promises.lookup / lookupService: the promise API's own argument validation (it differs
// from the callback API's) and its settle timing: an address literal or a falsy name resolves
// inside the Promise executor, so its reactions run before a nextTick queued earlier. Only
// literals, falsy names and 'localhost' with family 4 are looked up: their answers do not
// depend on a DNS server.
import dns from 'node:dns';
import { lookup as namedLookup, lookupService as namedLookupService } from 'node:dns/promises';

const log = (...args) => console.log(...args);
const P = dns.promises;
process.on('warning', (w) => log('warning', w.name, w.code));

// 1. Settle timing, relative to a nextTick and a promise job queued around the calls.
process.nextTick(() => log('nextTick queued before the lookups'));
P.lookup('127.0.0.1').then((r) => log('then 127.0.0.1', JSON.stringify(r)));
P.lookup('::1', { all: true }).then((r) => log('then ::1 all', JSON.stringify(r)));
P.lookup('', { family: 6 }).then((r) => log('then empty family 6', JSON.stringify(r)));
namedLookup(null, { all: true }).then((r) => log('then named null all', JSON.stringify(r)));
Promise.resolve().then(() => log('promise job queued after'));
await new Promise((resolve) => setTimeout(resolve, 10));

// 2. Synchronous validation: what throws, with which code and message.
const attempt = async (label, fn, { message = true } = {}) => {
  let promise;
  try {
    promise = fn();
  } catch (e) {
    log(`${label}: threw ${e.name} ${e.code}${message ? ` ${e.message}` : ''}`);
    return;
  }
  log(`${label}: returned ${promise instanceof Promise ? 'a promise' : typeof promise}`);
  try {
    log(`${label}: resolved ${JSON.stringify(await promise)}`);
  } catch (e) {
    log(`${label}: rejected ${e.code}`);
  }
};

let callbackCalled = false;
const callback = () => {
  callbackCalled = true;
};
await attempt('lookup(name, function)', () => P.lookup('localhost', callback));
await attempt('lookup(literal, function)', () => P.lookup('127.0.0.1', callback));
await attempt('lookup(name, options, function)', () => P.lookup('localhost', { family: 4 }, callback));
log('callback called:', callbackCalled);
await attempt("lookup(name, {family: 'IPv4'})", () => P.lookup('localhost', { family: 'IPv4' }));
await attempt("lookup(literal, {family: 'IPv6'})", () => P.lookup('::1', { family: 'IPv6' }));
await attempt("named lookup(name, {family: 'IPv4'})", () => namedLookup('localhost', { family: 'IPv4' }));
await attempt('lookup(name, 5)', () => P.lookup('localhost', 5));
await attempt("lookup(name, '4')", () => P.lookup('localhost', '4'));
await attempt('lookup(name, true)', () => P.lookup('localhost', true));
await attempt('lookup(42)', () => P.lookup(42));
await attempt('lookup({})', () => P.lookup({}));
await attempt("lookup(false, {family: 'IPv6'})", () => P.lookup(false, { family: 'IPv6' }));
await attempt("lookup(name, {hints: 'x'})", () => P.lookup('localhost', { hints: 'x' }));
await attempt('lookup(name, {hints: 0xffff})', () => P.lookup('localhost', { hints: 0xffff }));
await attempt("lookup(name, {all: 'yes'})", () => P.lookup('localhost', { all: 'yes' }));
await attempt('lookup(name, {verbatim: 1})', () => P.lookup('localhost', { verbatim: 1 }));
// The list in this message changed order within Node 20: its code only.
await attempt("lookup(name, {order: 'x'})", () => P.lookup('localhost', { order: 'x' }), { message: false });
await attempt('lookupService()', () => P.lookupService());
await attempt('lookupService(address)', () => P.lookupService('127.0.0.1'));
await attempt('lookupService(address, port, extra)', () => P.lookupService('127.0.0.1', 22, 'extra'));
await attempt('named lookupService(address)', () => namedLookupService('127.0.0.1'));
await attempt('lookupService(name, port)', () => P.lookupService('localhost', 22));
await attempt("lookupService(address, 'x')", () => P.lookupService('127.0.0.1', 'x'));
await attempt('lookupService(address, 70000)', () => P.lookupService('::1', 70000));
await attempt('lookupService(address, undefined)', () => P.lookupService('127.0.0.1', undefined));
const resolver = new P.Resolver({ timeout: 1_000, tries: 1 });
await attempt('Resolver resolve4(1)', () => resolver.resolve4(1));
await attempt("Resolver resolve(name, 'BOGUS')", () => resolver.resolve('localhost', 'BOGUS'));

// 3. Results of the options that need no DNS server.
await attempt('lookup(literal, {all, family 4, hints})', () =>
  P.lookup('127.0.0.1', { all: true, family: 4, hints: dns.ADDRCONFIG | dns.V4MAPPED }));
await attempt('lookup(v6 literal, {family: 4})', () => P.lookup('::1', { family: 4 }));
await attempt("lookup(literal, {order: 'ipv6first', all})", () => P.lookup('10.1.2.3', { order: 'ipv6first', all: true }));
await attempt('lookup(literal, {verbatim: false})', () => P.lookup('::ffff:10.0.0.1', { verbatim: false }));
await attempt('lookup(undefined)', () => P.lookup());
await attempt('lookup(0, 6)', () => P.lookup(0, 6));
await attempt('lookup(localhost, 4)', () => P.lookup('localhost', 4));
await attempt('lookup(localhost, {family 4, all})', () => P.lookup('localhost', { family: 4, all: true }));
await attempt("lookup(localhost, {family 4, order: 'ipv6first'})", () => P.lookup('localhost', { family: 4, order: 'ipv6first' }));
await attempt('lookup(localhost, {family 4, verbatim: true, all})', () => P.lookup('localhost', { family: 4, verbatim: true, all: true }));
await attempt('named lookup(localhost, {family: 4})', () => namedLookup('localhost', { family: 4 }));

// 4. A name that cannot exist (RFC 6761 .invalid): the error's shape.
const err = await P.lookup('nonexistent.invalid', { all: true }).catch((e) => e);
log('unknown:', err.constructor.name, err.syscall, err.hostname, ['ENOTFOUND', 'EAI_AGAIN'].includes(err.code),
  err.message === `getaddrinfo ${err.code} nonexistent.invalid`);

// 5. lookupService of a loopback address answers with two strings (the names depend on the
//    machine's hosts and services files).
const service = await P.lookupService('127.0.0.1', 22);
log('lookupService:', Object.keys(service).join(','), typeof service.hostname, typeof service.service);

process.on('exit', (code) => log('exit', code));
