import { buildServer, type ServerOptions } from '../app.ts';
import type { VaultServer } from '../types.ts';
import { captureLogs, type LogCapture } from './log-capture.ts';
import { createTempVault, type TempVault } from './temp-vault.ts';

export interface TestServer {
  readonly app: VaultServer;
  readonly temp: TempVault;
  readonly logs: LogCapture;
  dispose(): Promise<void>;
}

/**
 * buildServer over a real temp vault, logging into memory. `routes` adds test-only routes before
 * the instance is ready, as any later route module would.
 */
export async function createTestServer(
  options: Omit<ServerOptions, 'logger'> & { routes?: (app: VaultServer) => void } = {},
): Promise<TestServer> {
  const { routes, ...serverOptions } = options;
  const temp = await createTempVault();
  const logs = captureLogs();
  const app = await buildServer(temp.vault, { ...serverOptions, logger: logs.logger });
  routes?.(app);
  return {
    app,
    temp,
    logs,
    async dispose() {
      try {
        await app.close();
      } finally {
        await temp.dispose();
      }
    },
  };
}
