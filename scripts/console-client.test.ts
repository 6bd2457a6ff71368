import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { CLIENT_SCHEMA_PATH, generateClientSchema } from './console-client.ts';

it('the API client schema matches the server (run `npm run client:generate` when this fails)', async () => {
  const committed = await readFile(CLIENT_SCHEMA_PATH, 'utf8').catch(() => '');
  const fresh = await generateClientSchema();
  expect(committed === fresh, 'client/schema.d.ts is stale: run `npm run client:generate`').toBe(true);
});
