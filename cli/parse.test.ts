import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Runner } from './command-kit.ts';
import { newAppListCommand } from './commands/app/list.ts';
import { newAppRegenerateCommand } from './commands/app/regenerate.ts';
import { newConfigCommand } from './commands/config/config.ts';
import { newInitCommand } from './commands/init/init.ts';
import { newServeCommand } from './commands/serve/serve.ts';
import { newStartCommand } from './commands/start/start.ts';
import { newVaultBackupCommand } from './commands/vault/backup.ts';
import { newVaultRekeyCommand } from './commands/vault/rekey.ts';
import { newVaultRestoreCommand } from './commands/vault/restore.ts';
import { newVaultStatusCommand } from './commands/vault/status.ts';
import type { CliDeps } from './deps.ts';
import { configureTree } from './main.ts';
import { makeTestIo, runSvc } from './test-support/harness.ts';

/**
 * Parsing layer: commander flags → the typed options a command runs with. The runner is replaced
 * by a capture (the GitHub CLI's runF), so nothing touches a vault.
 */
const CWD = '/work/somewhere';

async function parse<O>(factory: (deps: CliDeps, run: Runner<O>) => Command, args: string[]): Promise<O> {
  const io = makeTestIo({ cwd: CWD });
  let captured: O | undefined;
  const command = factory(io.deps, async (options) => {
    captured = options;
  });
  configureTree(command, io.deps);
  await command.parseAsync(args, { from: 'user' });
  if (captured === undefined) throw new Error('the runner was not called');
  return captured;
}

describe('typed options', () => {
  it('vault status: defaults are absent so they do not override env or the config file', async () => {
    expect(await parse(newVaultStatusCommand, [])).toEqual({ config: {}, json: false });
  });

  it('vault status: --json, --home, --config, --path (paths resolved against cwd)', async () => {
    const options = await parse(newVaultStatusCommand, [
      '--json',
      '--home',
      'h',
      '--config',
      'c.json',
      '--path',
      '~/v.svc',
    ]);
    expect(options.json).toBe(true);
    expect(options.config.home).toBe(path.join(CWD, 'h'));
    expect(options.config.config).toBe('c.json');
    expect(options.config.vaultPath).toMatch(/\/v\.svc$/);
    expect(options.config.vaultPath).not.toContain('~');
  });

  it('start: server flags become typed config values', async () => {
    const options = await parse(newStartCommand, [
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
      keyFile: path.join(CWD, 'k.key'),
    });
    expect(options.key).toEqual({ passphrase: false, passphraseStdin: false });
  });

  it('serve and init: key flags', async () => {
    expect((await parse(newServeCommand, ['--passphrase'])).key).toEqual({
      passphrase: true,
      passphraseStdin: false,
    });
    expect((await parse(newInitCommand, ['--passphrase-stdin', '--json'])).key).toEqual({
      passphrase: false,
      passphraseStdin: true,
    });
  });

  it('backup and restore: file argument (absolute) and --force', async () => {
    expect(await parse(newVaultBackupCommand, ['out.bak', '--force'])).toMatchObject({
      file: path.join(CWD, 'out.bak'),
      force: true,
      json: false,
    });
    expect(await parse(newVaultRestoreCommand, ['/abs/in.bak'])).toMatchObject({
      file: '/abs/in.bak',
      force: false,
    });
  });

  it('rekey: the new key is a passphrase or a key file', async () => {
    expect((await parse(newVaultRekeyCommand, ['--new-passphrase'])).newKey).toEqual({ kind: 'passphrase' });
    expect((await parse(newVaultRekeyCommand, ['--new-key-file', 'n.key'])).newKey).toEqual({
      kind: 'key-file',
      path: path.join(CWD, 'n.key'),
    });
  });

  it('app regenerate and list', async () => {
    expect(await parse(newAppRegenerateCommand, ['app-1', '--json'])).toMatchObject({
      applicationId: 'app-1',
      json: true,
    });
    expect((await parse(newAppListCommand, [])).json).toBe(false);
  });

  it('config: accepts every setting flag, to preview its effect', async () => {
    expect((await parse(newConfigCommand, ['--port', '1', '--path', 'v.svc'])).config).toEqual({
      port: 1,
      vaultPath: path.join(CWD, 'v.svc'),
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
  it.each([[['--help']], [['vault', 'backup', '--help']], [['--version']], [[]]])('svc %j', async (args) => {
    const result = await runSvc(args);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.length).toBeGreaterThan(0);
  });
});
