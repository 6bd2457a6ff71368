import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { checkFormulaInput, isIconDataUrl } from './formula-input.ts';

const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAUAAAAFCAYAAACNbyblAAAAHElEQVQI12P4//8/w38GIAXDIBKE0DHxgljNBAAO9TXL0Y4OHwAAAABJRU5ErkJggg==';

describe('isIconDataUrl', () => {
  it.each([
    `data:image/png;base64,${PIXEL}`,
    // A space after the comma, as some clients send it.
    `data:image/png;base64, ${PIXEL}`,
    // Line breaks inside the base64, as MIME encoders wrap it.
    `data:image/jpeg;base64,${PIXEL.slice(0, 40)}\r\n  ${PIXEL.slice(40)}`,
    'data:image/jpg;base64,AAAA',
  ])('accepts %j', (value) => {
    expect(isIconDataUrl(value)).toBe(true);
  });

  it.each([
    'data:image/gif;base64,AAAA',
    'data:image/png,AAAA',
    'data:image/png;base64,',
    'data:image/png;base64,   ',
    'data:image/png;base64,AA*A',
    'data:image/png;base64,AAAA===',
    ` data:image/png;base64,${PIXEL}`,
    'https://example.com/icon.png',
  ])('refuses %j', (value) => {
    expect(isIconDataUrl(value)).toBe(false);
  });
});

describe('checkFormulaInput', () => {
  const body = { name: 'f', type: 'private', code: 'module.exports = async () => ({});' };

  it('keeps an icon exactly as sent, whitespace included', () => {
    const icon = `data:image/png;base64, ${PIXEL}`;
    expect(checkFormulaInput({ ...body, icon }).icon).toBe(icon);
  });

  it('names the icon field when it is not a png/jpg/jpeg data URL', () => {
    let caught: unknown;
    try {
      checkFormulaInput({ ...body, icon: 'data:image/svg+xml;base64,AAAA' });
    } catch (error) {
      caught = error;
    }
    expect(isVaultError(caught, 'VALIDATION_FAILED') && Object.keys(caught.errors ?? {})).toEqual(['icon']);
  });
});
