import process from 'node:process';
import { setTimeout as delay } from 'node:timers/promises';
import type { CliDeps, ServicesFactory, TenancyApi, VaultApi, Writer } from './deps.ts';
import { createInquirerPrompter } from '../prompts/prompter.ts';

// The vault engine (sql.js, libsodium), the server (Fastify) and the tenancy module load on first
// use: `svc config` and `svc --help` should not pay for WebAssembly and an HTTP stack.
const vaultModule = () => import('../../core/vault/index.ts');
const tenancyModule = () => import('../../core/tenancy/bootstrap.ts');
const servicesModule = () => import('../../core/services.ts');

const lazyVault: VaultApi = {
  createVault: async (options) => (await vaultModule()).createVault(options),
  openVault: async (options) => (await vaultModule()).openVault(options),
  createVaultAt: async (location, options) => (await vaultModule()).createVaultAt(location, options),
  openVaultAt: async (location, options) => (await vaultModule()).openVaultAt(location, options),
  vaultStatusAt: async (location) => (await vaultModule()).vaultStatusAt(location),
  vaultExists: async (path) => (await vaultModule()).vaultExists(path),
  readVaultStatus: async (path) => (await vaultModule()).readVaultStatus(path),
  backupVault: async (options) => (await vaultModule()).backupVault(options),
  restoreVault: async (options) => (await vaultModule()).restoreVault(options),
  rekeyVault: async (options) => (await vaultModule()).rekeyVault(options),
};

const lazyTenancy: TenancyApi = {
  bootstrapEmbeddedDefault: async (vault, owner) =>
    (await tenancyModule()).bootstrapEmbeddedDefault(vault, owner),
  needsEmbeddedDefault: async (vault) => (await tenancyModule()).needsEmbeddedDefault(vault),
  listApplications: async (vault) => (await tenancyModule()).listApplications(vault),
};

// Production password cost: the services' default (libsodium INTERACTIVE).
const services: ServicesFactory = async (vault, options = {}) =>
  (await servicesModule()).createServices(vault, { ...options });

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, signal === undefined ? undefined : { signal }).then(
    () => undefined,
    () => undefined,
  );
}

function writerFor(stream: NodeJS.WriteStream): Writer {
  // `svc … | head` closes the pipe early: that is the reader's choice, not an error worth a trace.
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  return {
    write: (text) => {
      stream.write(text);
    },
    isTTY: stream.isTTY === true,
    get columns() {
      return stream.columns;
    },
  };
}

async function readAll(stream: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      // Only the first signal is ours: a second Ctrl-C during shutdown falls back to Node's default (exit).
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** The real process: its streams, environment, terminal, clock, vault and server. */
export function createDefaultDeps(): CliDeps {
  return {
    stdout: writerFor(process.stdout),
    stderr: writerFor(process.stderr),
    env: process.env,
    cwd: process.cwd(),
    isTTY: process.stdin.isTTY === true && process.stderr.isTTY === true,
    // Prompts go to stderr so that `svc … --json > out.json` keeps stdout clean.
    prompter: createInquirerPrompter({ input: process.stdin, output: process.stderr }),
    readStdin: () => readAll(process.stdin),
    clock: { now: () => new Date() },
    vault: lazyVault,
    tenancy: lazyTenancy,
    services,
    startServer: async (vault, options) =>
      (await import('../../server/listen.ts')).startServer(vault, options),
    waitForShutdown: waitForSignal,
    sleep,
  };
}
