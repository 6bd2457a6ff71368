import { describe, expect, it } from 'vitest';
import { dataBlock, dataText } from './data-view';

describe('token data as the Tokens screen prints it', () => {
  it('prints text as it is and objects as JSON', () => {
    expect(dataText('XXXXXXXXXXXX4242')).toBe('XXXXXXXXXXXX4242');
    expect(dataText({ number: 'XXXX4242', expiration_month: 12 })).toBe(
      '{"number":"XXXX4242","expiration_month":12}',
    );
    expect(dataBlock({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(dataText(42)).toBe('42');
  });

  it('says there is nothing when the answer holds no data', () => {
    expect(dataText(undefined)).toBeNull();
    expect(dataBlock(null)).toBeNull();
  });
});
