import { describe, expect, it } from 'vitest';
import {
  MAX_JSON_BODY_DEPTH,
  MAX_JSON_BODY_MEMBERS,
  decodeJsonBody,
  jsonTextProblem,
  numberLiteralProblem,
} from './json-text.ts';

describe('numberLiteralProblem', () => {
  it.each([
    '0',
    '-0',
    '1',
    '-1',
    '0.1',
    '1.50',
    '1e2',
    '1E+2',
    '2.5e-7',
    '9007199254740991',
    '1.7976931348623157e308',
    '5e-324',
    '123.456',
  ])('accepts %s (its value holds every digit)', (literal) => {
    expect(numberLiteralProblem(literal)).toBeNull();
  });

  it.each(['123456789012345678901234567890', '9007199254740993', '0.1000000000000000000000001', '1e-400'])(
    'refuses %s (digits would be lost)',
    (literal) => {
      expect(numberLiteralProblem(literal)).toMatch(/more precision/);
    },
  );

  it.each(['1e400', '-1e400'])('refuses %s (not finite)', (literal) => {
    expect(numberLiteralProblem(literal)).toMatch(/not a finite number/);
  });

  it('leaves malformed literals to the parser', () => {
    expect(numberLiteralProblem('01')).toBeNull();
    expect(numberLiteralProblem('1.2.3')).toBeNull();
  });
});

describe('jsonTextProblem', () => {
  it('finds a lossy number anywhere outside strings, by offset', () => {
    expect(jsonTextProblem('{"data":{"n":123456789012345678901234567890}}')).toEqual({
      kind: 'content',
      message: expect.stringMatching(/^The number at offset 13 has more precision/),
    });
    expect(jsonTextProblem('{"data":"123456789012345678901234567890"}')).toBeNull();
    expect(jsonTextProblem('[1e400]')?.message).toMatch(/not a finite number/);
  });

  it('ignores brackets and digits inside strings, escaped quotes included', () => {
    expect(jsonTextProblem('{"a":"[[[{{{ \\" 1e400 \\\\","b":[0.5]}')).toBeNull();
  });

  it('refuses prototype members (__proto__, constructor.prototype), however escaped, and nothing else', () => {
    expect(jsonTextProblem('{"a":{"__proto__":{"x":1}}}')?.message).toBe(
      'The member named __proto__ at offset 6 is not accepted.',
    );
    expect(jsonTextProblem('{"\\u005f_proto__" :1}')?.message).toMatch(/named __proto__ at offset 1 /);
    expect(jsonTextProblem('{"a":"__proto__","__proto_":1,"constructor":2}')).toBeNull();
    expect(jsonTextProblem('["__proto__"]')).toBeNull();
    expect(jsonTextProblem('{"constructor" : {"a":1,"prototype":{}}}')?.message).toBe(
      'The member named constructor.prototype at offset 24 is not accepted.',
    );
    expect(jsonTextProblem('{"\\u0063onstructor":{"\\u0070rototype":1}}')?.message).toMatch(
      /constructor\.prototype/,
    );
    expect(jsonTextProblem('{"constructor":1,"prototype":2,"x":{"prototype":3}}')).toBeNull();
    expect(
      jsonTextProblem('{"constructor":[{"prototype":1}],"a":{"constructor":"c","b":{"prototype":1}}}'),
    ).toBeNull();
    // A malformed escape is left to the parser.
    expect(jsonTextProblem('{"\\q_proto__":1}')).toBeNull();
  });

  it('refuses lone surrogate escapes, accepts pairs', () => {
    expect(jsonTextProblem('["\\ud83d\\ude00"]')).toBeNull();
    expect(jsonTextProblem('["\\ud83d"]')?.message).toMatch(/lone surrogate/);
    expect(jsonTextProblem('["\\ude00"]')?.message).toMatch(/lone surrogate/);
    expect(jsonTextProblem('["\\ud83dx"]')?.message).toMatch(/lone surrogate/);
  });

  it(`refuses nesting deeper than ${MAX_JSON_BODY_DEPTH} levels`, () => {
    const nested = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    expect(jsonTextProblem(nested(MAX_JSON_BODY_DEPTH))).toBeNull();
    expect(jsonTextProblem(nested(MAX_JSON_BODY_DEPTH + 1))?.message).toMatch(/nested deeper/);
    expect(jsonTextProblem(nested(1_000_000))?.message).toMatch(/nested deeper/);
  });

  it(`refuses more than ${MAX_JSON_BODY_MEMBERS} object members in all, before parsing`, () => {
    const object = (n: number, from = 0): string =>
      `{${Array.from({ length: n }, (_, i) => `"k${from + i}":1`).join(',')}}`;
    expect(jsonTextProblem(object(MAX_JSON_BODY_MEMBERS))).toBeNull();
    expect(jsonTextProblem(object(MAX_JSON_BODY_MEMBERS + 1))?.message).toBe(
      `The body's objects may hold at most ${MAX_JSON_BODY_MEMBERS} members in all.`,
    );
    // Counted over every object of the body.
    const half = MAX_JSON_BODY_MEMBERS / 2;
    expect(jsonTextProblem(`[${object(half)},${object(half + 1, half)}]`)?.message).toMatch(/at most/);
    // Colons inside strings and array elements are not members.
    expect(jsonTextProblem(`{"a":"${':'.repeat(MAX_JSON_BODY_MEMBERS + 1)}"}`)).toBeNull();
    expect(jsonTextProblem(`[${Array.from({ length: 100_000 }, () => '1').join(',')}]`)).toBeNull();
  });
});

describe('decodeJsonBody', () => {
  it('decodes UTF-8 and refuses invalid sequences instead of replacing them', () => {
    expect(decodeJsonBody(Buffer.from('{"a":"é😀"}', 'utf8'))).toEqual({ text: '{"a":"é😀"}' });
    expect(decodeJsonBody(Buffer.from([0x22, 0xff, 0x22]))).toEqual({
      kind: 'encoding',
      message: 'The request body is not valid UTF-8.',
    });
    // An encoded surrogate (CESU-8) is not UTF-8 either.
    expect(decodeJsonBody(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]))).toHaveProperty('kind', 'encoding');
  });
});
