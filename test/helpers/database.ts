/**
 * Test databases: a fresh PostgreSQL database per test file (on the server named by DATABASE_URL, or the
 * local one at 127.0.0.1:5432), or a fresh embedded PGlite directory. Nothing is truncated between tests:
 * each test makes its own account and keys.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { runSql } from '../../server/db/sql.ts';

export type Backend = 'postgres' | 'pglite';

export const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  backend: Backend;
  databaseUrl: string | null;
  dataDir: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${ADMIN_URL} (${(error as Error).message}). The suite needs it: ` +
        'set DATABASE_URL to a server where this user may create databases.',
    );
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fra-test-'));
  if (backend === 'pglite') {
    return {
      backend,
      databaseUrl: null,
      dataDir,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `fra_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  return {
    backend,
    databaseUrl: withDatabase(ADMIN_URL, name),
    dataDir,
    drop: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

/** A pg client on a test database, for what a test must see or do behind the service's back. */
export async function connect(databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return client;
}

/**
 * What `statement` reads when it runs (EXPLAIN ANALYZE's plan and its top buffer count: shared hits and reads), in a
 * transaction rolled back so that nothing it writes stays.
 */
export async function explainRolledBack(
  em: EntityManager,
  statement: string,
  params: readonly unknown[] = [],
): Promise<{ plan: string; buffers: number }> {
  let plan = '';
  await rolledBack(em, async (tx) => {
    const rows = await runSql<Record<string, string>>(
      tx,
      `explain (analyze, buffers, costs off, timing off, format text) ${statement}`,
      params,
    );
    plan = rows.map((row) => Object.values(row)[0]).join('\n');
  });
  return { plan, buffers: planBuffers(plan) };
}

/** The top buffer count of an EXPLAIN (ANALYZE, BUFFERS) plan: shared hits and reads. */
export function planBuffers(plan: string): number {
  const top = plan.match(/Buffers: shared hit=(\d+)(?: read=(\d+))?/);
  if (!top) throw new Error(`no buffer count in the plan:\n${plan}`);
  return Number(top[1]) + Number(top[2] ?? 0);
}

/** Runs `work` in a transaction of its own and rolls it back, so that nothing it writes stays. */
export async function rolledBack(
  em: EntityManager,
  work: (tx: EntityManager) => Promise<void>,
): Promise<void> {
  await em
    .fork()
    .transactional(async (tx) => {
      await work(tx as EntityManager);
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
}

class RolledBack extends Error {}
