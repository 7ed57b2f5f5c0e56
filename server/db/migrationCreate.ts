/**
 * Generates a migration from the difference between the entities and the database at DATABASE_URL
 * (or the embedded one), writes it to server/db/migrations, and reminds you to list it in index.ts.
 */
import { loadConfig } from '../config.ts';
import { migrate, openDatabase } from './database.ts';

const db = await openDatabase(loadConfig());
try {
  await migrate(db.orm);
  const initial = process.argv.includes('--initial');
  const result = initial
    ? await db.orm.migrator.createInitial()
    : await db.orm.migrator.create(undefined, false, false, process.argv[2]);
  if (!result.fileName) console.log('No changes: the entities match the database.');
  else
    console.log(`Wrote server/db/migrations/${result.fileName} — add it to server/db/migrations/index.ts.`);
} finally {
  await db.close();
}
