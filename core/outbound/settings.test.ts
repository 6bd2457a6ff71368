import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { resolveConfig } from '../config/index.ts';
import { refusedAddressClass } from './address-policy.ts';
import { DEFAULT_DESTINATION_TIMEOUT_MS, loadOutboundSettings } from './settings.ts';
import { testPki } from './test-support/https-destination.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-outbound-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('outbound settings through the one configuration precedence', () => {
  it('defaults: nothing allow-listed, no extra CA, 25 s', async () => {
    const { config } = await resolveConfig({ env: { SVC_HOME: dir }, cwd: dir });
    const settings = await loadOutboundSettings(config);
    expect(settings.caPem).toBeNull();
    expect(settings.timeoutMs).toBe(DEFAULT_DESTINATION_TIMEOUT_MS);
    expect(refusedAddressClass(settings.allow, 'localhost', '127.0.0.1')).toBe('loopback');
  });

  it('flags beat the environment, which beats the config file', async () => {
    const ca = path.join(dir, 'ca.pem');
    await writeFile(ca, (await testPki()).caPem);
    await writeFile(
      path.join(dir, 'config.json'),
      JSON.stringify({ proxyAllow: '10.0.0.0/8', proxyTimeoutMs: 1000, proxyCaFile: 'ca.pem' }),
    );
    const { config, sources } = await resolveConfig({
      env: { SVC_HOME: dir, SVC_PROXY_ALLOW: 'localhost, 127.0.0.0/8', SVC_PROXY_TIMEOUT_MS: '2000' },
      flags: { proxyTimeoutMs: 3000 },
      cwd: dir,
    });
    expect(config).toMatchObject({
      proxyAllow: 'localhost,127.0.0.0/8',
      proxyTimeoutMs: 3000,
      proxyCaFile: ca,
    });
    expect(sources).toMatchObject({ proxyAllow: 'env', proxyTimeoutMs: 'flag', proxyCaFile: 'file' });
    const settings = await loadOutboundSettings(config);
    expect(settings.caPem).toContain('BEGIN CERTIFICATE');
    expect(refusedAddressClass(settings.allow, 'localhost', '::1')).toBeNull();
  });

  it.each([
    [{ SVC_PROXY_ALLOW: '10.0.0.0/40' }],
    [{ SVC_PROXY_TIMEOUT_MS: '0' }],
    [{ SVC_PROXY_TIMEOUT_MS: 'soon' }],
  ])('refuses bad values %j', async (env) => {
    const failure = await resolveConfig({ env: { SVC_HOME: dir, ...env }, cwd: dir }).catch(
      (e: unknown) => e,
    );
    expect(isVaultError(failure, 'CONFIG_INVALID')).toBe(true);
  });

  it('refuses a CA file that is missing or holds no certificate', async () => {
    const base = { proxyAllow: '', proxyTimeoutMs: 1000 };
    const missing = await loadOutboundSettings({ ...base, proxyCaFile: path.join(dir, 'none.pem') }).catch(
      (e: unknown) => e,
    );
    expect(isVaultError(missing, 'CONFIG_INVALID')).toBe(true);
    await writeFile(path.join(dir, 'junk.pem'), 'not a certificate');
    const junk = await loadOutboundSettings({ ...base, proxyCaFile: path.join(dir, 'junk.pem') }).catch(
      (e: unknown) => e,
    );
    expect(isVaultError(junk, 'CONFIG_INVALID')).toBe(true);
  });
});
