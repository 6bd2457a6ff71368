/**
 * The stalls benchmark's server: builds a vault of N tokens (argv[2]) with a tenant owner who signs
 * in with a password, closes it and opens it again (as a restarted server holds it), and serves the
 * real API over it, its invitation mail going to the SMTP server at `SVC_BENCH_SMTP_URL`. Prints
 * one JSON line when ready (URL, API key, a token id, the tenant, the owner's credentials, the file
 * size); on SIGUSR1 it compacts the vault (a background snapshot) and prints
 * `{"event":"compacted",...}`; on SIGUSR2 it prints, since the last SIGUSR2, the longest stretch its
 * event loop ran without a turn counted in the main thread's own running time (`longestMs`), and
 * the longest the main thread waited for a core between two turns (`longestWaitMs`): what the server
 * did itself, told apart from the time the machine's other threads held the cores.
 */
import './serving-runtime.ts';
import { randomBytes } from 'node:crypto';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../../core/services.ts';
import type { ServiceOptions } from '../../core/services-contract.ts';
import { createVault, openVault } from '../../core/vault/index.ts';
import { startServer } from '../../server/listen.ts';
import { compactOnSigusr1, stopOnSigterm } from './bench-signals.ts';
import { mainThreadCpuMs, mainThreadSchedMs } from './process-cpu.ts';
import { tokenizeScaleTokens } from './scale-tokens.ts';

const tokens = Number(process.argv[2] ?? '10000');
const smtpUrl = process.env.SVC_BENCH_SMTP_URL ?? '';
const dir = await mkdtemp(join(tmpdir(), 'svc-bench-stalls-'));
const path = join(dir, 'vault.svc');
const key = { kind: 'key' as const, key: new Uint8Array(randomBytes(32)) };
const email = 'owner@example.com';
const password = `bench-${randomBytes(12).toString('hex')}`;
const options: ServiceOptions = {
  tenancy: {
    mail: { kind: 'smtp', url: smtpUrl, from: 'vault@example.com' },
    acceptBaseUrl: 'http://127.0.0.1:8080/invitations/accept',
  },
};

const built = await createVault({ path, key, snapshotThresholdBytes: Number.MAX_SAFE_INTEGER });
const builder = createServices(built, options);
const { tenant } = await builder.tenants.create(
  { name: 'bench', ownerEmail: email, ownerPassword: password, withApplication: false },
  null,
);
const operator = { kind: 'operator' as const, tenantId: tenant.id };
const app = await builder.applications.create(operator, {
  name: 'bench',
  type: 'private',
  permissions: ['token:create', 'token:read'],
});
const tokenId = await tokenizeScaleTokens(built, builder, operator, tokens);
await built.close();
const fileMiB = +((await stat(path)).size / 2 ** 20).toFixed(1);

const vault = await openVault({ path, key });
const server = await startServer(vault, {
  host: '127.0.0.1',
  port: 0,
  services: createServices(vault, options),
  logger: { level: 'silent' },
});
process.stdout.write(
  `${JSON.stringify({ url: server.url, key: app.key, tokenId, tenantId: tenant.id, email, password, tokens, fileMiB })}\n`,
);

// The longest the event loop ran without a turn, counted in its thread's own running time, and the
// longest it waited for a core: a timer every 5 ms reads both (schedstat, in nanoseconds; where it
// is missing, CPU clock ticks of 10 ms and no waits).
let longestBlockMs = 0;
let longestWaitMs = 0;
let last = mainThreadSchedMs() ?? { runMs: mainThreadCpuMs() ?? 0, waitMs: 0 };
setInterval(() => {
  const now = mainThreadSchedMs() ?? { runMs: mainThreadCpuMs() ?? 0, waitMs: 0 };
  longestBlockMs = Math.max(longestBlockMs, now.runMs - last.runMs);
  longestWaitMs = Math.max(longestWaitMs, now.waitMs - last.waitMs);
  last = now;
}, 5).unref();
process.on('SIGUSR2', () => {
  process.stdout.write(
    `${JSON.stringify({ event: 'blocked', longestMs: +longestBlockMs.toFixed(1), longestWaitMs: +longestWaitMs.toFixed(1) })}\n`,
  );
  longestBlockMs = 0;
  longestWaitMs = 0;
});

compactOnSigusr1(vault);
stopOnSigterm(
  dir,
  () => server.close(),
  () => vault.close({ snapshot: false }),
);
