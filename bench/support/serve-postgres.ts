/**
 * A server for the PostgreSQL benchmark, in its own process: the real API over a vault already set
 * up in the database named by SVC_BENCH_DATABASE_URL, opened with the raw key in SVC_BENCH_VAULT_KEY
 * (base64). Several of these run on one database, as `svc serve --database` processes do. Prints
 * one JSON line when ready.
 */
import './serving-runtime.ts';
import { tmpdir } from 'node:os';
import { createServices, outboxTenancyOptions } from '../../core/services.ts';
import { openPostgresVault } from '../../core/backends/postgres/postgres-vault.ts';
import { startServer } from '../../server/listen.ts';
import { enableSignalProfiling } from './profiling.ts';
import { stopOnSigterm } from './bench-signals.ts';

enableSignalProfiling();

const url = process.env.SVC_BENCH_DATABASE_URL;
const key = process.env.SVC_BENCH_VAULT_KEY;
if (url === undefined || key === undefined) {
  throw new Error('SVC_BENCH_DATABASE_URL and SVC_BENCH_VAULT_KEY must be set');
}
const vault = await openPostgresVault({
  url,
  key: { kind: 'key', key: new Uint8Array(Buffer.from(key, 'base64')) },
});
// The load sends no mail; a vault in a database is told where it would go.
const services = createServices(vault, { tenancy: outboxTenancyOptions(tmpdir()) });
const server = await startServer(vault, {
  host: '127.0.0.1',
  port: 0,
  services,
  logger: { level: 'silent' },
  // There is no vault file to write the operator credential beside; the load needs none.
  operatorCredentialFile: false,
});
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
stopOnSigterm(
  null,
  () => server.close(),
  () => vault.close(),
);
