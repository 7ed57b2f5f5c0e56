/**
 * A Kysely dialect for embedded PGlite, shared by MikroORM and pg-boss in one process.
 *
 * PGlite is a single database session. The published `kysely-pglite-dialect` serialises Kysely's own
 * connections but opens transactions with a plain `BEGIN`, so any other user of the same PGlite instance
 * (pg-boss polling, here) would run its statements inside our open transaction. This driver opens every
 * transaction through `PGlite.transaction()`, which holds PGlite's transaction lock until COMMIT/ROLLBACK:
 * pg-boss statements simply wait their turn, exactly as they would for a row lock on a real server.
 */
import type { PGlite, Transaction } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';
import { utf8Text } from '../../worker/jsonBytes.ts';
import { Utf8Json } from './sql.ts';

interface OpenTransaction {
  tx: Transaction;
  finish: (action: 'commit' | 'rollback') => Promise<void>;
}

class PgliteConnection implements DatabaseConnection {
  readonly #db: PGlite;
  #open: OpenTransaction | null = null;

  constructor(db: PGlite) {
    this.#db = db;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const target = this.#open?.tx ?? this.#db;
    const parameters = query.parameters.map((value) =>
      value instanceof Utf8Json ? utf8Text(value.bytes) : value,
    );
    const result = await target.query<R>(query.sql, parameters);
    return result.affectedRows === undefined
      ? { rows: result.rows }
      : { rows: result.rows, numAffectedRows: BigInt(result.affectedRows) };
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    yield await this.executeQuery<R>(query);
  }

  /** Starts `PGlite.transaction()` and keeps it open until `finish` is called. */
  async begin(): Promise<void> {
    let ready!: (open: OpenTransaction) => void;
    const opened = new Promise<OpenTransaction>((resolve) => {
      ready = resolve;
    });
    const done = this.#db.transaction(
      (tx) =>
        new Promise<void>((resolve, reject) => {
          ready({
            tx,
            finish: async (action) => {
              if (action === 'rollback') {
                // PGlite rolls back when the callback rejects; tx.rollback() would throw afterwards.
                reject(new RollbackSignal());
              } else {
                resolve();
              }
            },
          });
        }),
    );
    // The transaction promise settles only when finish() is called; errors surface there.
    this.#pending = done.catch((error: unknown) => {
      if (!(error instanceof RollbackSignal)) throw error;
    });
    this.#open = await opened;
  }

  #pending: Promise<void> | null = null;

  async finish(action: 'commit' | 'rollback'): Promise<void> {
    const open = this.#open;
    if (!open) throw new Error(`cannot ${action}: no transaction is open`);
    this.#open = null;
    await open.finish(action);
    const pending = this.#pending;
    this.#pending = null;
    await pending;
  }
}

class RollbackSignal extends Error {}

class PgliteDriver implements Driver {
  readonly #db: PGlite;
  // Kysely connections are handed out one at a time: PGlite has one session.
  #busy = false;
  readonly #waiting: Array<() => void> = [];

  constructor(db: PGlite) {
    this.#db = db;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#busy) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#busy = true;
    return new PgliteConnection(this.#db);
  }

  async releaseConnection(): Promise<void> {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#busy = false;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PgliteConnection).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PgliteConnection).finish('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as PgliteConnection).finish('rollback');
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdent(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${quoteIdent(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdent(name)}`));
  }

  // The PGlite instance belongs to the caller (pg-boss shares it); closing it is theirs to do.
  async destroy(): Promise<void> {}
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export class PgliteDialect implements Dialect {
  readonly #db: PGlite;

  constructor(db: PGlite) {
    this.#db = db;
  }

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PgliteDriver(this.#db);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
