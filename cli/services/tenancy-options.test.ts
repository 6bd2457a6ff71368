import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../core/config/index.ts';
import { tenancyOptionsFrom, serverTenancyOptionsFrom } from './tenancy-options.ts';

describe('mail settings: flags > environment > config file > defaults', () => {
  const resolve = async (env: Record<string, string>) =>
    (await resolveConfig({ env: { SVC_HOME: '/h', ...env }, cwd: '/' })).config;

  it('defaults: the outbox in the home, links to 127.0.0.1:<port>', async () => {
    expect(tenancyOptionsFrom(await resolve({}))).toEqual({
      mail: { kind: 'outbox', dir: '/h/outbox', from: 'svc vault <svc@localhost>' },
      acceptBaseUrl: 'http://127.0.0.1:8080/invitations/accept',
    });
  });

  it('SVC_SMTP_URL, SVC_MAIL_FROM, SVC_PUBLIC_URL (trailing slash dropped); empty counts as unset', async () => {
    expect(
      tenancyOptionsFrom(
        await resolve({
          SVC_SMTP_URL: 'smtps://u:p@mail:465',
          SVC_MAIL_FROM: 'a@b.c',
          SVC_PUBLIC_URL: 'https://v.example.com/',
        }),
      ),
    ).toEqual({
      mail: { kind: 'smtp', url: 'smtps://u:p@mail:465', from: 'a@b.c' },
      acceptBaseUrl: 'https://v.example.com/invitations/accept',
    });
    expect(tenancyOptionsFrom(await resolve({ SVC_SMTP_URL: '' })).mail.kind).toBe('outbox');
  });

  it('reads the SMTP server and sender from the config file; the environment wins over it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'svc-mailcfg-'));
    try {
      await writeFile(
        join(home, 'config.json'),
        JSON.stringify({
          smtpUrl: 'smtp://mail.internal:25',
          mailFrom: 'vault@corp.test',
          publicUrl: 'https://vault.corp.test',
        }),
      );
      const fromFile = (await resolveConfig({ env: { SVC_HOME: home }, cwd: '/' })).config;
      expect(tenancyOptionsFrom(fromFile)).toEqual({
        mail: { kind: 'smtp', url: 'smtp://mail.internal:25', from: 'vault@corp.test' },
        acceptBaseUrl: 'https://vault.corp.test/invitations/accept',
      });
      const overridden = (
        await resolveConfig({ env: { SVC_HOME: home, SVC_SMTP_URL: 'smtp://other:2525' }, cwd: '/' })
      ).config;
      expect(tenancyOptionsFrom(overridden).mail).toMatchObject({
        url: 'smtp://other:2525',
        from: 'vault@corp.test',
      });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('the server gets no link base unless a public URL is set (it uses its own URL)', async () => {
    expect(serverTenancyOptionsFrom(await resolve({}))).not.toHaveProperty('acceptBaseUrl');
    expect(
      serverTenancyOptionsFrom(await resolve({ SVC_PUBLIC_URL: 'https://v.example.com' })).acceptBaseUrl,
    ).toBe('https://v.example.com/invitations/accept');
  });

  it('bad URLs name the variable and never echo credentials', async () => {
    await expect(resolve({ SVC_SMTP_URL: 'mail.example.com' })).rejects.toThrow(/^SVC_SMTP_URL: not a URL/);
    await expect(resolve({ SVC_PUBLIC_URL: 'ftp://x' })).rejects.toThrow(/^SVC_PUBLIC_URL: must start/);
    await expect(resolve({ SVC_SMTP_URL: 'https://u:pw@x' })).rejects.not.toThrow(/pw/);
  });
});
