import { describe, expect, it } from 'vitest';
import { settingLabel, settingSpecs } from './schema';

const document = (settings: unknown) => ({
  paths: {
    '/tenants/self': {
      get: {
        responses: {
          200: { content: { 'application/json': { schema: { properties: { settings } } } } },
        },
      },
    },
  },
});

describe('settingSpecs', () => {
  it('reads each setting with what it does, its kind and its default', () => {
    const specs = settingSpecs(
      document({
        properties: {
          deduplicate_tokens: {
            type: 'string',
            enum: ['true', 'false'],
            description: 'Returns the existing token.',
            'x-svc-default': 'false',
          },
          region: { type: 'string', enum: ['eu', 'us'] },
          note: { type: 'string' },
        },
        additionalProperties: { type: 'string' },
      }),
    );
    expect(specs).toEqual([
      {
        name: 'deduplicate_tokens',
        description: 'Returns the existing token.',
        kind: 'switch',
        values: ['true', 'false'],
        defaultValue: 'false',
      },
      { name: 'region', description: '', kind: 'select', values: ['eu', 'us'], defaultValue: null },
      { name: 'note', description: '', kind: 'text', values: [], defaultValue: null },
    ]);
  });

  it('is empty for a document that describes no settings', () => {
    expect(settingSpecs({})).toEqual([]);
    expect(settingSpecs(null)).toEqual([]);
    expect(settingSpecs(document({ additionalProperties: { type: 'string' } }))).toEqual([]);
  });
});

describe('settingLabel', () => {
  it('reads a setting name as words', () => {
    expect(settingLabel('disable_ephemeral_proxy')).toBe('Disable ephemeral proxy');
  });
});
