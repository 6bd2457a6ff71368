import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acceptLinkOf, outboxMessages } from '../../core/test-support/smtp-sink.ts';
import { operatorCredentialPath } from '../../server/operator-credential.ts';
import { startServer } from '../test-support/running-server.ts';
import { makeTempHome, runSvc, type CliResult, type TempHome } from '../test-support/harness.ts';
import { appCreate } from '../test-support/tenant-home.ts';

/**
 * The data commands in both modes, from one table: in-process over the vault, and through a real
 * `svc start` server on 127.0.0.1 port 0 holding the same kind of vault (the CLI finds it in the
 * lock and signs in with the operator credential). Each step's output and exit code must be the
 * same in both, once ids, times and keys (random by design) are replaced by placeholders.
 */

/** Ids, times, keys and the home folder replaced by placeholders numbered in order of appearance. */
function normalise(text: string, home: string): string {
  const seen = new Map<string, string>();
  const placeholder = (kind: string) => (value: string) => {
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
      .replace(/key_[A-Za-z0-9_-]+/g, placeholder('key'))
      // Proxy keys.
      .replace(/\b[A-Za-z0-9]{32}\b/g, placeholder('key'))
      // Fingerprints are keyed per vault.
      .replace(/"fingerprint":"[^"]+"/g, '"fingerprint":"<fingerprint>"')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, placeholder('id'))
  );
}

interface Step {
  readonly name: string;
  readonly args: (ids: Record<string, string>, home: string) => string[];
  /** Ids this step's JSON output names, for later steps. */
  readonly remember?: (json: unknown, ids: Record<string, string>) => void;
  /** Work before the step (files it reads, secrets from the outbox). */
  readonly before?: (ids: Record<string, string>, home: string) => Promise<void>;
  readonly stdin?: string;
}

const TENANT = ['--tenant', 'Acme'];

const GREETER = `const { CustomHttpResponseError } = require('@svc/reactor-errors');
module.exports = async function (req) {
  if (req.args.name === 'nobody') throw new CustomHttpResponseError({ status: 418, headers: { 'x-teapot': 'yes' }, body: { sorry: true } });
  return { raw: { greeting: 'Hello ' + req.args.name, region: req.configuration.region } };
};
`;

const idOf = (key: string) => (json: unknown, ids: Record<string, string>) => {
  ids[key] = (json as { id: string }).id;
};

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
    args: () => [...appCreate('Shop', 'private', 'token:read', 'token:create').args, ...TENANT],
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
  {
    name: 'invitation accept',
    before: async (ids, home) => {
      const mail = (await outboxMessages(path.join(home, 'outbox'))).at(-1);
      ids.secret = acceptLinkOf(mail).secret;
    },
    args: (ids) => [
      'invitation',
      'accept',
      ids.secret ?? '',
      '--first-name',
      'Ada',
      '--last-name',
      'Lovelace',
      '--password-stdin',
      '--json',
    ],
    stdin: 'correct horse battery staple\n',
  },
  {
    name: 'detokenize',
    args: () => [
      'detokenize',
      ...TENANT,
      '--reveal',
      '{"card":"{{ card-one }}","last4":"{{ card-one | last4 }}"}',
    ],
  },
  { name: 'detokenize (no --reveal)', args: () => ['detokenize', ...TENANT, '{"card":"{{ card-one }}"}'] },
  {
    name: 'formula create',
    before: (_ids, home) => writeFile(path.join(home, 'greet.js'), GREETER),
    args: (_ids, home) => [
      'formula',
      'create',
      ...TENANT,
      '--name',
      'Greeter',
      '--code-file',
      path.join(home, 'greet.js'),
      '--configuration',
      '[{"name":"region","type":"string"}]',
      '--request-parameters',
      '[{"name":"name","type":"string"}]',
      '--json',
    ],
    remember: idOf('formula'),
  },
  { name: 'formula list', args: () => ['formula', 'list', ...TENANT, '--name', 'Greet*', '--json'] },
  { name: 'formula list (table)', args: () => ['formula', 'list', ...TENANT, '--name', 'Greet*'] },
  { name: 'formula show', args: (ids) => ['formula', 'show', ...TENANT, ids.formula ?? ''] },
  {
    name: 'formula update',
    args: (ids) => [
      'formula',
      'update',
      ...TENANT,
      ids.formula ?? '',
      '--description',
      'Says hello',
      '--json',
    ],
  },
  { name: 'formula show (missing)', args: () => ['formula', 'show', ...TENANT, 'no-such-formula'] },
  {
    // Saved all the same; the warning names the line in both modes (a header over HTTP).
    name: 'formula create (does not compile)',
    before: (_ids, home) =>
      writeFile(path.join(home, 'broken.js'), 'module.exports = async function () {\n  return {;\n};\n'),
    args: (_ids, home) => [
      'formula',
      'create',
      ...TENANT,
      '--name',
      'Broken',
      '--code-file',
      path.join(home, 'broken.js'),
    ],
  },
  {
    name: 'reactor create',
    args: (ids) => [
      'reactor',
      'create',
      ...TENANT,
      '--name',
      'Greet',
      '--formula',
      ids.formula ?? '',
      '--configuration',
      '{"region":"eu"}',
      '--json',
    ],
    remember: idOf('reactor'),
  },
  { name: 'reactor list', args: () => ['reactor', 'list', ...TENANT, '--json'] },
  { name: 'reactor list (table)', args: () => ['reactor', 'list', ...TENANT] },
  { name: 'reactor show', args: (ids) => ['reactor', 'show', ...TENANT, ids.reactor ?? ''] },
  {
    name: 'reactor update',
    args: (ids) => ['reactor', 'update', ...TENANT, ids.reactor ?? '', '--name', 'Greet EU', '--json'],
  },
  {
    name: 'reactor react',
    args: (ids) => [
      'reactor',
      'react',
      ...TENANT,
      ids.reactor ?? '',
      '--args',
      '{"name":"{{ card-one | last4 }}"}',
    ],
  },
  {
    name: 'reactor react (custom response)',
    args: (ids) => ['reactor', 'react', ...TENANT, ids.reactor ?? '', '--args', '{"name":"nobody"}'],
  },
  {
    name: 'reactor react (missing args)',
    args: (ids) => ['reactor', 'react', ...TENANT, ids.reactor ?? '', '--args', '{}'],
  },
  {
    name: 'formula delete (in use)',
    args: (ids) => ['formula', 'delete', ...TENANT, ids.formula ?? '', '--yes'],
  },
  {
    name: 'reactor delete',
    args: (ids) => ['reactor', 'delete', ...TENANT, ids.reactor ?? '', '--yes', '--json'],
  },
  { name: 'reactor show (deleted)', args: (ids) => ['reactor', 'show', ...TENANT, ids.reactor ?? ''] },
  { name: 'formula delete', args: (ids) => ['formula', 'delete', ...TENANT, ids.formula ?? '', '--yes'] },
  {
    name: 'proxy create',
    args: () => [
      'proxy',
      'create',
      ...TENANT,
      '--name',
      'Payments',
      '--destination-url',
      'https://api.payments.example/v1',
      '--set',
      'ACCOUNT=acct_1',
      '--json',
    ],
    remember: idOf('proxy'),
  },
  { name: 'proxy list', args: () => ['proxy', 'list', ...TENANT, '--json'] },
  { name: 'proxy list (table)', args: () => ['proxy', 'list', ...TENANT] },
  { name: 'proxy show', args: (ids) => ['proxy', 'show', ids.proxy ?? ''] },
  {
    name: 'proxy update',
    args: (ids) => [
      'proxy',
      'update',
      ids.proxy ?? '',
      '--name',
      'Payments EU',
      '--require-auth',
      'false',
      '--json',
    ],
  },
  {
    name: 'proxy create (bad URL)',
    args: () => ['proxy', 'create', ...TENANT, '--name', 'Bad', '--destination-url', 'http://127.0.0.1/x'],
  },
  { name: 'proxy delete', args: (ids) => ['proxy', 'delete', ids.proxy ?? '', '--yes', '--json'] },
  { name: 'proxy show (deleted)', args: (ids) => ['proxy', 'show', ids.proxy ?? ''] },
  { name: 'member list', args: () => ['member', 'list', ...TENANT, '--json'] },
  { name: 'usage', args: () => ['tenant', 'usage', ...TENANT, '--json'] },
  { name: 'logs', args: () => ['logs', ...TENANT, '--limit', '50', '--json'] },
  { name: 'logs verify', args: () => ['logs', 'verify', '--json'] },
  { name: 'tenant show (unknown)', args: () => ['tenant', 'show', '--tenant', 'Nobody'] },
  { name: 'logs verify by name', args: () => ['logs', 'verify', '--tenant', 'acme', '--json'] },
  { name: 'app regenerate (no --yes)', args: (ids) => ['app', 'regenerate', ids.app ?? ''] },
  { name: 'app regenerate', args: (ids) => ['app', 'regenerate', ids.app ?? '', '--yes', '--json'] },
  {
    name: 'user passwd',
    args: () => ['user', 'passwd', 'owner@example.test', '--password-stdin'],
    stdin: 'a password long enough\n',
  },
  { name: 'completion ids', args: () => ['completion', 'ids', 'application', '--tenant', 'Acme'] },
  { name: 'tenant use', args: () => ['tenant', 'use', 'Acme'] },
  { name: 'app list (tenant in use)', args: () => ['app', 'list', '--json'] },
  { name: 'logs (tenant in use)', args: () => ['logs', '--since', '1h', '--limit', '3', '--json'] },
  {
    name: 'tenant list (unreachable --server)',
    args: () => ['tenant', 'list', '--server', 'http://127.0.0.1:9', '--api-key', 'key_x'],
  },
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
    await step.before?.(ids, home.dir);
    const result: CliResult = await runSvc(step.args(ids, home.dir), {
      env: home.env(),
      stdin: step.stdin ?? '',
    });
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
    const first = await startServer(local.env());
    expect(await first.stop()).toBe(0);
    const inProcess = await runSteps(local);
    const localStatus = await runSvc(['vault', 'status', '--json'], { env: local.env() });

    // Through the server: the same first start, left running while the commands run.
    const served = await newHome();
    const server = await startServer(served.env());
    let throughServer: Outcome[];
    let servedStatus: CliResult;
    let refusals: CliResult[];
    let serverUrl: string;
    try {
      throughServer = await runSteps(served);
      servedStatus = await runSvc(['vault', 'status', '--json'], { env: served.env() });
      // What needs the vault closed says so and names the server to stop, before any key is asked.
      refusals = [
        await runSvc(['logs', 'prune', '--older-than', '1', '--yes'], { env: served.env() }),
        await runSvc(['serve', '--port', '0'], { env: served.env() }),
      ];
      serverUrl = server.url;
      // The commands went through the server: their effects are visible through its API at once.
      const credential = operatorCredentialPath(path.join(served.dir, 'vault.svc'));
      expect(existsSync(credential)).toBe(true);
    } finally {
      expect(await server.stop()).toBe(0);
    }

    expect(throughServer).toEqual(inProcess);

    // `svc vault status` asks the server holding the vault: the same fields, the server as holder.
    expect(localStatus.code).toBe(0);
    expect(servedStatus.code).toBe(0);
    const localFields = JSON.parse(localStatus.stdout) as Record<string, unknown>;
    const servedFields = JSON.parse(servedStatus.stdout) as { lock_holder: { url?: string } | null };
    expect(Object.keys(servedFields)).toEqual(Object.keys(localFields));
    expect(localFields.lock_holder).toBeNull();
    expect(servedFields.lock_holder?.url).toBe(serverUrl);
    // The server holds the database open: it knows its size; this process, without it, does not.
    expect(localFields.headroom).toMatchObject({ database: { bytes: null } });
    expect(servedFields).toMatchObject({ headroom: { database: { bytes: expect.any(Number) } } });
    for (const refused of refusals) {
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain(`needs the vault closed, but process`);
      expect(refused.stderr).toContain(`(serving ${serverUrl}) holds it; stop that server first`);
    }
    // Sanity: the table did real work in both modes, and only the steps meant to fail failed.
    expect(inProcess.filter((o) => o.code !== 0).map((o) => o.name)).toEqual(
      STEPS.filter((step) =>
        / \((missing|unknown|deleted|in use|bad URL|no --reveal|no --yes|unreachable --server)/.test(
          step.name,
        ),
      ).map((step) => step.name),
    );
  }, 240_000);
});
