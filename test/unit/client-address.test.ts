import { describe, expect, it } from 'vitest';
import { clientAddress, originVerifyHeader } from '../../shared/http/clientAddress.ts';
import { addressKey } from '../../shared/domain/sources.ts';

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

describe('addressKey', () => {
  it('counts an IPv4 address as itself', () => {
    expect(addressKey('198.51.100.10')).toBe('198.51.100.10');
  });

  it('counts every IPv6 address of one /64 as one subject, however it is written', () => {
    const forms = [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0:0:0:9',
      '2001:db8:1:2:a:b:c:d',
      '2001:db8:1:2::1%eth0',
      '2001:db8:1:2:0:0:1.2.3.4',
    ];
    for (const form of forms) expect(addressKey(form), form).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1')).toBe('fe80:0:0:0::/64');
  });

  it('counts IPv4 written inside IPv6 as that IPv4 address', () => {
    expect(addressKey('::ffff:198.51.100.10')).toBe('198.51.100.10');
    expect(addressKey('::ffff:c633:640a')).toBe('198.51.100.10');
  });

  it('leaves what is not an address as it is', () => {
    expect(addressKey('unknown')).toBe('unknown');
  });
});
