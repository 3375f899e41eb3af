// WebAssembly's asynchronous compilation: results, errors, shapes, and the orders plain Node
// guarantees (instantiate of a compiled module settles within the promise jobs of its turn).
// (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 7, 1, 96, 2, 127, 127, 1, 127, 3, 2, 1, 0, 7, 7, 1, 3, 97, 100, 100, 0, 0, 10, 9, 1, 7, 0, 32, 0, 32, 1, 106, 11]);

console.log('shape:', WebAssembly.compile.name, WebAssembly.compile.length, WebAssembly.instantiate.name, WebAssembly.instantiate.length);
const module = await WebAssembly.compile(bytes);
console.log('compile:', module instanceof WebAssembly.Module, WebAssembly.Module.exports(module).map((e) => e.name).join());
const both = await WebAssembly.instantiate(bytes.buffer);
console.log('instantiate(bytes):', Object.keys(both).sort().join(), both.instance.exports.add(2, 3));

const order = [];
setImmediate(() => order.push('immediate'));
WebAssembly.instantiate(module).then((instance) => order.push(`instantiate(module) ${instance.exports.add(1, 1)}`));
Promise.resolve().then(() => order.push('promise'));
await new Promise((resolve) => setTimeout(resolve, 20));
console.log('first turn:', order.filter((o) => o !== 'immediate').sort().join(', '), '| then', order.at(-1));

await WebAssembly.compile(123).catch((error) => console.log('compile(123):', error.name, error.constructor === TypeError));
await WebAssembly.compile(new Uint8Array([1, 2, 3])).catch((error) => console.log('compile(garbage):', error.name));
await WebAssembly.instantiate(bytes, 5).catch((error) => console.log('instantiate(bytes, 5):', error.name));
console.log('done');
