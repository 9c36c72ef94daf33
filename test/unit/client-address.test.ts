import { describe, expect, it } from 'vitest';
import { clientAddress, originVerifyHeader } from '../../shared/http/clientAddress.ts';

const SECRET = 'a'.repeat(48);
const EDGE = '130.176.1.1';

describe('clientAddress', () => {
  it('trusts CloudFront-Viewer-Address only with the origin proof', () => {
    const viewer = { 'cloudfront-viewer-address': '198.51.100.10:46532' };
    expect(clientAddress({ ...viewer, [originVerifyHeader]: SECRET }, EDGE, SECRET)).toBe('198.51.100.10');
    // Direct calls to execute-api: a forged viewer header without (or with a wrong) proof.
    expect(clientAddress(viewer, EDGE, SECRET)).toBe(EDGE);
    expect(clientAddress({ ...viewer, [originVerifyHeader]: `${SECRET}x` }, EDGE, SECRET)).toBe(EDGE);
    expect(clientAddress({ ...viewer, [originVerifyHeader]: '' }, EDGE, SECRET)).toBe(EDGE);
    // No proof configured (local mode): the socket address, whatever the headers say.
    expect(clientAddress({ ...viewer, [originVerifyHeader]: SECRET }, EDGE, undefined)).toBe(EDGE);
  });

  it('reads IPv6 viewer addresses, with or without brackets', () => {
    const proof = { [originVerifyHeader]: SECRET };
    expect(clientAddress({ ...proof, 'cloudfront-viewer-address': '2001:db8::1:443' }, EDGE, SECRET)).toBe('2001:db8::1');
    expect(clientAddress({ ...proof, 'cloudfront-viewer-address': '[2001:db8::1]:443' }, EDGE, SECRET)).toBe('2001:db8::1');
  });

  it.each(['', 'nonsense', '198.51.100.10', '198.51.100.10:', ':443', 'example.com:443', '999.1.1.1:80', '198.51.100.10:port'])(
    'falls back to the source address on a malformed viewer header %j',
    (value) => {
      expect(clientAddress({ [originVerifyHeader]: SECRET, 'cloudfront-viewer-address': value }, EDGE, SECRET)).toBe(EDGE);
    },
  );
});
