/**
 * Administration from the shell, until the console exists:
 *   npm run cli -- keys create --email <email> --mode test|live [--name <name>]
 *   npm run cli -- keys revoke <key>
 * Works on PostgreSQL (DATABASE_URL) and on the embedded database (DATA_DIR). The embedded database admits
 * one process, so there the server must be stopped first; the CLI says so when it is not.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';
import { migrate, openDatabase } from './db/database.ts';
import { DataDirBusyError } from './db/dataDirLock.ts';
import { AppError } from './errors.ts';
import { createApiKey, findOrCreateAccount, revokeApiKeyByValue } from './services/apiKeys.ts';

const USAGE = `Usage:
  npm run cli -- keys create --email <email> --mode test|live [--name <name>]
  npm run cli -- keys revoke <key>`;

class UsageError extends Error {}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      mode: { type: 'string' },
      name: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const [group, command, ...rest] = positionals;
  if (values.help || group !== 'keys' || (command !== 'create' && command !== 'revoke'))
    throw new UsageError(USAGE);
  if (command === 'create' && (!values.email || (values.mode !== 'test' && values.mode !== 'live'))) {
    throw new UsageError(`keys create needs --email and --mode test|live.\n${USAGE}`);
  }
  if (command === 'revoke' && rest.length !== 1) throw new UsageError(`keys revoke needs the key.\n${USAGE}`);

  const db = await openDatabase(loadConfig());
  try {
    await migrate(db.orm);
    const em = db.orm.em.fork();
    if (command === 'create') {
      const accountId = await findOrCreateAccount(em, values.email!);
      const { key, apiKey } = await createApiKey(em, accountId, {
        mode: values.mode as 'test' | 'live',
        name: values.name,
      });
      console.log(
        `Created ${apiKey.mode} key "${apiKey.name}" (${apiKey.prefix}…${apiKey.lastFour}) for ${values.email}.`,
      );
      console.log('Store it now: the full key is shown only this once.');
      console.log(key);
    } else {
      const revoked = await revokeApiKeyByValue(em, rest[0]!);
      if (!revoked) throw new UsageError('No active key matches; nothing was revoked.');
      console.log('The key is revoked: requests using it now answer 401.');
    }
  } finally {
    await db.close();
  }
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError || error instanceof DataDirBusyError) {
    console.error(error.message);
  } else if (error instanceof AppError) {
    console.error(
      `${error.message}${error.errors ? ` ${error.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}` : ''}`,
    );
  } else {
    console.error(error);
  }
  process.exit(1);
}
