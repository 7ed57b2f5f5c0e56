/**
 * Response compression (koa-compress): brotli or gzip, as the client's Accept-Encoding prefers, for every
 * compressible type (JSON incl. application/problem+json and GraphQL responses, text, HTML, JavaScript) of
 * 1 kB or more. A response that already carries Content-Encoding (the web app's precompressed .br/.gz
 * assets, the share endpoint's gzip) is left as it is. Brotli quality 5: the lowest that beats gzip
 * on a report's analysis (~90 kB of JSON; quality 4 came out slightly larger than gzip's default).
 */
import { constants } from 'node:zlib';
import type { Middleware } from 'koa';
import compress from 'koa-compress';

export const COMPRESSION_THRESHOLD_BYTES = 1024;

export function compression(): Middleware {
  return compress({
    threshold: COMPRESSION_THRESHOLD_BYTES,
    encodingPreference: ['br', 'gzip', 'identity'],
    br: { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } },
    gzip: {},
    deflate: false,
    zstd: false,
  }) as Middleware;
}
