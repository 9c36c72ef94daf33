import { describe, expect, it } from 'vitest';
import { Invalid } from '../../shared/domain/refusals.ts';
import { decodeQueryValue } from '../../shared/domain/scim/query.ts';
import { toHttpError } from '../../shared/http/refusals.ts';

/** What decoding threw, as a directory reads it (through the refusal table): its status, scimType and detail. */
function refusal(decode: () => unknown) {
  try {
    decode();
  } catch (error) {
    expect(error).toBeInstanceOf(Invalid);
    const seen = toHttpError(error);
    return { status: seen.status, scimType: seen.extras.members?.scimType, detail: seen.detail };
  }
  throw new Error('decoded without a refusal');
}

describe('decodeQueryValue', () => {
  it('reads + as a space and %2B as a plus, as a form is read', () => {
    expect(decodeQueryValue('filter=userName+eq+%22a%2Bb%40x.com%22', 'filter')).toBe('userName eq "a+b@x.com"');
    expect(decodeQueryValue('filter=userName%20eq%20%22a+b%40x.com%22', 'filter')).toBe('userName eq "a b@x.com"');
  });

  it('reads quotes API Gateway passes on as the client sent them, unencoded', () => {
    expect(decodeQueryValue('filter=userName+eq+"x"', 'filter')).toBe('userName eq "x"');
  });

  it('keeps a comma, where API Gateway would join a repeated parameter with one', () => {
    expect(decodeQueryValue('filter=userName+eq+%22a%2Cb%22', 'filter')).toBe('userName eq "a,b"');
  });

  it('finds the parameter whatever the case of its name, and nothing when it is absent', () => {
    expect(decodeQueryValue('Filter=userName+eq+%22x%22&startIndex=1', 'filter')).toBe('userName eq "x"');
    expect(decodeQueryValue('startindex=3', 'startIndex')).toBe('3');
    expect(decodeQueryValue('startIndex=1&count=100', 'filter')).toBeUndefined();
    expect(decodeQueryValue('', 'filter')).toBeUndefined();
    expect(decodeQueryValue('filter=', 'filter')).toBe('');
  });

  it('refuses a parameter given twice with the scimType the route names', () => {
    const twice = () => decodeQueryValue('filter=userName+eq+%22a%22&FILTER=externalId+eq+%22b%22', 'filter', 'invalidFilter');
    expect(refusal(twice)).toEqual({
      status: 400,
      scimType: 'invalidFilter',
      detail: 'The filter query parameter is given 2 times; give it once.',
    });
    expect(refusal(() => decodeQueryValue('count=1&count=2', 'count'))).toMatchObject({ status: 400, scimType: 'invalidValue' });
  });
});
