// Loaded with `node --import` into the `svc start` process the soak bench runs (plain JavaScript:
// it loads before any TypeScript loader). The process is otherwise as a user starts it; this only
// answers the bench's IPC message `memory` with process.memoryUsage(), which no other process can
// read (the heap). The channel does not keep the process alive.
process.on('message', (message) => {
  if (message === 'memory') process.send?.({ memory: process.memoryUsage() });
});
process.channel?.unref();
