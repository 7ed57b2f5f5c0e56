/**
 * Named prepared statements for the few statements every report runs (submission, claim, store, assemble).
 * node-postgres sends a query with a `name` to the server once per connection to be parsed and planned, and
 * afterwards only binds parameters to it; an unnamed query is parsed, analysed and planned on every call. For
 * the hot statements — CTEs, and one insert of 43 rows with 258 parameters — that planning was a quarter of
 * PostgreSQL's CPU per report (docs/performance.md).
 *
 * Only texts registered with `prepared()` are named: their number is fixed by the code, so every connection
 * holds a handful of statements. Other queries (MikroORM's, with values inlined) stay unnamed. PGlite runs
 * statements in-process through its own dialect and needs none of this.
 */
import pg from 'pg';

const names = new Map<string, string>();

/** Registers a constant SQL text to run as a named prepared statement on PostgreSQL; returns the text. */
export function prepared(sql: string): string {
  if (!names.has(sql)) names.set(sql, `fra_${names.size + 1}`);
  return sql;
}

/**
 * A node-postgres client that runs registered texts as named statements. MikroORM's pool is given it as its
 * `Client`, so Kysely and MikroORM keep calling `query(text, values)` as before.
 */
export class PreparingClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: node-postgres' query() has many overloads; this one forwards them all.
  override query(config: any, values?: any, callback?: any): any {
    const name = typeof config === 'string' ? names.get(config) : undefined;
    if (name === undefined || typeof values === 'function') return super.query(config, values, callback);
    return super.query({ name, text: config, values }, callback);
  }
}
