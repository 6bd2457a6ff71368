/** A TCP gate in front of PostgreSQL for the end-to-end fault tests, and waiting on a condition. */
import net from 'node:net';

/**
 * A TCP gate in front of the database: open, it forwards to PostgreSQL; closed, it refuses new
 * connections and cuts the open ones, as a database that stopped would. Reopened on the same port.
 */
export interface Gate {
  readonly port: number;
  close(): Promise<void>;
  open(): Promise<void>;
  end(): Promise<void>;
}

export async function startGate(target: { host: string; port: number }): Promise<Gate> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const close = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    port,
    close,
    open: () => listen(port),
    end: () => (server.listening ? close() : Promise.resolve()),
  };
}

/** `url` with its port replaced (the database behind a gate). */
export function throughPort(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.port = String(port);
  return parsed.toString();
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function waitFor(
  predicate: () => boolean,
  what: () => string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
