/**
 * Parameterised SQL for the few hot writes that carry large JSON (the submission, the statements, the
 * analysis results). MikroORM's `execute`/`insert` inline every parameter into the SQL text, escaping it —
 * for 100+ kB of JSON per report that was a third of the main thread's time. Here parameters travel
 * separately (bind parameters on the wire), on the EntityManager's open transaction when there is one.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';

export async function runSql<R = Record<string, unknown>>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
): Promise<R[]> {
  const executor =
    (em.getTransactionContext() as Transaction<unknown> | undefined) ??
    (em.getConnection().getClient() as Kysely<unknown>);
  const result = await executor.executeQuery<R>(CompiledQuery.raw(sql, [...params]));
  return result.rows;
}

/**
 * A `json` parameter given as its UTF-8 text (worker/jsonBytes.ts): node-postgres sends it in binary format, which
 * for `json` is the text itself (PostgreSQL's json_recv checks it as json_in does), so it is neither decoded into a
 * JavaScript string nor encoded again on the main thread. The parameter must be typed json in the statement
 * (`$n::json`). PGlite takes parameters as values, not wire bytes: its dialect passes the text (pgliteDialect.ts).
 */
export class Utf8Json {
  readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  /** node-postgres' hook for a parameter's value: a Buffer goes in binary format. */
  toPostgres(): Buffer {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
  }
}

/** PostgreSQL's SQLSTATE of a failed statement (node-postgres' and PGlite's errors carry it as `code`). */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Runs `statement` (one statement or transaction of its own) again when PostgreSQL ended it as a deadlock's
 * victim (SQLSTATE 40P01), at most `attempts` times in all. A deadlock is a race, not a fault of the request:
 * the other transaction goes on once this one is aborted, and running this one again waits for it as usual.
 */
export async function retryingDeadlocks<T>(statement: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      if (attempt >= attempts || sqlState(error) !== '40P01') throw error;
    }
  }
}

/**
 * The WHERE clause of a write to one report "only while it is pending" (`id` an SQL expression, e.g. `$1`): found by
 * its primary key whatever the statistics say. Written `status = 'pending'`, the condition matches
 * reports_status_created_at_index, and after an ANALYZE that saw no pending report (a quiet hour: every report
 * finished) the planner estimates one pending row and takes that index — then each write walks every report that
 * became pending since, filtering on the id, and a burst's assembles cost the burst's size squared. `status || ''` is
 * not the indexed expression, so only the key can find the row (test/integration/storage.test.ts).
 */
export const pendingReportWhere = (id: string) => `id = ${id} and status || '' = 'pending'`;
