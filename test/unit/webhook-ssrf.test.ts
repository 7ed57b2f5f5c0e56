import { describe, expect, it } from 'vitest';
import { checkUrlForm, guardedLookup, isBlockedAddress } from '../../server/webhooks/ssrf.ts';

describe('webhook SSRF guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '224.0.0.1',
  ])('blocks %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  // IPv6 prefixes that translate or embed an IPv4 address, and reserved ones: each refused, here with an
  // internal IPv4 address embedded where the prefix carries one (a NAT64 gateway would reach 127.0.0.1).
  it.each([
    ['64:ff9b::/96 (NAT64)', '64:ff9b::7f00:1'],
    ['64:ff9b::/96 (NAT64, public IPv4 too)', '64:ff9b::808:808'],
    ['64:ff9b:1::/48 (local NAT64)', '64:ff9b:1:abcd::a9fe:a9fe'],
    ['2002::/16 (6to4)', '2002:7f00:1::1'],
    ['::/96 (IPv4-compatible)', '::127.0.0.1'],
    ['::/96 (IPv4-compatible, public)', '::8.8.8.8'],
    ['::ffff:0:0:0/96 (IPv4-translated)', '::ffff:0:a9fe:a9fe'],
    ['fec0::/10 (site-local)', 'fec0::1'],
    ['100::/64 (discard-only)', '100::1'],
    ['2001:db8::/32 (documentation)', '2001:db8::1'],
    ['2001::/32 (Teredo)', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  ])('blocks %s: %s', (_prefix, address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
    '2606:2800:220:1:248:1893:25c8:1946',
    '::ffff:8.8.8.8',
  ])('allows %s', (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it('accepts http(s) only, https only for live, and no credentials', () => {
    expect(() => checkUrlForm('gopher://example.com', 'test')).toThrow(/https/);
    expect(() => checkUrlForm('http://example.com/hook', 'live')).toThrow(/live/);
    expect(() => checkUrlForm('https://a:b@example.com/', 'test')).toThrow(/credentials/);
    expect(checkUrlForm('https://example.com/hook', 'live').hostname).toBe('example.com');
    expect(checkUrlForm('http://example.com/hook', 'test').protocol).toBe('http:');
  });
});

describe('the lookup used at every connection', () => {
  it('fails a name that resolves to a blocked address, unless private addresses are allowed', async () => {
    const resolve = (allowPrivate: boolean) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((done) =>
        guardedLookup(allowPrivate)('localhost', {}, (error, address) => done({ error, address })),
      );
    const blocked = await resolve(false);
    expect(blocked.error?.code).toBe('EBLOCKED');
    const allowed = await resolve(true);
    expect(allowed.error).toBeNull();
    expect(isBlockedAddress(String(allowed.address))).toBe(true);
  });
});
