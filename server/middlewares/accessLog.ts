/**
 * The access log: one JSON line per request at `info`, when the response is done (the status as sent) — request id, method, route
 * template, path, status, duration, response size and the API key's public prefix (`ek_live_ab12`, what the
 * console shows). Never the whole key, the query string, a cookie or a body.
 *
 * Written by hand rather than with pino-http: the fields wanted here (route template, key prefix) are known only
 * to Koa after routing, and pino-http's own request/response serialisers would log headers this log must not.
 */
import type { Context, Next } from 'koa';
import { type DestinationStream, type Logger, pino } from 'pino';
import { onResponseClosed } from '../lib/responseClosed.ts';
import { routeTemplate, sentStatus } from './metrics.ts';

/** How long an access line may wait in memory before it is written. */
export const ACCESS_LOG_FLUSH_MS = 200;
/** Written at once when this much is waiting. */
const ACCESS_LOG_BUFFER_BYTES = 16 * 1024;

/**
 * The access lines of one logger, gathered and written to the logger's own destination in one write every
 * ACCESS_LOG_FLUSH_MS (or 16 kB): a write per request was a system call per request — a third of a 304's CPU.
 * Lines are whole and in order; at most the last 200 ms of access lines are lost if the process is killed
 * (SIGKILL, OOM), none on a normal exit, an uncaught exception or a shutdown (flushed on 'exit'). Application
 * logs (warnings, errors) are not buffered.
 */
class AccessLineBuffer implements DestinationStream {
  readonly #target: DestinationStream;
  #lines: string[] = [];
  #bytes = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(target: DestinationStream) {
    this.#target = target;
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#bytes += line.length;
    if (this.#bytes >= ACCESS_LOG_BUFFER_BYTES) this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => this.flush(), ACCESS_LOG_FLUSH_MS);
      this.#timer.unref();
    }
  }

  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#lines.length === 0) return;
    const text = this.#lines.join('');
    this.#lines = [];
    this.#bytes = 0;
    this.#target.write(text);
  }
}

const buffers = new Set<AccessLineBuffer>();
let flushOnExit = false;

/** Writes every access line still waiting (also done on the process's 'exit'). */
export function flushAccessLogs(): void {
  for (const buffer of buffers) buffer.flush();
}

const KEY_PREFIX = /^(ek_(?:test|live)_[A-Za-z0-9_-]{4})/;

/** The public prefix of an API key as sent; `malformed` for anything that does not look like a key. */
export function keyPrefix(header: string | undefined): string | null {
  const value = header?.trim();
  if (!value) return null;
  return KEY_PREFIX.exec(value)?.[1] ?? 'malformed';
}

export function accessLog(logger: Logger) {
  // A logger of the same level writing to the same destination, through the buffer.
  const stream = (logger as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym]!;
  const buffer = new AccessLineBuffer(stream);
  buffers.add(buffer);
  if (!flushOnExit) {
    flushOnExit = true;
    process.once('exit', flushAccessLogs);
  }
  const log = pino({ level: logger.level }, buffer).child({ log: 'access' });
  const access = async function access(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    // Logged when the response is over, with the status Node actually sent: an error thrown outside the
    // problem mapping (Koa's own 500) or a stream that fails after the headers would otherwise be logged
    // with the status the handler had set.
    onResponseClosed(ctx.res, () => {
      const line: AccessLine = {
        requestId: ctx.response.get('X-Request-Id') || undefined,
        method: ctx.method,
        route: routeTemplate(ctx),
        path: ctx.path,
        status: sentStatus(ctx),
        ms: accessMs(started),
        bytes: ctx.response.length ?? null,
        key: keyPrefix(ctx.get('X-API-Key') || undefined),
      };
      log.info(line, 'request');
    });
    await next();
  };
  // The same line for a response answered without Koa (cachedNotModified.ts), through the same buffer.
  return Object.assign(access, { line: (fields: AccessLine) => log.info(fields, 'request') });
}

/** The fields of an access line, in the order they are written. */
export interface AccessLine {
  requestId: string | undefined;
  method: string;
  route: string;
  path: string;
  status: number;
  ms: number;
  bytes: number | null;
  key: string | null;
}

/** The access log's `ms`: the duration rounded to a tenth of a millisecond. */
export const accessMs = (started: number) => Math.round((performance.now() - started) * 10) / 10;
