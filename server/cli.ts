/**
 * Administration from the shell:
 *   npm run cli -- keys create --email <email> --mode test|live [--name <name>]
 *   npm run cli -- keys revoke <key>
 *   npm run cli -- accounts reset-password --email <email> [--stdin]
 *   npm run cli -- benchmarks import|list|show|retire … (server/benchmarks/commands.ts, docs/benchmarks.md)
 * A reset prints a generated password (24 random URL-safe characters) unless --stdin is given, in which case
 * it reads the new password from standard input (first line; nothing echoed, so it stays out of the shell's
 * history and of `ps`). There is no mail server: the operator passes the password on by a channel they trust.
 * Either way the password passes checkPassword and every session of the account ends.
 * Works on PostgreSQL (DATABASE_URL) and on the embedded database (DATA_DIR). The embedded database admits
 * one process, so there the server must be stopped first; the CLI says so when it is not.
 */
import { parseArgs } from 'node:util';
import { BENCHMARKS_USAGE, runBenchmarksCommand } from './benchmarks/commands.ts';
import { loadConfig } from './config.ts';
import { migrate, openDatabase } from './db/database.ts';
import { DataDirBusyError } from './db/dataDirLock.ts';
import { AppError } from './errors.ts';
import { generatePassword, resetPassword } from './services/accounts.ts';
import { createApiKey, findOrCreateAccount, revokeApiKeyByValue } from './services/apiKeys.ts';

const USAGE = `Usage:
  npm run cli -- keys create --email <email> --mode test|live [--name <name>]
  npm run cli -- keys revoke <key>
  npm run cli -- accounts reset-password --email <email> [--stdin]
${BENCHMARKS_USAGE}`;

class UsageError extends Error {}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      mode: { type: 'string' },
      name: { type: 'string' },
      stdin: { type: 'boolean' },
      help: { type: 'boolean' },
      source: { type: 'string' },
      edition: { type: 'string' },
      'data-year': { type: 'string' },
      licence: { type: 'string' },
      all: { type: 'boolean' },
    },
  });
  const [group, command, ...rest] = positionals;
  if (!values.help && group === 'accounts' && command === 'reset-password') {
    if (!values.email || rest.length > 0)
      throw new UsageError(`accounts reset-password needs --email.\n${USAGE}`);
    return resetAccountPassword(values.email, values.stdin === true);
  }
  if (!values.help && group === 'benchmarks') return benchmarks(command, rest, values);
  if (values.help || group !== 'keys' || (command !== 'create' && command !== 'revoke'))
    throw new UsageError(USAGE);
  if (command === 'create' && (!values.email || (values.mode !== 'test' && values.mode !== 'live'))) {
    throw new UsageError(`keys create needs --email and --mode test|live.\n${USAGE}`);
  }
  if (command === 'revoke' && rest.length !== 1) throw new UsageError(`keys revoke needs the key.\n${USAGE}`);

  const config = loadConfig();
  const db = await openDatabase(config);
  try {
    await migrate(db.orm);
    const em = db.orm.em.fork();
    if (command === 'create') {
      const accountId = await findOrCreateAccount(em, values.email!);
      const { key, apiKey } = await createApiKey(
        em,
        accountId,
        { mode: values.mode as 'test' | 'live', name: values.name },
        config.maxApiKeysPerMode,
      );
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

async function benchmarks(
  command: string | undefined,
  args: string[],
  options: Parameters<typeof runBenchmarksCommand>[3],
): Promise<void> {
  const db = await openDatabase(loadConfig());
  try {
    await migrate(db.orm);
    const lines = await runBenchmarksCommand(db.orm.em.fork(), command, args, options);
    if (!lines) throw new UsageError(USAGE);
    for (const line of lines) console.log(line);
  } finally {
    await db.close();
  }
}

/** The first line of standard input, without its line break. */
async function readStdinLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

async function resetAccountPassword(email: string, fromStdin: boolean): Promise<void> {
  const password = fromStdin ? await readStdinLine() : generatePassword();
  const db = await openDatabase(loadConfig());
  try {
    await migrate(db.orm);
    await resetPassword(db.orm.em.fork(), email, password);
  } finally {
    await db.close();
  }
  console.log(
    `The password of ${email.trim().toLowerCase()} is reset; every session of the account has ended.`,
  );
  if (!fromStdin) {
    console.log('Pass this password on by a channel you trust; it is not stored anywhere in clear:');
    console.log(password);
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
