import { describe, expect, it } from 'vitest';
import { proxyFloor } from './proxy-floor.ts';

describe('proxyFloor', () => {
  it("replaces a token's expression by its data, takes the key out, and refuses a wrong key", async () => {
    const floor = await proxyFloor();
    try {
      const headers: Record<string, string> = {
        'svc-api-key': floor.ready.key,
        'content-type': 'application/json',
      };
      const body = Buffer.from(
        JSON.stringify({ amount: 1000, card: { number: `{{ ${floor.ready.tokenId} }}` } }),
      );
      const prepared = await floor.prepare(headers, body);
      expect(JSON.parse(prepared.body!.toString('utf8'))).toEqual({
        amount: 1000,
        card: { number: '4242424242424242' },
      });
      expect(headers).toEqual({ 'content-type': 'application/json' });
      prepared.done();
      await expect(floor.prepare({ 'svc-api-key': 'wrong' }, body)).rejects.toThrow('wrong key');
      const unknown = Buffer.from(JSON.stringify({ card: '{{ no-such-token }}' }));
      await expect(floor.prepare({ 'svc-api-key': floor.ready.key }, unknown)).rejects.toThrow(
        'unknown token',
      );
    } finally {
      await floor.close();
    }
  });
});
