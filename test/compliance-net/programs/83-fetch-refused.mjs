// fetch to a port nobody listens on rejects with TypeError 'fetch failed', whose cause is the
// connect error (ECONNREFUSED, syscall connect, address, port).
const PORT = 21830;
try {
  await fetch(`http://127.0.0.1:${PORT}/`);
  console.log('resolved (unexpected)');
} catch (err) {
  console.log(err.name, err.message, err instanceof TypeError);
  const { cause } = err;
  console.log('cause', cause?.name, cause?.code, cause?.errno, cause?.syscall, cause?.address, cause?.port === PORT);
}
process.on('exit', (code) => console.log('exit', code));
