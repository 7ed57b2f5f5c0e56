/**
 * Reads a JSON request body with the checks a client should hear about precisely: 415 for another media
 * type, 413 over the size limit (before reading it when Content-Length says so), 400 for malformed JSON.
 */
import { bodyParser } from '@koa/bodyparser';
import type { Context, Next } from 'koa';
import { MalformedJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors.ts';

export function jsonBody(limitBytes: number) {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: limitBytes,
    jsonStrict: false,
    encoding: 'utf-8',
    onError: (error: Error & { status?: number; type?: string }) => {
      if (error.status === 413 || error.type === 'entity.too.large')
        throw new PayloadTooLargeError(limitBytes);
      throw new MalformedJsonError(`The request body is not valid JSON: ${error.message}`);
    },
  });
  return async function readJson(ctx: Context, next: Next): Promise<void> {
    if (!ctx.is('application/json'))
      throw new UnsupportedMediaTypeError(ctx.get('Content-Type') || undefined);
    const length = Number(ctx.get('Content-Length'));
    if (Number.isFinite(length) && length > limitBytes) throw new PayloadTooLargeError(limitBytes);
    await parse(ctx, next);
  };
}
