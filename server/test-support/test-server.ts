import { createServices, outboxTenancyOptions, type ServiceInternals } from '../../core/services.ts';
import type { ServiceOptions, Services } from '../../core/services-contract.ts';
import { FAST_KDF, type TempVault } from '../../core/test-support/temp-vault.ts';
import { createTestVault } from '../../core/test-support/test-vault.ts';
import type { Clock } from '../../core/vault/clock.ts';
import { buildServer, type ServerOptions } from '../app.ts';
import type { VaultServer } from '../types.ts';
import { captureLogs, type LogCapture } from './log-capture.ts';

export interface TestServer {
  readonly app: VaultServer;
  readonly temp: TempVault;
  readonly logs: LogCapture;
  /** The services behind the routes, to arrange fixtures directly. */
  readonly services: Services;
  dispose(): Promise<void>;
}

export interface TestServerOptions extends Omit<ServerOptions, 'logger' | 'services' | 'serviceOptions'> {
  /** Adds test-only routes before the instance is ready. */
  readonly routes?: (app: VaultServer) => void;
  /** The vault's clock; a ManualClock lets a test expire sessions. */
  readonly clock?: Clock;
  /** Service options; the password KDF defaults to FAST_KDF so tests stay quick. */
  readonly serviceOptions?: ServiceOptions;
  /** Log level of the capture. Default `info`. */
  readonly logLevel?: Parameters<typeof captureLogs>[0];
  /** The vault to serve (disposed with the server; `clock` is then its own). Default: a new one on the test backend. */
  readonly vault?: TempVault;
  /** Test knobs of the services (a sandbox shared by many servers, say). */
  readonly internals?: ServiceInternals;
}

/**
 * buildServer over a real vault on the test backend (createTestVault: a temp file, or a fresh
 * schema on PostgreSQL under SVC_TEST_BACKEND=postgres) and real services, logging into memory.
 * `routes` adds test-only routes before the instance is ready, as any later route module would.
 */
export async function createTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { routes, clock, serviceOptions, logLevel, vault, internals, ...serverOptions } = options;
  const temp = vault ?? (await createTestVault({ clock }));
  const logs = captureLogs(logLevel);
  // Mail goes to the temp folder's outbox, on either backend.
  const tenancy = outboxTenancyOptions(temp.dir);
  const services = createServices(
    temp.vault,
    { passwordKdf: FAST_KDF, tenancy, ...serviceOptions },
    internals,
  );
  let app: VaultServer;
  try {
    app = await buildServer(temp.vault, { ...serverOptions, services, logger: logs.logger });
    routes?.(app);
  } catch (error) {
    await temp.dispose();
    throw error;
  }
  return {
    app,
    temp,
    logs,
    services,
    async dispose() {
      try {
        await app.close();
        await services.reactors.close();
      } finally {
        await temp.dispose();
      }
    },
  };
}
