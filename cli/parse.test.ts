import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newAppCreateCommand } from './commands/app/create.ts';
import { newAppDeleteCommand } from './commands/app/delete.ts';
import { newAppListCommand } from './commands/app/list.ts';
import { newAppRegenerateCommand } from './commands/app/regenerate.ts';
import { newAppShowCommand } from './commands/app/show.ts';
import { newAppUpdateCommand } from './commands/app/update.ts';
import { newConfigCommand } from './commands/config/config.ts';
import { newInitCommand } from './commands/init/init.ts';
import { newLogsCommand } from './commands/logs/logs.ts';
import { newLogsVerifyCommand } from './commands/logs/verify.ts';
import { newServeCommand } from './commands/serve/serve.ts';
import { newStartCommand } from './commands/start/start.ts';
import { newTenantCreateCommand } from './commands/tenant/create.ts';
import { newTenantListCommand } from './commands/tenant/list.ts';
import { newTenantShowCommand } from './commands/tenant/show.ts';
import { newTenantUsageCommand } from './commands/tenant/usage.ts';
import { newUserPasswdCommand } from './commands/user/passwd.ts';
import { newVaultBackupCommand } from './commands/vault/backup.ts';
import { newVaultRekeyCommand } from './commands/vault/rekey.ts';
import { newVaultRestoreCommand } from './commands/vault/restore.ts';
import { newVaultStatusCommand } from './commands/vault/status.ts';
import { runSvc } from './test-support/harness.ts';
import { PARSE_CWD, parseOptions } from './test-support/parse.ts';

/**
 * Parsing layer: commander flags → the typed options a command runs with. The runner is replaced
 * by a capture (the GitHub CLI's runF), so nothing touches a vault.
 */
describe('typed options', () => {
  it('vault status: defaults are absent so they do not override env or the config file', async () => {
    expect(await parseOptions(newVaultStatusCommand, [])).toEqual({ config: {}, json: false });
  });

  it('vault status: --json, --home, --config, --path (paths resolved against cwd)', async () => {
    const options = await parseOptions(newVaultStatusCommand, [
      '--json',
      '--home',
      'h',
      '--config',
      'c.json',
      '--path',
      '~/v.svc',
    ]);
    expect(options.json).toBe(true);
    expect(options.config.home).toBe(path.join(PARSE_CWD, 'h'));
    expect(options.config.config).toBe('c.json');
    expect(options.config.vaultPath).toMatch(/\/v\.svc$/);
    expect(options.config.vaultPath).not.toContain('~');
  });

  it('start: server flags become typed config values', async () => {
    const options = await parseOptions(newStartCommand, [
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--allow-remote',
      '--body-limit',
      '2048',
      '--snapshot-threshold',
      '4096',
      '--log-level',
      'debug',
      '--key-file',
      'k.key',
    ]);
    expect(options.config).toEqual({
      host: '0.0.0.0',
      port: 0,
      allowRemote: true,
      bodyLimit: 2048,
      snapshotThresholdBytes: 4096,
      logLevel: 'debug',
      keyFile: path.join(PARSE_CWD, 'k.key'),
    });
    expect(options.key).toEqual({ passphrase: false, passphraseStdin: false });
  });

  it('serve and init: key flags', async () => {
    expect((await parseOptions(newServeCommand, ['--passphrase'])).key).toEqual({
      passphrase: true,
      passphraseStdin: false,
    });
    expect((await parseOptions(newInitCommand, ['--passphrase-stdin', '--json'])).key).toEqual({
      passphrase: false,
      passphraseStdin: true,
    });
  });

  it('backup and restore: file argument (absolute) and --force', async () => {
    expect(await parseOptions(newVaultBackupCommand, ['out.bak', '--force'])).toMatchObject({
      file: path.join(PARSE_CWD, 'out.bak'),
      force: true,
      json: false,
    });
    expect(await parseOptions(newVaultRestoreCommand, ['/abs/in.bak'])).toMatchObject({
      file: '/abs/in.bak',
      force: false,
    });
  });

  it('rekey: the new key is a passphrase or a key file', async () => {
    expect((await parseOptions(newVaultRekeyCommand, ['--new-passphrase'])).newKey).toEqual({
      kind: 'passphrase',
    });
    expect((await parseOptions(newVaultRekeyCommand, ['--new-key-file', 'n.key'])).newKey).toEqual({
      kind: 'key-file',
      path: path.join(PARSE_CWD, 'n.key'),
    });
  });

  it('tenant create, list, show', async () => {
    expect(await parseOptions(newTenantCreateCommand, [])).toMatchObject({
      name: undefined,
      ownerEmail: undefined,
      ownerPasswordStdin: false,
      json: false,
    });
    expect(
      await parseOptions(newTenantCreateCommand, [
        '--name',
        'Acme',
        '--owner-email',
        'o@example.com',
        '--owner-password-stdin',
        '--json',
      ]),
    ).toMatchObject({ name: 'Acme', ownerEmail: 'o@example.com', ownerPasswordStdin: true, json: true });
    expect((await parseOptions(newTenantListCommand, ['--json'])).json).toBe(true);
    expect(await parseOptions(newTenantShowCommand, [])).toMatchObject({ tenant: undefined });
    expect(await parseOptions(newTenantShowCommand, ['--tenant', 't-1'])).toMatchObject({ tenant: 't-1' });
  });

  it('tenant usage: --tenant, --json', async () => {
    expect(await parseOptions(newTenantUsageCommand, [])).toEqual({
      config: {},
      json: false,
      key: expect.any(Object),
      tenant: undefined,
    });
    expect(await parseOptions(newTenantUsageCommand, ['--tenant', 't1', '--json'])).toMatchObject({
      tenant: 't1',
      json: true,
    });
  });

  it('app create: type, repeatable and comma-separated permissions, rules as JSON or a file', async () => {
    expect(await parseOptions(newAppCreateCommand, [])).toMatchObject({
      name: undefined,
      type: undefined,
      tenant: undefined,
      permissions: undefined,
      allPermissions: false,
      rules: undefined,
    });
    expect((await parseOptions(newAppCreateCommand, ['--all-permissions'])).allPermissions).toBe(true);
    const rule = { priority: 1, container: '/pci/', permissions: ['token:read'], transform: 'mask' };
    expect(
      await parseOptions(newAppCreateCommand, [
        '--name',
        'Backend',
        '--type',
        'private',
        '--permission',
        'token:read, token:search',
        '--permission',
        'token:use',
        '--rule',
        JSON.stringify(rule),
        '--rule',
        JSON.stringify({ ...rule, priority: 2 }),
        '--tenant',
        't-1',
      ]),
    ).toMatchObject({
      name: 'Backend',
      type: 'private',
      tenant: 't-1',
      permissions: ['token:read', 'token:search', 'token:use'],
      rules: { kind: 'inline', rules: [rule, { ...rule, priority: 2 }] },
    });
    expect((await parseOptions(newAppCreateCommand, ['--rules-file', 'r.json'])).rules).toEqual({
      kind: 'file',
      path: path.join(PARSE_CWD, 'r.json'),
    });
  });

  it('app list, show, update, delete, regenerate', async () => {
    expect(await parseOptions(newAppListCommand, [])).toMatchObject({
      json: false,
      type: undefined,
      tenant: undefined,
    });
    expect(await parseOptions(newAppListCommand, ['--type', 'management', '--tenant', 't'])).toMatchObject({
      type: 'management',
      tenant: 't',
    });
    expect(await parseOptions(newAppShowCommand, ['app-1', '--json'])).toMatchObject({
      applicationId: 'app-1',
      json: true,
      tenant: undefined,
    });
    expect(
      await parseOptions(newAppUpdateCommand, ['app-1', '--name', 'N', '--permission', 'token:read']),
    ).toMatchObject({
      applicationId: 'app-1',
      name: 'N',
      permissions: ['token:read'],
      rules: undefined,
    });
    expect(await parseOptions(newAppDeleteCommand, ['app-1'], { isTTY: true })).toMatchObject({
      applicationId: 'app-1',
      yes: false,
    });
    await expect(parseOptions(newAppDeleteCommand, ['app-1'])).rejects.toThrow(
      'deleting an application needs confirmation; pass --yes',
    );
    expect(await parseOptions(newAppDeleteCommand, ['app-1', '-y'])).toMatchObject({ yes: true });
    expect(await parseOptions(newAppDeleteCommand, ['app-1', '--yes'])).toMatchObject({ yes: true });
    expect(
      await parseOptions(newAppRegenerateCommand, ['app-1', '--json', '--tenant', 't'], { isTTY: true }),
    ).toMatchObject({
      applicationId: 'app-1',
      json: true,
      tenant: 't',
      yes: false,
    });
    expect(await parseOptions(newAppRegenerateCommand, ['app-1', '--yes'])).toMatchObject({ yes: true });
    await expect(parseOptions(newAppRegenerateCommand, ['app-1'])).rejects.toThrow(
      "replacing an application's API key needs confirmation; pass --yes",
    );
  });

  it('user passwd', async () => {
    expect(await parseOptions(newUserPasswdCommand, ['a@example.com'])).toMatchObject({
      email: 'a@example.com',
      passwordStdin: false,
    });
    expect(
      (await parseOptions(newUserPasswdCommand, ['a@example.com', '--password-stdin'])).passwordStdin,
    ).toBe(true);
  });

  it('logs: filters, dates normalised to UTC, limit, follow', async () => {
    expect(await parseOptions(newLogsCommand, [])).toMatchObject({
      tenant: undefined,
      entityType: undefined,
      entityId: undefined,
      since: undefined,
      until: undefined,
      limit: 50,
      follow: false,
      json: false,
    });
    expect(
      await parseOptions(newLogsCommand, [
        '--tenant',
        't',
        '--entity-type',
        'application',
        '--entity-id',
        'a-1',
        '--actor',
        'u-1',
        '--actor-type',
        'User',
        '--operation',
        'read',
        '--since',
        '2025-01-31',
        '--until',
        '2025-02-01T12:00:00+01:00',
        '--limit',
        '10',
        '-f',
      ]),
    ).toMatchObject({
      tenant: 't',
      entityType: 'application',
      entityId: 'a-1',
      actorId: 'u-1',
      actorType: 'user',
      operation: 'read',
      since: '2025-01-31T00:00:00.000Z',
      until: '2025-02-01T11:00:00.000Z',
      limit: 10,
      follow: true,
    });
    expect(await parseOptions(newLogsVerifyCommand, ['--tenant', 't', '--json'])).toMatchObject({
      tenant: 't',
      json: true,
    });
  });

  it('config: accepts every setting flag, to preview its effect', async () => {
    expect((await parseOptions(newConfigCommand, ['--port', '1', '--path', 'v.svc'])).config).toEqual({
      port: 1,
      vaultPath: path.join(PARSE_CWD, 'v.svc'),
    });
  });
});

describe('usage errors exit 2 with one line', () => {
  it.each([
    [['nope'], /unknown command 'nope'/],
    [['vault', 'status', '--bogus'], /unknown option '--bogus'/],
    [['start', '--port', '70000'], /--port.*must be between 0 and 65535/i],
    [['start', '--port', 'eighty'], /expected a whole number/i],
    [['serve', '--log-level', 'loud'], /expected one of/i],
    [['vault', 'backup'], /missing required argument 'file'/],
    [['vault', 'status', 'extra'], /too many arguments/],
    [['init', '--passphrase', '--key-file', 'k'], /cannot be used with/],
    [['vault', 'rekey'], /--new-passphrase or --new-key-file/],
    [['vault', 'rekey', '--new-passphrase', '--new-key-file', 'k'], /cannot be used with/],
    [
      ['app', 'create', '--type', 'robot'],
      /argument 'robot' is invalid. Allowed choices are private, public, management/,
    ],
    [['app', 'create', '--rule', 'not json'], /Not valid JSON/],
    [['app', 'create', '--rule', '{}', '--rules-file', 'r.json'], /cannot be used with/],
    [['app', 'create', '--permission', 'log:read', '--all-permissions'], /cannot be used with/],
    [['app', 'list', '--type', 'desktop'], /Allowed choices/],
    [
      ['logs', '--entity-type', 'widget'],
      /argument 'widget' is invalid. Allowed choices are application, bank, card, .*token/,
    ],
    [['app', 'show'], /missing required argument 'application-id'/],
    [['app', 'delete', 'a', 'b'], /too many arguments/],
    [['tenant', 'create', '--owner-password-stdin', '--passphrase-stdin'], /cannot be used with/],
    [['user', 'passwd'], /missing required argument 'email'/],
    [['user', 'passwd', 'a@b.c', '--password-stdin', '--passphrase-stdin'], /cannot be used with/],
    [['logs', '--since', 'last tuesday'], /ISO 8601/],
    [['logs', '--limit', '-3'], /between 1 and 10000/],
    [['logs', '--limit', '10001'], /between 1 and 10000/],
    [['logs', 'verify', '--follow'], /unknown option '--follow'/],
    [['logs', 'extra'], /too many arguments|unknown command/],
  ])('svc %j', async (args, message) => {
    const result = await runSvc(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^svc: /);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a group without a verb shows its help on stderr and exits 2', async () => {
    const result = await runSvc(['vault']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: svc vault');
  });

  it('a config error in the environment is a usage error too', async () => {
    const result = await runSvc(['config'], { env: { SVC_PORT: '99999' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('svc: SVC_PORT: must be between 0 and 65535, got 99999\n');
  });
});

describe('help and version exit 0', () => {
  it.each([
    [['--help']],
    [['vault', 'backup', '--help']],
    [['--version']],
    [[]],
    [['tenant', 'create', '--help']],
    [['app', 'create', '--help']],
    [['logs', '--help']],
    [['logs', 'verify', '--help']],
  ])('svc %j', async (args) => {
    const result = await runSvc(args);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.length).toBeGreaterThan(0);
  });
});

describe('help texts', () => {
  it('logs explains the running server, the time forms and the exit codes of verify', async () => {
    const logs = await runSvc(['logs', '--help']);
    expect(logs.stdout).toMatch(/holds the vault, the command reads the log\s+through it/);
    expect(logs.stdout).toMatch(/24h, 7d, today, yesterday/);
    const verify = await runSvc(['logs', 'verify', '--help']);
    expect(verify.stdout).toMatch(/exit 0 .*1 naming/s);
  });

  it('app create lists the permissions each type may hold', async () => {
    const help = await runSvc(['app', 'create', '--help']);
    expect(help.stdout).toContain('public: token:create, token:update');
  });
});

describe('enum flags take any letter case', () => {
  it('--type PUBLIC, --entity-type Application, --type Card', async () => {
    expect(await parseOptions(newAppCreateCommand, ['--type', 'PUBLIC'])).toMatchObject({ type: 'public' });
    expect(await parseOptions(newAppListCommand, ['--type', 'Management'])).toMatchObject({
      type: 'management',
    });
    expect(await parseOptions(newLogsCommand, ['--entity-type', 'Application'])).toMatchObject({
      entityType: 'application',
    });
    expect(await parseOptions(newLogsCommand, ['--entity-type', 'tenantinvitation'])).toMatchObject({
      entityType: 'tenantInvitation',
    });
  });
});
