// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, type Tenant } from '../api/client';
import { SettingsForm } from './settings-form';

const OPENAPI = {
  paths: {
    '/tenants/self': {
      get: {
        responses: {
          200: {
            content: {
              'application/json': {
                schema: {
                  properties: {
                    settings: {
                      properties: {
                        deduplicate_tokens: {
                          enum: ['true', 'false'],
                          description: 'Returns the existing token.',
                          'x-svc-default': 'false',
                        },
                        fingerprint_tokens: {
                          enum: ['true', 'false'],
                          description: 'Fingerprints every token.',
                          'x-svc-default': 'true',
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

const TENANT = {
  id: '0190f3a2-7c4e-7d11-9b2a-5e6f7a8b9c0d',
  name: 'Acme',
  settings: { deduplicate_tokens: 'true', retired_setting: 'x' },
} as unknown as Tenant;

beforeEach(() => {
  vi.stubGlobal('fetch', async (url: string) =>
    url === '/openapi.json' ? new Response(JSON.stringify(OPENAPI)) : new Response(null, { status: 404 }),
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function renderForm() {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  return render(
    <QueryClientProvider client={client}>
      <SettingsForm tenant={TENANT} />
    </QueryClientProvider>,
  );
}

describe('SettingsForm', () => {
  it('offers each setting the server describes as a switch, at its default while not set', async () => {
    renderForm();
    const dedupe = await screen.findByRole('switch', { name: 'Deduplicate tokens' });
    const fingerprint = screen.getByRole('switch', { name: 'Fingerprint tokens' });
    expect((dedupe as HTMLInputElement).checked).toBe(true);
    expect((fingerprint as HTMLInputElement).checked).toBe(true);
    expect(document.getElementById(fingerprint.getAttribute('aria-describedby')!)?.textContent).toContain(
      'Not set: the default (on) applies.',
    );
    expect(screen.getByText(/left out when saving: retired_setting/)).toBeTruthy();
  });

  it('sends only the settings that are set, and shows the server’s message at the switch it names', async () => {
    const put = vi.spyOn(api, 'PUT').mockResolvedValue({
      error: {
        detail: 'The request is not valid.',
        errors: { 'settings.fingerprint_tokens': ['cannot be turned off here'] },
      },
      response: new Response(null, { status: 400 }),
    } as never);
    renderForm();
    fireEvent.click(await screen.findByRole('switch', { name: 'Fingerprint tokens' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(put).toHaveBeenCalled());
    expect(put.mock.calls[0]?.[1]).toMatchObject({
      body: { name: 'Acme', settings: { deduplicate_tokens: 'true', fingerprint_tokens: 'false' } },
    });
    const fingerprint = screen.getByRole('switch', { name: 'Fingerprint tokens' });
    await waitFor(() => expect(fingerprint.getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getByText('cannot be turned off here')).toBeTruthy();
  });
});
