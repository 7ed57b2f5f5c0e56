/**
 * Reads a JSON request body with the checks a client should hear about precisely: 415 for another media
 * type or an unknown Content-Encoding, 413 over the size limit — before reading when Content-Length says
 * so, and otherwise as soon as the bytes received, counted AFTER decompression, pass it (a 20 kB gzip body
 * cannot inflate to 8 MB) — 408 when the body does not arrive within the body timeout, 400 for malformed
 * JSON. A request refused before its body was read closes the connection (see server/middlewares/).
 */
import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { Context, Next } from 'koa';
import { textProblem } from '../../schema/text.ts';
import {
  MalformedJsonError,
  PayloadTooLargeError,
  RequestTimeoutError,
  UnsupportedContentEncodingError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../errors.ts';

/** Deepest nesting of arrays and objects a body may have (a submission needs 5 levels). */
export const MAX_BODY_DEPTH = 32;

/**
 * The one clean-text rule (schema/text.ts) over every string of a REST body, keys included, and a bound on its
 * nesting — before any handler, fingerprint or validator walks it (a body nested thousands deep overflowed the
 * idempotency fingerprint's recursion: a 500). Iterative, so the walk itself cannot overflow. No text field of
 * this API is multi-line. → 422 naming each field.
 */
export function checkBodyText(body: unknown, text?: string): void {
  // The body's own JSON text, when given, shows whether any of its strings can break the rule: only then is every
  // string walked (with its path, for the error); otherwise only the nesting is.
  if (text !== undefined && !mayHoldUncleanText(text)) {
    if (!nestsTooDeep(body, 0)) return;
  }
  const problems: Array<{ path: string; message: string }> = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) problems.push({ path, message: problem });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_BODY_DEPTH) {
      throw new ValidationError(
        [{ path, message: `nests deeper than ${MAX_BODY_DEPTH} levels of arrays and objects` }],
        `The request body nests deeper than ${MAX_BODY_DEPTH} levels.`,
      );
    }
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, i) => [`${path}[${i}]`, item])
      : Object.entries(value).map(([key, item]) => {
          const keyPath = path ? `${path}.${key}` : key;
          const problem = textProblem(key);
          if (problem) problems.push({ path: keyPath, message: `(the field name) ${problem}` });
          return [keyPath, item];
        });
    for (let i = entries.length - 1; i >= 0; i--) {
      const [itemPath, item] = entries[i]!;
      stack.push({ value: item, path: itemPath, depth: depth + 1 });
    }
  }
  // Every problem is counted; the error lists the first 100 and says how many more (errors_omitted).
  if (problems.length > 0) throw new ValidationError(problems);
}

/**
 * Whether a string parsed from this JSON text can fail the clean-text rule. JSON.parse refuses raw C0 controls
 * inside a string, so a control character or a lone surrogate in a parsed string comes from an escape (\b \f \n
 * \r \t, \u0000–\u001F, \u007F, \uD800–\uDFFF: any surrogate escape counts, a valid pair included), from a raw
 * DEL, or from a lone surrogate already in the text. False: no string of the body, keys included, can hold one.
 * True only sends the body through the full walk. (Three scans of the text: a character-class regex over a
 * two-byte string of 50 kB cost five times as much.)
 */
const UNCLEAN_ESCAPE = /\\(?:[bfnrt]|u00[01][0-9a-fA-F]|u007[fF]|u[dD][89a-fA-F])/;
export function mayHoldUncleanText(text: string): boolean {
  return (
    text.includes('\u007f') || !text.isWellFormed() || (text.includes('\\') && UNCLEAN_ESCAPE.test(text))
  );
}

/** Whether an array or object of `value` sits MAX_BODY_DEPTH or more levels deep (the walk stops there). */
function nestsTooDeep(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth >= MAX_BODY_DEPTH) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestsTooDeep(item, depth + 1)) return true;
    return false;
  }
  for (const key in value)
    if (Object.hasOwn(value, key) && nestsTooDeep((value as Record<string, unknown>)[key], depth + 1))
      return true;
  return false;
}

/** How long a client may take to send a body by default (BODY_TIMEOUT_SECONDS). */
export const BODY_TIMEOUT_MS = 30_000;

/** The decompressors for the Content-Encodings accepted (Node 24's zlib does zstd too). */
const DECODERS: Record<string, (() => Transform) | null> = {
  identity: null,
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
  zstd: () => zlib.createZstdDecompress(),
};

/** The encodings of Content-Encoding, in the order they were applied; throws 415 on an unknown one. */
function decoders(header: string): Array<() => Transform> {
  const names = header
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const chain: Array<() => Transform> = [];
  for (const name of names) {
    if (!(name in DECODERS)) throw new UnsupportedContentEncodingError(name);
    const make = DECODERS[name];
    if (make) chain.push(make);
  }
  return chain.reverse();
}

/**
 * The body as text, decompressed, at most `limitBytes` of it, within `timeoutMs`. On a refusal the request
 * stream is left paused, not destroyed (that would close the socket before the answer is written).
 */
function readText(req: IncomingMessage, limitBytes: number, timeoutMs: number): Promise<string> {
  const chain = decoders(req.headers['content-encoding'] ?? '');
  const streams: Readable[] = [req];
  for (const make of chain) streams.push(streams.at(-1)!.pipe(make()));
  const stream = streams.at(-1)!;
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error: Error | null) => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      for (const s of streams) s.off('error', onError);
      if (!error) return resolve(Buffer.concat(chunks, size).toString('utf8'));
      req.unpipe();
      req.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) finish(new PayloadTooLargeError(limitBytes));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    const onError = () =>
      finish(
        new MalformedJsonError(
          chain.length > 0
            ? `The request body could not be decompressed (${req.headers['content-encoding']}).`
            : 'The request body could not be read.',
        ),
      );
    const timer = setTimeout(() => finish(new RequestTimeoutError(timeoutMs)), timeoutMs);
    stream.on('data', onData);
    stream.on('end', onEnd);
    for (const s of streams) s.on('error', onError);
  });
}

export function jsonBody(limitBytes: number, timeoutMs = BODY_TIMEOUT_MS) {
  return async function readJson(ctx: Context, next: Next): Promise<void> {
    if (!ctx.is('application/json'))
      throw new UnsupportedMediaTypeError(ctx.get('Content-Type') || undefined);
    decoders(ctx.get('Content-Encoding'));
    const length = Number(ctx.get('Content-Length'));
    if (Number.isFinite(length) && length > limitBytes) throw new PayloadTooLargeError(limitBytes);
    const text = await readText(ctx.req, limitBytes, timeoutMs);
    try {
      ctx.request.body = text.trim() === '' ? {} : JSON.parse(text);
    } catch (error) {
      throw new MalformedJsonError(`The request body is not valid JSON: ${(error as Error).message}`);
    }
    checkBodyText(ctx.request.body, text);
    await next();
  };
}

declare module 'koa' {
  interface Request {
    /** The parsed JSON body, set by jsonBody(). */
    body?: unknown;
  }
}
