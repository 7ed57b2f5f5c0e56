/**
 * Console accounts and sessions: sign-up and sign-in with email and password (argon2id), sign-out, and
 * resolving a session cookie. Transport-free: the GraphQL API (and anything else) calls these.
 */
import { hash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as zxcvbnCommon from '@zxcvbn-ts/language-common';
import argon2 from 'argon2';
import { textProblem } from '../../schema/text.ts';
import { Account } from '../db/entities/account.entity.ts';
import { Session } from '../db/entities/session.entity.ts';
import { runSql } from '../db/sql.ts';
import { ConflictError, TooManyRequestsError, UnauthenticatedError, ValidationError } from '../errors.ts';
import { randomToken } from '../lib/ids.ts';
import type { RateLimits } from '../lib/rateLimits.ts';
import { disableEndpointsOfOtherSessions } from '../webhooks/endpoints.ts';
import { normaliseEmail } from './apiKeys.ts';

export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
const MIN_PASSWORD = 10;
const MAX_PASSWORD = 200;

/** zxcvbn score (0–4) a new password must reach: 3 = "safely unguessable", ~10^8 guesses. */
const MIN_PASSWORD_SCORE = 3;
let strength: ZxcvbnFactory | undefined;
/** The estimator, built at the first password checked: ranking its dictionaries is work a start need not wait for. */
const estimator = () =>
  (strength ??= new ZxcvbnFactory({
    dictionary: { ...zxcvbnCommon.dictionary },
    graphs: zxcvbnCommon.adjacencyGraphs,
  }));

/** zxcvbn's warning keys → why, in the console's language. */
const WEAKNESS: Record<string, string> = {
  topTen: '是最常见的密码之一',
  topHundred: '是最常见的密码之一',
  common: '是常见密码',
  similarToCommon: '与常见密码相似',
  wordByItself: '只是一个常见单词',
  namesByThemselves: '只是常见姓名',
  commonNames: '含常见姓名',
  simpleRepeat: '含重复字符（如 aaa）',
  extendedRepeat: '含重复的字符组（如 abcabc）',
  sequences: '含连续字符（如 abc、123）',
  straightRow: '是键盘上连成一行的键',
  keyPattern: '是键盘上相邻的键',
  recentYears: '含近年的年份',
  dates: '含日期',
  userInputs: '含有你的邮箱或其中的部分',
  pwned: '已出现在泄露的密码中',
};

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

const hashToken = (token: string) => hash('sha256', token, 'hex');

const passwordError = (message: string) => new ValidationError([{ path: 'password', message }]);

/**
 * The one check of a new password (sign-up, password change, operator reset): 10 to 200 characters of clean
 * text (schema/text.ts) and hard to guess by the zxcvbn estimator (common passwords, repeats, sequences,
 * keyboard patterns, dates, the email itself). Throws a 422 on `password` whose message says why, in Chinese.
 */
export function checkPassword(password: unknown, context: { email?: string } = {}): string {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) {
    throw passwordError(
      `must be a string of ${MIN_PASSWORD} to ${MAX_PASSWORD} characters（密码长度须为 ${MIN_PASSWORD} 到 ${MAX_PASSWORD} 个字符）`,
    );
  }
  const unclean = textProblem(password);
  if (unclean) throw passwordError(unclean);
  const inputs = context.email
    ? [context.email, ...context.email.split(/[@.+_-]/).filter((p) => p.length > 2)]
    : [];
  const result = estimator().check(password, inputs);
  if (result.score < MIN_PASSWORD_SCORE) {
    const why = (result.feedback.warning && WEAKNESS[result.feedback.warning]) || '太容易被猜到';
    throw passwordError(`密码太弱：${why}。请换一个更长、更不常见的密码（例如几个不相关的词组合）。`);
  }
  return password;
}

/** The address in a console body, checked as clean text before anything else looks at it. */
function emailInput(email: unknown): string {
  if (typeof email === 'string') {
    const problem = textProblem(email);
    if (problem) throw new ValidationError([{ path: 'email', message: problem }]);
  }
  return typeof email === 'string' ? email : '';
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
  const email = normaliseEmail(emailInput(input.email));
  const password = checkPassword(input.password, { email });
  const passwordHash = await argon2.hash(password, { type: argon2.argon2id });
  const existing = await em.findOne(Account, { email });
  if (existing) {
    // Accounts made by the CLI have no password; letting anyone set one here would hand them the account.
    throw new ConflictError('email_taken', 'An account with this email already exists; sign in instead.');
  }
  const now = new Date();
  const account = em.create(Account, {
    id: randomUUID(),
    email,
    passwordHash,
    passwordChangedAt: now,
    createdAt: now,
  });
  await em.flush();
  return openSession(em, account.id);
}

/**
 * Signs in with email and password. Throttled reserve-then-verify: the attempt is counted (in PostgreSQL,
 * atomically) BEFORE the password is verified, so N concurrent guesses can never exceed the budget; per email
 * and client address (`login_client`), under a higher ceiling per email (`login_email`), so a stranger's
 * guesses from elsewhere do not lock the owner out. A successful sign-in clears its own email+client count.
 */
export async function logIn(
  em: EntityManager,
  input: { email: unknown; password: unknown },
  clientAddress: string,
  limits: RateLimits,
): Promise<ConsoleSession> {
  const email = emailInput(input.email).trim().toLowerCase();
  const password = typeof input.password === 'string' ? input.password : '';
  const unclean = textProblem(password);
  if (unclean) throw new ValidationError([{ path: 'password', message: unclean }]);
  const clientKey = `${email}\u0000${clientAddress}`;
  // The email+client budget first: a stranger refused there does not spend the owner's per-email ceiling.
  for (const [budget, subject] of [
    ['login_client', clientKey],
    ['login_email', email],
  ] as const) {
    const state = await limits.consume(budget, subject);
    if (!state.allowed) {
      const wait = state.resetSeconds;
      throw new TooManyRequestsError(`Too many sign-in attempts; try again in ${wait} seconds.`, wait);
    }
  }
  const account = email ? await em.findOne(Account, { email }) : null;
  decoyHash ??= argon2.hash(randomToken(16), { type: argon2.argon2id });
  const stored = account?.passwordHash ?? (await decoyHash);
  const valid = (await argon2.verify(stored, password).catch(() => false)) && Boolean(account?.passwordHash);
  if (!account || !valid) throw new UnauthenticatedError('The email or password is not correct.');
  await limits.reset('login_client', clientKey);
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

/** checkPassword's problem (field `password`) reported on the field the caller's form names. */
function validateNewPassword(password: unknown, email: string, field: string): string {
  try {
    return checkPassword(password, { email });
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

/** A key listed after a password change: made while the old password was in force. */
export interface RecentKey {
  id: string;
  name: string;
  mode: string;
  prefix: string;
  lastFour: string;
  createdAt: Date;
}

export interface PasswordChanged {
  /** The new session that replaces the one that made the change (new cookie, new CSRF token). */
  session: ConsoleSession;
  /**
   * Active keys made since the password was last set (or, for an account older than that record, since the
   * account was made): every key someone holding the old password could have minted, for the owner to review.
   */
  recentKeys: RecentKey[];
}

const RECENT_KEYS_SQL = `
  select k.id, k.name, k.mode, k.prefix, k.last_four, k.created_at
    from api_keys k join accounts a on a.id = k.account_id
   where k.account_id = $1 and k.revoked_at is null
     and k.created_at >= coalesce(a.password_changed_at, a.created_at)
   order by k.created_at desc, k.id`;

/**
 * A signed-in user changes their password: the current one is verified (wrong → 422 on `current_password`,
 * throttled per account), the new one passes checkPassword and differs from it. Every session of the account
 * ends — the others, and this one too, whose cookie and CSRF token a thief may hold: the caller gets a new
 * session (new cookie, new CSRF token). The answer lists the active keys made since the password was last
 * set, so keys a thief minted with the old password are seen (and can be revoked).
 */
export async function changePassword(
  em: EntityManager,
  principal: Pick<ConsolePrincipal, 'accountId' | 'email' | 'sessionId'>,
  input: { currentPassword: unknown; newPassword: unknown },
  limits: RateLimits,
): Promise<PasswordChanged> {
  // Reserve, then verify (as logIn does): the attempt is counted in PostgreSQL before the current password is
  // checked, so a stolen session cannot become a password oracle, even with concurrent requests.
  const throttleKey = `password-change\u0000${principal.accountId}`;
  await limits.take('login_client', throttleKey, 'wrong current passwords');
  const current = typeof input.currentPassword === 'string' ? input.currentPassword : '';
  const account = await em.findOneOrFail(Account, { id: principal.accountId });
  const valid =
    current.length > 0 &&
    current.length <= MAX_PASSWORD &&
    Boolean(account.passwordHash) &&
    (await argon2.verify(account.passwordHash!, current).catch(() => false));
  if (!valid) {
    throw new ValidationError([{ path: 'current_password', message: 'is not correct' }]);
  }
  const next = validateNewPassword(input.newPassword, account.email, 'new_password');
  if (next === current) {
    throw new ValidationError([{ path: 'new_password', message: 'must differ from the current password' }]);
  }
  await limits.reset('login_client', throttleKey);
  const passwordHash = await argon2.hash(next, { type: argon2.argon2id });
  const rows = await runSql<{
    id: string;
    name: string;
    mode: string;
    prefix: string;
    last_four: string;
    created_at: Date;
  }>(em, RECENT_KEYS_SQL, [account.id]);
  await em.nativeUpdate(Account, { id: account.id }, { passwordHash, passwordChangedAt: new Date() });
  // Endpoints other sessions registered are disabled (a thief's session may have made them); this session's
  // endpoints pass to the session that replaces it, so a later password change does not take them for a thief's.
  await disableEndpointsOfOtherSessions(em, account.id, principal.sessionId);
  await em.nativeDelete(Session, { account: account.id });
  const session = await openSession(em, account.id);
  await runSql(
    em,
    'update webhook_endpoints set created_by_session_id = $3 where account_id = $1 and created_by_session_id = $2',
    [account.id, principal.sessionId, hashToken(session.token)],
  );
  return {
    session,
    recentKeys: rows.map((row) => ({
      id: row.id,
      name: row.name,
      mode: row.mode,
      prefix: row.prefix,
      lastFour: row.last_four,
      createdAt: new Date(row.created_at),
    })),
  };
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
  await em.nativeUpdate(Account, { id: account.id }, { passwordHash, passwordChangedAt: new Date() });
  await em.nativeDelete(Session, { account: account.id });
}
