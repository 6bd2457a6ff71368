import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { operatorCredentialPath } from '../server/operator-credential.ts';
import { run } from './main.ts';
import {
  makeTempHome,
  makeTestIo,
  runSvc,
  type CliResult,
  type TempHome,
  type TestIo,
} from './test-support/harness.ts';

/**
 * The data commands in both modes, from one table: in-process over the vault, and through a real
 * `svc start` server on 127.0.0.1 port 0 holding the same kind of vault (the CLI finds it in the
 * lock and signs in with the operator credential). Each step's output and exit code must be the
 * same in both, once ids, times and keys (random by design) are replaced by placeholders.
 */

interface Running {
  readonly io: TestIo;
  readonly url: string;
  stop(): Promise<number>;
}

async function start(home: TempHome): Promise<Running> {
  const io = makeTestIo({ env: home.env() });
  const exit = run(['start', '--port', '0'], io.deps);
  const early = exit.then((code) => {
    throw new Error(`svc start exited early with ${code}: ${io.stderr()}`);
  });
  const stdout = await Promise.race([io.waitForStdout((text) => text.includes('URL: ')), early]);
  const url = /^URL: (\S+)$/m.exec(stdout)?.[1] ?? '';
  return {
    io,
    url,
    stop: async () => {
      io.shutdown('SIGTERM');
      return exit;
    },
  };
}

/** Ids, times, keys and the home folder replaced by placeholders numbered in order of appearance. */
function normalise(text: string, home: string): string {
  const seen = new Map<string, string>();
  const named = (kind: string) => (value: string) => {
    let name = seen.get(value);
    if (name === undefined) {
      name = `<${kind}${seen.size}>`;
      seen.set(value, name);
    }
    return name;
  };
  return (
    text
      .replaceAll(home, '<home>')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>')
      .replace(/\d{8}T\d{9}Z/g, '<time>')
      .replace(/key_[A-Za-z0-9_-]+/g, named('key'))
      // Fingerprints are keyed per vault.
      .replace(/"fingerprint":"[^"]+"/g, '"fingerprint":"<fingerprint>"')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, named('id'))
  );
}

interface Step {
  readonly name: string;
  readonly args: (ids: Record<string, string>) => string[];
  /** Ids this step's JSON output names, for later steps. */
  readonly remember?: (json: unknown, ids: Record<string, string>) => void;
  readonly stdin?: string;
}

const TENANT = ['--tenant', 'Acme'];

const STEPS: readonly Step[] = [
  {
    name: 'tenant create',
    args: () => ['tenant', 'create', '--name', 'Acme', '--owner-email', 'owner@example.test', '--json'],
    remember: (json, ids) => {
      ids.tenant = (json as { tenant: { id: string } }).tenant.id;
    },
  },
  { name: 'tenant list', args: () => ['tenant', 'list', '--json'] },
  { name: 'tenant list (table)', args: () => ['tenant', 'list'] },
  { name: 'tenant show', args: () => ['tenant', 'show', ...TENANT, '--json'] },
  {
    name: 'app create',
    args: () => [
      'app',
      'create',
      ...TENANT,
      '--name',
      'Shop',
      '--type',
      'private',
      '--permission',
      'token:read',
      '--permission',
      'token:create',
      '--json',
    ],
    remember: (json, ids) => {
      ids.app = (json as { id: string }).id;
    },
  },
  { name: 'app list', args: () => ['app', 'list', ...TENANT, '--json'] },
  { name: 'app show', args: (ids) => ['app', 'show', ids.app ?? '', '--json'] },
  {
    name: 'token create',
    args: () => [
      'token',
      'create',
      ...TENANT,
      '--type',
      'token',
      '--id',
      'card-one',
      '--data',
      '"4242424242424242"',
      '--metadata',
      'customer=c-42',
      '--json',
    ],
  },
  { name: 'token get', args: () => ['token', 'get', ...TENANT, 'card-one', '--json'] },
  { name: 'token get (missing)', args: () => ['token', 'get', ...TENANT, 'no-such-token'] },
  { name: 'token list', args: () => ['token', 'list', ...TENANT, '--json'] },
  { name: 'token search', args: () => ['token', 'search', ...TENANT, 'metadata.customer:c-42', '--json'] },
  { name: 'tokenize', args: () => ['tokenize', ...TENANT, '{"a":"secret one","b":[1,2]}'] },
  {
    name: 'invitation create',
    args: () => ['invitation', 'create', ...TENANT, '--email', 'invitee@example.test', '--json'],
  },
  { name: 'invitation list', args: () => ['invitation', 'list', ...TENANT, '--json'] },
  { name: 'member list', args: () => ['member', 'list', ...TENANT, '--json'] },
  { name: 'usage', args: () => ['tenant', 'usage', ...TENANT, '--json'] },
  { name: 'logs', args: () => ['logs', ...TENANT, '--limit', '50', '--json'] },
  { name: 'logs verify', args: () => ['logs', 'verify', '--json'] },
  { name: 'tenant show (unknown)', args: () => ['tenant', 'show', '--tenant', 'Nobody'] },
];

interface Outcome {
  readonly name: string;
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function runSteps(home: TempHome): Promise<Outcome[]> {
  const ids: Record<string, string> = {};
  const outcomes: Outcome[] = [];
  for (const step of STEPS) {
    const result: CliResult = await runSvc(step.args(ids), { env: home.env(), stdin: step.stdin ?? '' });
    if (step.remember !== undefined && result.code === 0) step.remember(JSON.parse(result.stdout), ids);
    outcomes.push({
      name: step.name,
      code: result.code,
      stdout: normalise(result.stdout, home.dir),
      stderr: normalise(result.stderr, home.dir),
    });
  }
  return outcomes;
}

let homes: TempHome[] = [];
beforeEach(() => {
  homes = [];
});
afterEach(async () => {
  for (const home of homes) await home.cleanup();
});

async function newHome(): Promise<TempHome> {
  const home = await makeTempHome();
  homes.push(home);
  return home;
}

describe('the data commands in-process and through the server holding the vault', () => {
  it('print the same output and exit with the same codes', async () => {
    // In-process: a first `svc start` makes the vault and its Default tenant, then stops.
    const local = await newHome();
    const first = await start(local);
    expect(await first.stop()).toBe(0);
    const inProcess = await runSteps(local);

    // Through the server: the same first start, left running while the commands run.
    const served = await newHome();
    const server = await start(served);
    let throughServer: Outcome[];
    try {
      throughServer = await runSteps(served);
      // The commands went through the server: their effects are visible through its API at once.
      const credential = operatorCredentialPath(path.join(served.dir, 'vault.svc'));
      expect(existsSync(credential)).toBe(true);
    } finally {
      expect(await server.stop()).toBe(0);
    }

    for (const [index, outcome] of inProcess.entries()) {
      expect(throughServer[index], outcome.name).toEqual(outcome);
    }
    // Sanity: the table did real work in both modes.
    expect(inProcess.filter((o) => o.code === 0).length).toBeGreaterThan(STEPS.length - 3);
  }, 240_000);
});
