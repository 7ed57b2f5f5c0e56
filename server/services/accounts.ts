/**
 * Console accounts and sessions: sign-up and sign-in with email and password (argon2id), sign-out, and
 * resolving a session cookie. Transport-free: the GraphQL API (and anything else) calls these.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import argon2 from 'argon2';
import { Account } from '../db/entities/account.entity.ts';
import { Session } from '../db/entities/session.entity.ts';
import { ConflictError, TooManyRequestsError, UnauthenticatedError, ValidationError } from '../errors.ts';
import { randomToken } from '../lib/ids.ts';
import { RateLimiter } from '../lib/rateLimiter.ts';
import { normaliseEmail } from './apiKeys.ts';

export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
const MIN_PASSWORD = 10;
const MAX_PASSWORD = 200;

// 10 failed attempts per email per 15 minutes, 50 per client address: slow enough to stop guessing, loose
// enough that a person who mistypes is not locked out for long.
const failuresByEmail = new RateLimiter(10, 15 * 60_000);
const failuresByAddress = new RateLimiter(50, 15 * 60_000);

/** A hash to verify against when the email is unknown, so both paths cost the same. */
let decoyHash: Promise<string> | undefined;

export interface ConsoleSession {
  /** The cookie value: shown to the browser once, stored only as its SHA-256. */
  token: string;
  csrfToken: string;
  accountId: string;
  expiresAt: Date;
}

export interface ConsolePrincipal {
  accountId: string;
  email: string;
  sessionId: string;
  csrfToken: string;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

function checkPassword(password: unknown): string {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) {
    throw new ValidationError([
      { path: 'password', message: `must be a string of ${MIN_PASSWORD} to ${MAX_PASSWORD} characters` },
    ]);
  }
  return password;
}

async function openSession(em: EntityManager, accountId: string): Promise<ConsoleSession> {
  const token = randomToken(32);
  const csrfToken = randomToken(32);
  const now = new Date();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await em.insert(Session, {
    id: hashToken(token),
    account: accountId,
    csrfToken,
    createdAt: now,
    expiresAt,
    lastSeenAt: now,
  });
  return { token, csrfToken, accountId, expiresAt };
}

/** Creates an account with a password and signs it in. An email already taken answers 409. */
export async function signUp(
  em: EntityManager,
  input: { email: unknown; password: unknown },
): Promise<ConsoleSession> {
  const email = normaliseEmail(typeof input.email === 'string' ? input.email : '');
  const password = checkPassword(input.password);
  const passwordHash = await argon2.hash(password, { type: argon2.argon2id });
  const existing = await em.findOne(Account, { email });
  if (existing) {
    // Accounts made by the CLI have no password; letting anyone set one here would hand them the account.
    throw new ConflictError('email_taken', 'An account with this email already exists; sign in instead.');
  }
  const account = em.create(Account, { id: randomUUID(), email, passwordHash, createdAt: new Date() });
  await em.flush();
  return openSession(em, account.id);
}

/** Signs in with email and password; throttled per email and per client address. */
export async function logIn(
  em: EntityManager,
  input: { email: unknown; password: unknown },
  clientAddress: string,
): Promise<ConsoleSession> {
  const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
  const password = typeof input.password === 'string' ? input.password : '';
  const wait = Math.max(failuresByEmail.retryAfter(email), failuresByAddress.retryAfter(clientAddress));
  if (wait > 0) {
    throw new TooManyRequestsError(`Too many failed sign-in attempts; try again in ${wait} seconds.`, wait);
  }
  const account = email ? await em.findOne(Account, { email }) : null;
  decoyHash ??= argon2.hash(randomToken(16), { type: argon2.argon2id });
  const hash = account?.passwordHash ?? (await decoyHash);
  const valid = (await argon2.verify(hash, password).catch(() => false)) && Boolean(account?.passwordHash);
  if (!account || !valid) {
    failuresByEmail.hit(email);
    failuresByAddress.hit(clientAddress);
    throw new UnauthenticatedError('The email or password is not correct.');
  }
  failuresByEmail.reset(email);
  return openSession(em, account.id);
}

export async function logOut(em: EntityManager, token: string | undefined): Promise<void> {
  if (token) await em.nativeDelete(Session, { id: hashToken(token) });
}

/** The signed-in account behind a session cookie, or null when the cookie is absent, unknown or expired. */
export async function authenticateSession(
  em: EntityManager,
  token: string | undefined,
): Promise<ConsolePrincipal | null> {
  if (!token || token.length > 128) return null;
  const session = await em.findOne(Session, { id: hashToken(token) }, { populate: ['account'] });
  if (!session) return null;
  const now = Date.now();
  if (session.expiresAt.getTime() <= now) {
    await em.nativeDelete(Session, { id: session.id });
    return null;
  }
  if (now - session.lastSeenAt.getTime() > 60_000) {
    await em.nativeUpdate(Session, { id: session.id }, { lastSeenAt: new Date(now) });
  }
  return {
    accountId: session.account.id,
    email: session.account.email,
    sessionId: session.id,
    csrfToken: session.csrfToken,
  };
}

// ---- Password change (console) and operator reset (CLI) -------------------------------------------------

/**
 * Contract 4's `checkPassword(password, { email })`, called through a wider type so this compiles both
 * before and after the hardening issue adds the context argument.
 */
const checkNewPassword = checkPassword as (password: unknown, context?: { email?: string }) => string;

// Wrong current passwords per account in 15 minutes: a stolen session must not become a password oracle.
const currentPasswordFailures = new RateLimiter(10, 15 * 60_000);

/** checkPassword's problem (field `password`) reported on the field the caller's form names. */
function validateNewPassword(password: unknown, email: string, field: string): string {
  try {
    return checkNewPassword(password, { email });
  } catch (error) {
    if (error instanceof ValidationError && error.errors) {
      throw new ValidationError(
        error.errors.map((problem) => ({
          ...problem,
          path: problem.path === 'password' ? field : problem.path,
        })),
      );
    }
    throw error;
  }
}

/**
 * A signed-in user changes their password: the current one is verified (wrong → 422 on `current_password`,
 * throttled per account), the new one passes checkPassword and differs from it. Every other session of the
 * account ends; the one that made the change stays signed in.
 */
export async function changePassword(
  em: EntityManager,
  principal: Pick<ConsolePrincipal, 'accountId' | 'email' | 'sessionId'>,
  input: { currentPassword: unknown; newPassword: unknown },
): Promise<void> {
  const wait = currentPasswordFailures.retryAfter(principal.accountId);
  if (wait > 0) {
    throw new TooManyRequestsError(`Too many wrong current passwords; try again in ${wait} seconds.`, wait);
  }
  const current = typeof input.currentPassword === 'string' ? input.currentPassword : '';
  const account = await em.findOneOrFail(Account, { id: principal.accountId });
  const valid =
    current.length > 0 &&
    current.length <= MAX_PASSWORD &&
    Boolean(account.passwordHash) &&
    (await argon2.verify(account.passwordHash!, current).catch(() => false));
  if (!valid) {
    currentPasswordFailures.hit(principal.accountId);
    throw new ValidationError([{ path: 'current_password', message: 'is not correct' }]);
  }
  const next = validateNewPassword(input.newPassword, account.email, 'new_password');
  if (next === current) {
    throw new ValidationError([{ path: 'new_password', message: 'must differ from the current password' }]);
  }
  currentPasswordFailures.reset(principal.accountId);
  const passwordHash = await argon2.hash(next, { type: argon2.argon2id });
  await em.nativeUpdate(Account, { id: account.id }, { passwordHash });
  await em.nativeDelete(Session, { account: account.id, id: { $ne: principal.sessionId } });
}

/** A generated password for an operator's reset: 18 random bytes → 24 URL-safe characters (144 bits). */
export function generatePassword(): string {
  return randomToken(18);
}

/**
 * An operator sets an account's password (there is no mail server to send a reset link): the password
 * passes checkPassword, and every session of the account ends. An unknown email is a validation error
 * on `email`.
 */
export async function resetPassword(em: EntityManager, emailInput: string, password: unknown): Promise<void> {
  const email = emailInput.trim().toLowerCase();
  const account = email ? await em.findOne(Account, { email }) : null;
  if (!account) throw new ValidationError([{ path: 'email', message: 'no account has this email' }]);
  const checked = validateNewPassword(password, account.email, 'password');
  const passwordHash = await argon2.hash(checked, { type: argon2.argon2id });
  await em.nativeUpdate(Account, { id: account.id }, { passwordHash });
  await em.nativeDelete(Session, { account: account.id });
}
