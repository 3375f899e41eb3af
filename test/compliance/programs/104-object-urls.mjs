// Blob URLs (URL.createObjectURL, URL.revokeObjectURL, node:buffer's resolveObjectURL, fetch of a
// blob URL), with what plain Node guarantees whatever the random id: the URL's shape, the blob it
// resolves to (through a fragment and a query too, not through another case or another prefix),
// two URLs never equal, revocation (by the URL, through a fragment, by another scheme's path with
// the same id), and the errors with their code. The id itself is left out: plainly it is random.
import { resolveObjectURL } from 'node:buffer';

const log = (line) => console.log(line);
const shape = (url) => url.replace(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, '<uuid4>');
const show = async (blob) => (blob === undefined ? 'undefined' : `${blob.constructor.name} ${blob.size} ${JSON.stringify(blob.type)} ${JSON.stringify(await blob.text())}`);

const a = URL.createObjectURL(new Blob(['hello'], { type: 'text/plain' }));
const b = URL.createObjectURL(new Blob([new Uint8Array([1, 2, 3])]));
log(`shapes ${shape(a)} ${shape(b)}; equal ${a === b}`);
log(`resolve a: ${await show(resolveObjectURL(a))}`);
log(`resolve b: ${await show(resolveObjectURL(b))}`);
log(`with a fragment: ${await show(resolveObjectURL(`${a}#part`))}; with a query: ${await show(resolveObjectURL(`${a}?q=1`))}`);
log(`upper case: ${await show(resolveObjectURL(a.toUpperCase()))}; other prefix: ${await show(resolveObjectURL(a.replace('nodedata', 'other')))}`);
log(`an object with toString: ${await show(resolveObjectURL({ toString: () => a }))}`);
log(`fetch: ${await (await fetch(a)).text()}`);
URL.revokeObjectURL(`${a}#part`);
log(`after revoking a through a fragment: ${await show(resolveObjectURL(a))}`);
URL.revokeObjectURL(b.replace('blob:nodedata:', 'blob:x:'));
log(`after revoking b's id under another prefix: ${await show(resolveObjectURL(b))}`);
const c = URL.createObjectURL(new Blob(['c']));
URL.revokeObjectURL(new URL(c));
log(`after revoking c as a URL object: ${await show(resolveObjectURL(c))}`);
URL.revokeObjectURL('not a url');
URL.revokeObjectURL(a);
log('revoking garbage and twice: no error');
for (const [name, call] of [
  ['createObjectURL(string)', () => URL.createObjectURL('x')],
  ['createObjectURL()', () => URL.createObjectURL()],
  ['revokeObjectURL()', () => URL.revokeObjectURL()],
]) {
  try {
    call();
    log(`${name}: no error`);
  } catch (error) {
    log(`${name}: ${error.name} ${error.code} ${error.message}`);
  }
}
log(`names ${URL.createObjectURL.name} ${URL.revokeObjectURL.name} ${resolveObjectURL.name}; lengths ${URL.createObjectURL.length} ${URL.revokeObjectURL.length} ${resolveObjectURL.length}`);
