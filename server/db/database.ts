/**
 * Opens the database the service runs on: PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite
 * on disk in DATA_DIR. Both go through the same MikroORM entities, migrations and queries.
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { acquireDataDirLock, type DataDirLock } from './dataDirLock.ts';
import { ENTITIES } from './entities/index.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { PgliteDialect } from './pgliteDialect.ts';
import { PreparingClient } from './prepared.ts';

export interface Database {
  orm: MikroORM;
  kind: 'postgres' | 'pglite';
  /** The embedded instance, when there is one (pg-boss shares it). */
  pglite: PGlite | null;
  close(): Promise<void>;
}

const identity = (value: string) => value;

/**
 * PGlite's default parsers turn numeric and int8 into JS numbers and timestamps into Dates; node-postgres
 * (as MikroORM configures it) keeps them as strings. Match node-postgres so both paths return the same.
 */
const PGLITE_PARSERS: Record<number, (value: string) => unknown> = {
  20: identity, // int8
  1700: identity, // numeric
  1082: identity, // date
  1114: identity, // timestamp
  1184: identity, // timestamptz
  1186: identity, // interval
};

export function ormOptions(
  config: Pick<Config, 'databaseUrl'> & Partial<Pick<Config, 'dbPoolSize'>>,
): Options {
  return {
    entities: ENTITIES,
    extensions: [Migrator],
    ...(config.databaseUrl ? { clientUrl: config.databaseUrl } : { dbName: 'postgres' }),
    migrations: {
      migrationsList: MIGRATIONS,
      path: 'server/db/migrations',
      pathTs: 'server/db/migrations',
      snapshot: false,
      silent: true,
    },
    pool: { min: 0, max: config.dbPoolSize ?? 10 },
    // Queries are assembled per use case; nothing is loaded lazily behind the caller's back.
    forceUndefined: false,
    debug: false,
  };
}

export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'dbPoolSize'>>,
): Promise<Database> {
  if (config.databaseUrl) {
    // Pool options for MikroORM's node-postgres pool: its clients run the hot statements prepared.
    const orm = await MikroORM.init({ ...ormOptions(config), driverOptions: { Client: PreparingClient } });
    return {
      orm,
      kind: 'postgres',
      pglite: null,
      close: () => orm.close(true),
    };
  }
  mkdirSync(config.dataDir, { recursive: true });
  const lock: DataDirLock = acquireDataDirLock(config.dataDir);
  try {
    const pglite = await PGlite.create(`${config.dataDir}/pgdata`, { parsers: PGLITE_PARSERS });
    const orm = await MikroORM.init({ ...ormOptions(config), driverOptions: new PgliteDialect(pglite) });
    return {
      orm,
      kind: 'pglite',
      pglite,
      close: async () => {
        await orm.close(true);
        await pglite.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Any fixed number: the advisory lock that lets one process at a time migrate. */
const MIGRATION_LOCK = 4_151_120_014;

/**
 * Applies every committed migration that has not run yet. On PostgreSQL several processes may start at once
 * (two api and two worker replicas): a session advisory lock makes them migrate one after another, and the
 * later ones find nothing left to do.
 */
export async function migrate(orm: MikroORM): Promise<void> {
  if (orm.config.get('driverOptions') instanceof PgliteDialect) {
    await orm.migrator.up();
    return;
  }
  const em = orm.em.fork();
  await em.transactional(async (tx) => {
    // Transaction-scoped: released at commit or when the connection drops, never left behind.
    await tx.execute(`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await orm.migrator.up();
  });
}
