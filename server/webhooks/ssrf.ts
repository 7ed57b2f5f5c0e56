/**
 * Where a webhook may be sent (docs/webhooks.md#security): http or https only (https for live endpoints), no
 * credentials in the URL, and every address the host resolves to outside loopback, private, shared (CGNAT),
 * link-local (incl. the 169.254.169.254 metadata service), multicast, documentation and reserved ranges, and the
 * IPv6 prefixes that embed or translate an IPv4 address (NAT64, 6to4, Teredo, IPv4-compatible) — unless
 * WEBHOOK_ALLOW_PRIVATE=1. The check runs when an endpoint is saved and again at every connection (the
 * `lookup` of the request), so a name re-pointed at an internal address after saving is refused too.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
// IPv6, including every prefix that carries or translates an IPv4 address (a NAT64 gateway or 6to4 relay would
// carry the request to whatever IPv4 address is embedded, 127.0.0.1 or 169.254.169.254 included), and the
// reserved ones. IPv4-mapped addresses (::ffff:0:0/96) are judged by their IPv4 part: BlockList checks them
// against the IPv4 ranges above.
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback and IPv4-compatible (deprecated, RFC 4291)
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT, RFC 7915)
  ['64:ff9b::', 96], // NAT64 well-known prefix (RFC 6052)
  ['64:ff9b:1::', 48], // NAT64 local-use prefix (RFC 8215)
  ['100::', 64], // discard-only (RFC 6666)
  ['2001::', 32], // Teredo (RFC 4380): embeds an IPv4 server and client address
  ['2001:db8::', 32], // documentation (RFC 3849)
  ['2002::', 16], // 6to4 (RFC 3056)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, RFC 3879)
  ['ff00::', 8], // multicast
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/** True for an address a webhook must not reach (IPv4-mapped IPv6 judged by its IPv4 part). */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class UnsafeUrlError extends Error {}

/** Parses and checks an endpoint URL's form; throws UnsafeUrlError saying why. */
export function checkUrlForm(raw: string, mode: 'test' | 'live'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UnsafeUrlError('must use https (or http)');
  if (mode === 'live' && url.protocol !== 'https:')
    throw new UnsafeUrlError('must use https for a live endpoint');
  if (url.username || url.password) throw new UnsafeUrlError('must not carry credentials');
  if (raw.length > 2048) throw new UnsafeUrlError('must be at most 2048 characters');
  return url;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Resolves the URL's host and refuses it when any address is blocked (unless private addresses are allowed). */
export async function checkResolvedHost(url: URL, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = hostOf(url);
  const addresses = isIP(host)
    ? [host]
    : await new Promise<string[]>((resolve, reject) =>
        dnsLookup(host, { all: true }, (error, found) =>
          error
            ? reject(new UnsafeUrlError(`host does not resolve (${error.code ?? 'error'})`))
            : resolve(found.map((a) => a.address)),
        ),
      );
  if (addresses.length === 0 || addresses.some(isBlockedAddress))
    throw new UnsafeUrlError('resolves to a loopback, private, link-local or reserved address');
}

/** A `lookup` for http.request that fails the connection when the name resolves to a blocked address. */
export function guardedLookup(allowPrivate: boolean) {
  return (
    hostname: string,
    options: object,
    callback: (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (!allowPrivate && addresses.some((a) => isBlockedAddress(a.address))) {
        return callback(
          Object.assign(new Error(`${hostname} resolves to a blocked address`), { code: 'EBLOCKED' }),
          [],
        );
      }
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** True when the URL's host is an IP literal in a blocked range (lookup is not called for literals). */
export function isBlockedLiteral(url: URL): boolean {
  const host = hostOf(url);
  return isIP(host) !== 0 && isBlockedAddress(host);
}
