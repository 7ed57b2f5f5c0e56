/**
 * Response compression (koa-compress): brotli or gzip, as the client's Accept-Encoding prefers, for every
 * compressible type (JSON incl. application/problem+json and GraphQL responses, text, HTML, JavaScript) of
 * 1 kB or more. A response that already carries Content-Encoding (the web app's precompressed .br/.gz
 * assets, the share endpoint's gzip) is left as it is. Brotli quality 5: the lowest that beats gzip
 * on a report's analysis (~90 kB of JSON; quality 4 came out slightly larger than gzip's default).
 *
 * Accept-Encoding is parsed here, per RFC 9110 §12.5.3, before anything reads it: koa-compress's negotiator
 * returns no coding at all for `identity;q=0`, `*;q=0` or an out-of-range weight such as `gzip;q=-1`, and
 * koa-compress then threw (a 500 for every compressible response). The header is replaced by the one coding
 * chosen (`br`, `gzip` or `identity`), so koa-compress, koa-send and the share endpoint all see the same
 * choice; when no coding this server makes is acceptable the response goes uncompressed (the RFC lets a
 * server send identity then rather than a 406, and every client can read it).
 */
import { constants } from 'node:zlib';
import type { Context, Middleware, Next } from 'koa';
import compress from 'koa-compress';

export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** The codings this server produces, most preferred first (at equal weights). */
const PRODUCED = ['br', 'gzip'] as const;

/** RFC 9110 §12.4.2 qvalue: 0 to 1 with at most three decimals. Anything else makes the entry void. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** Weights by coding (lower-cased) of an Accept-Encoding value; entries with a malformed weight are ignored. */
export function parseAcceptEncoding(header: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const entry of header.split(',')) {
    const [name, ...params] = entry.split(';').map((part) => part.trim());
    if (!name) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const [key, value] = param.split('=').map((part) => part.trim());
      if (key?.toLowerCase() !== 'q') continue;
      if (value === undefined || !QVALUE.test(value)) valid = false;
      else q = Number(value);
    }
    if (valid) weights.set(name.toLowerCase(), q);
  }
  return weights;
}

/**
 * The coding to answer with for an Accept-Encoding header: the acceptable produced coding of highest weight
 * (brotli first at equal weights), else `identity`.
 */
export function chooseEncoding(header: string): 'br' | 'gzip' | 'identity' {
  const weights = parseAcceptEncoding(header);
  const star = weights.get('*');
  let best: 'br' | 'gzip' | 'identity' = 'identity';
  let bestQ = 0;
  for (const coding of PRODUCED) {
    const q = weights.get(coding) ?? star ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

export function compression(): Middleware {
  const compressor = compress({
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodingPreference: ['br', 'gzip', 'identity'],
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } },
    gzip: {},
    deflate: false,
    zstd: false,
  }) as Middleware;
  return function negotiateThenCompress(ctx: Context, next: Next) {
    // No header: left absent (koa-compress then sends identity, as before).
    const header = ctx.request.headers['accept-encoding'];
    if (header !== undefined) ctx.request.headers['accept-encoding'] = chooseEncoding(header);
    return compressor(ctx, next);
  };
}
