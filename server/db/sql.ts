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
