import net from 'node:net';
async function main() {
  const big = new Uint8Array(200e6).fill(1); // 200 MB, reachable only from the server's handler
  globalThis.__fr?.register(big, 'big');
  net.createServer((s) => s.end(String(big[0]))).listen(7000);
}
await main();
