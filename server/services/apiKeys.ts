/**
 * API keys: creation (full key shown once), revocation, and authentication of a request's X-API-Key.
 */
import { hash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { textProblem } from '../../schema/text.ts';
import { Account } from '../db/entities/account.entity.ts';
import { ApiKey, type ApiKeyMode, type IApiKey } from '../db/entities/apiKey.entity.ts';
import { prepared } from '../db/prepared.ts';
import { runSql } from '../db/sql.ts';
import { ConflictError, NotFoundError, UnauthenticatedError, ValidationError } from '../errors.ts';
import { isUuid, randomToken } from '../lib/ids.ts';
import { disableEndpointsCreatedByKey } from '../webhooks/endpoints.ts';
import { forgetApiKeys, type ReadCache } from './readCache.ts';

/**
 * Who is calling: every service that reads or writes tenant data takes one. An API key gives its account
 * and its mode; a console session gives its account and the mode the console is switched to (no key).
 */
export interface Principal {
  accountId: string;
  mode: ApiKeyMode;
  /** The key that authenticated the request; null for a console session. */
  apiKeyId: string | null;
  /** The console session that authenticated the request (its id); absent for an API key. */
  sessionId?: string;
}

const KEY_PATTERN = /^ek_(test|live)_[A-Za-z0-9_-]{32,128}$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// 32 random bytes → 43 base64url characters (256 bits).
const KEY_RANDOM_BYTES = 32;

export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export interface CreatedApiKey {
  /** The full key: returned once, never stored. */
  key: string;
  apiKey: IApiKey;
}

export function normaliseEmail(email: string): string {
  const unclean = textProblem(email);
  if (unclean) throw new ValidationError([{ path: 'email', message: unclean }]);
  const value = email.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(value) || value.length > 320) {
    throw new ValidationError([{ path: 'email', message: 'must be an email address' }]);
  }
  return value;
}

/** Finds the account with this email, creating it (without a password) when there is none. */
export async function findOrCreateAccount(em: EntityManager, email: string): Promise<string> {
  const normalised = normaliseEmail(email);
  await em
    .createQueryBuilder(Account)
    .insert({ id: randomUUID(), email: normalised, createdAt: new Date() })
    .onConflict('email')
    .ignore()
    .execute();
  const account = await em.findOneOrFail(Account, { email: normalised });
  return account.id;
}

/** Live (not revoked) keys an account may hold per mode by default (MAX_API_KEYS_PER_MODE). */
export const DEFAULT_MAX_KEYS_PER_MODE = 20;

const LOCK_ACCOUNT_SQL = prepared(`select id from accounts where id = $1 for update`);
const LIVE_KEYS_SQL = prepared(
  `select count(*)::int as live from api_keys where account_id = $1 and mode = $2 and revoked_at is null`,
);

/**
 * Creates a key of `input.mode` for the account. At most `maxPerMode` keys of one mode may be live at once
 * (409 `too_many_api_keys`: revoke one first) — budgets are per key under a ceiling per account, and keys
 * cost nothing to mint, so the cap keeps an account's key list something a person can review. The count and
 * the insert run in one transaction holding the account row's lock: concurrent creations queue, and 31 at
 * once still make at most the cap.
 */
export async function createApiKey(
  em: EntityManager,
  accountId: string,
  input: { mode: ApiKeyMode; name?: string },
  maxPerMode = DEFAULT_MAX_KEYS_PER_MODE,
): Promise<CreatedApiKey> {
  if (input.mode !== 'test' && input.mode !== 'live') {
    throw new ValidationError([{ path: 'mode', message: 'must be "test" or "live"' }]);
  }
  const name = (input.name ?? '').trim() || `${input.mode} key`;
  if (name.length > 100)
    throw new ValidationError([{ path: 'name', message: 'must be at most 100 characters' }]);
  const unclean = textProblem(name);
  if (unclean) throw new ValidationError([{ path: 'name', message: unclean }]);
  const secret = randomToken(KEY_RANDOM_BYTES);
  const key = `ek_${input.mode}_${secret}`;
  const mode = input.mode;
  const apiKey = await em.transactional(async (tx) => {
    await runSql(tx, LOCK_ACCOUNT_SQL, [accountId]);
    const [count] = await runSql<{ live: number }>(tx, LIVE_KEYS_SQL, [accountId, mode]);
    if ((count?.live ?? 0) >= maxPerMode) {
      throw new ConflictError(
        'too_many_api_keys',
        `This account already has ${maxPerMode} active ${mode} keys, the most it may hold; revoke one first.`,
      );
    }
    const created = tx.create(ApiKey, {
      id: randomUUID(),
      account: accountId,
      name,
      mode,
      prefix: `ek_${mode}_${secret.slice(0, 4)}`,
      lastFour: secret.slice(-4),
      keyHash: hashApiKey(key),
      createdAt: new Date(),
    });
    await tx.flush();
    return created;
  });
  return { key, apiKey };
}

/** Revokes a key given in full. Returns false when no such key exists or it was already revoked. */
export async function revokeApiKeyByValue(em: EntityManager, key: string): Promise<boolean> {
  const [revoked] = await runSql<{ id: string }>(
    em,
    `update api_keys set revoked_at = $2 where key_hash = $1 and revoked_at is null returning id`,
    [hashApiKey(key.trim()), new Date()],
  );
  if (revoked) {
    forgetApiKeys();
    await disableEndpointsCreatedByKey(em, revoked.id);
  }
  return revoked !== undefined;
}

interface KeyRow {
  id: string;
  account_id: string;
  mode: ApiKeyMode;
  revoked: boolean;
  /** last_used_at is more than a minute old (or unset). */
  stale: boolean;
}

const FIND_KEY_SQL = prepared(`
  select id, account_id, mode, revoked_at is not null as revoked,
         coalesce(last_used_at < now() - interval '1 minute', true) as stale
    from api_keys where key_hash = $1`);

/**
 * The principal of an X-API-Key header whose key this process verified within the read cache's trust window
 * (as authenticateApiKey would answer from it); undefined for anything else, which authenticateApiKey decides.
 */
export function cachedPrincipal(cache: ReadCache, header: string | undefined): Principal | undefined {
  const key = header?.trim();
  if (!key || !KEY_PATTERN.test(key)) return undefined;
  const cached = cache.apiKey(hashApiKey(key));
  return cached ? { ...cached } : undefined;
}

/**
 * Resolves the X-API-Key header to a principal. Missing, malformed, unknown and revoked keys all answer
 * 401. With a read cache (the service's), a key verified in the last 10 s is trusted without a lookup; a
 * revocation reaches this process's cache at once and every other process's when its NOTIFY arrives
 * (readCache.ts). `em` is a thunk so that a request answered from the cache forks no entity manager.
 */
export async function authenticateApiKey(
  em: EntityManager | (() => EntityManager),
  header: string | undefined,
  cache?: ReadCache,
): Promise<Principal> {
  const key = header?.trim();
  if (!key) throw new UnauthenticatedError('Send your API key in the X-API-Key header.');
  if (!KEY_PATTERN.test(key)) {
    throw new UnauthenticatedError(
      'The X-API-Key header does not hold a valid API key (ek_live_… or ek_test_…).',
    );
  }
  const keyHash = hashApiKey(key);
  const cached = cache?.apiKey(keyHash);
  if (cached) return { ...cached };
  const generation = cache?.generation() ?? 0;
  const manager = typeof em === 'function' ? em() : em;
  // A prepared statement, not an ORM query (server/db/prepared.ts).
  const [row] = await runSql<KeyRow>(manager, FIND_KEY_SQL, [keyHash]);
  if (!row) throw new UnauthenticatedError('This API key is not recognised.');
  if (row.revoked) throw new UnauthenticatedError('This API key has been revoked.');
  // last_used_at is informational: written at most once a minute per key (and looked at only when the cache
  // asks the database, every 10 s at most), so reads stay reads.
  if (row.stale) await manager.nativeUpdate(ApiKey, { id: row.id }, { lastUsedAt: new Date() });
  const principal: Principal = { accountId: row.account_id, mode: row.mode, apiKeyId: row.id };
  cache?.rememberApiKey(keyHash, principal, generation);
  return principal;
}

/** The account's keys, newest first (console). */
export async function listApiKeys(em: EntityManager, accountId: string): Promise<IApiKey[]> {
  return em.find(ApiKey, { account: accountId }, { orderBy: { createdAt: 'desc', id: 'asc' } });
}

/** Revokes one of the account's keys (console). Another account's key, or none, answers 404. */
export async function revokeApiKeyById(
  em: EntityManager,
  accountId: string,
  keyId: string,
): Promise<IApiKey> {
  const key = isUuid(keyId) ? await em.findOne(ApiKey, { id: keyId, account: accountId }) : null;
  if (!key) throw new NotFoundError('API key', keyId);
  if (!key.revokedAt) {
    // Revocation means revocation: what the key registered stops receiving events too, in the same transaction.
    const revokedAt = new Date();
    await em.transactional(async (tx) => {
      await tx.nativeUpdate(ApiKey, { id: key.id }, { revokedAt });
      await disableEndpointsCreatedByKey(tx, key.id);
    });
    forgetApiKeys();
    key.revokedAt = revokedAt;
  }
  return key;
}
