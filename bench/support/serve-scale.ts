/**
 * The scale benchmark's server: builds a vault of N tokens (argv[2]) through the core services in
 * large transactions, closes it (a snapshot), measures a cold open, and serves the real API over
 * it. Prints one JSON line when ready (URL, key, a token id, a searchable value, and the build,
 * snapshot and open figures, the open by phase); on SIGUSR1 it compacts the vault (a background snapshot) while
 * serving and prints `{"event":"compacted",...}`. Peak memory is the process's maxRSS.
 */
import './serving-runtime.ts';
import { randomBytes } from 'node:crypto';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../../core/services.ts';
import { createVault, openVault } from '../../core/vault/index.ts';
import type { OpenTimes, VaultHandle } from '../../core/vault/types.ts';
import { startServer } from '../../server/listen.ts';
import { compactOnSigusr1, stopOnSigterm } from './bench-signals.ts';
import { scaleValueOf, tokenizeScaleTokens } from './scale-tokens.ts';

const tokens = Number(process.argv[2] ?? '10000');
const dir = await mkdtemp(join(tmpdir(), 'svc-bench-scale-'));
const path = join(dir, 'vault.svc');
const key = { kind: 'key' as const, key: new Uint8Array(randomBytes(32)) };
const maxRssMiB = () => Math.round(process.resourceUsage().maxRSS / 1024);

const built = await createVault({ path, key, snapshotThresholdBytes: Number.MAX_SAFE_INTEGER });
const builder = createServices(built);
const { tenant } = await builder.tenants.create({ name: 'bench', withApplication: false }, null);
const operator = { kind: 'operator' as const, tenantId: tenant.id };
const app = await builder.applications.create(operator, {
  name: 'bench',
  type: 'private',
  permissions: ['token:create', 'token:read'],
  // `data:` search terms need the reveal transform for token:search everywhere the caller searches.
  rules: [
    { description: 'bench', priority: 1, container: '/', permissions: ['token:search'], transform: 'reveal' },
  ],
});
const buildStarted = performance.now();
const tokenId = await tokenizeScaleTokens(built, builder, operator, tokens);
const buildMs = performance.now() - buildStarted;
let t0 = performance.now();
await built.close();
const snapshotMs = performance.now() - t0;
const fileMiB = +((await stat(path)).size / 2 ** 20).toFixed(1);

t0 = performance.now();
let openTimes: OpenTimes | undefined;
const vault: VaultHandle = await openVault({ path, key, onOpenTimes: (times) => (openTimes = times) });
const openMs = performance.now() - t0;
// The open's phases, rounded, under the names the bench prints (`read_ms`, `decrypt_ms`…).
const openPhases = Object.fromEntries(
  Object.entries(openTimes ?? {}).map(([phase, ms]) => [
    phase.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
    Math.round(ms),
  ]),
);
const services = createServices(vault);
const server = await startServer(vault, {
  host: '127.0.0.1',
  port: 0,
  services,
  logger: { level: 'silent' },
});
process.stdout.write(
  `${JSON.stringify({
    url: server.url,
    key: app.key,
    tokenId,
    searchValue: scaleValueOf(Math.floor(tokens / 3)),
    tokens,
    buildMs: Math.round(buildMs),
    snapshotMs: Math.round(snapshotMs),
    openMs: Math.round(openMs),
    openPhases,
    fileMiB,
    maxRssMiB: maxRssMiB(),
  })}\n`,
);

compactOnSigusr1(vault, () => ({ maxRssMiB: maxRssMiB() }));
stopOnSigterm(
  dir,
  () => server.close(),
  () => vault.close({ snapshot: false }),
);
