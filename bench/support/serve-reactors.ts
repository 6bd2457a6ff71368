/**
 * The reactor benchmark's server: the real API over a temp vault with a private application
 * (token:use, token:create) and two reactors — a trivial formula and one calling `svc.tokenize`.
 * Prints one JSON line when ready.
 */
import './serving-runtime.ts';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../../core/services.ts';
import { createVault } from '../../core/vault/index.ts';
import { startServer } from '../../server/listen.ts';
import { enableSignalProfiling } from './profiling.ts';
import { stopOnSigterm } from './bench-signals.ts';

enableSignalProfiling();

const dir = await mkdtemp(join(tmpdir(), 'svc-bench-reactors-'));
const vault = await createVault({
  path: join(dir, 'vault.svc'),
  key: { kind: 'key', key: new Uint8Array(randomBytes(32)) },
});
const services = createServices(vault);
const { tenant } = await services.tenants.create({ name: 'bench', withApplication: false }, null);
const operator = { kind: 'operator' as const, tenantId: tenant.id };
const app = await services.applications.create(operator, {
  name: 'bench',
  type: 'private',
  permissions: ['token:use', 'token:create'],
});
const reactorFor = async (code: string) => {
  const { formula } = await services.reactors.createFormula(operator, {
    name: 'bench',
    type: 'private',
    code,
  });
  const reactor = await services.reactors.create(operator, {
    name: 'bench',
    formula: { id: formula.id },
    configuration: {},
    application: { id: app.id },
  });
  return reactor.id;
};
const trivial = await reactorFor('module.exports = async (req) => ({ raw: { ok: true } });');
const tokenizing = await reactorFor(
  'module.exports = async (req) => ({ raw: await req.svc.tokenize({ a: req.args.a }) });',
);
const server = await startServer(vault, {
  host: '127.0.0.1',
  port: 0,
  services,
  logger: { level: 'silent' },
});
process.stdout.write(`${JSON.stringify({ url: server.url, key: app.key, trivial, tokenizing })}\n`);
stopOnSigterm(
  dir,
  () => server.close(),
  () => services.reactors.close(),
  () => vault.close({ snapshot: false }),
);
