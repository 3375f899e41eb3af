// A keep-alive Agent pools a socket in a nextTick after the response's 'end', even when the
// server ends that socket right after responding (Node's test-http-agent-keepalive
// 'remote_close'): the FIN's read comes after that tick. (The simulator ran the FIN's read in
// the same event as the last data, so the agent found the socket ended and destroyed it.)
import http from 'node:http';

const PORT = 21690;
const agent = new http.Agent({ keepAlive: true });
const server = http.createServer((req, res) => {
  if (req.url === '/remote_close') {
    const socket = res.socket;
    setImmediate(() => socket.end());
  }
  res.end('hello world');
});
server.listen(PORT, '127.0.0.1', () => {
  const name = `127.0.0.1:${PORT}:`;
  const get = (path, next) => http.get({ host: '127.0.0.1', port: PORT, agent, path }, (res) => {
    res.on('data', () => {});
    res.on('end', () => {
      process.nextTick(() => {
        console.log(path, 'in use', agent.sockets[name]?.length ?? 0, 'free', agent.freeSockets[name]?.length ?? 0);
        next();
      });
    });
  });
  get('/first', () => get('/remote_close', () => setTimeout(() => {
    console.log('after the server ended it:', agent.totalSocketCount, 'sockets');
    server.close();
  }, 50)));
});
