/**
 * The console's services, below any transport: accounts and sessions, key management, share settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../server/db/entities/account.entity.ts';
import { Session } from '../../server/db/entities/session.entity.ts';
import { rateLimitsOf } from '../../server/lib/rateLimits.ts';
import { authenticateSession, logIn, logOut, signUp } from '../../server/services/accounts.ts';
import { createApiKey, listApiKeys, revokeApiKeyById } from '../../server/services/apiKeys.ts';
import { rotateShareToken, updateShareSettings } from '../../server/services/shareSettings.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

describe('console services', () => {
  let service: TestService;
  const em = () => service.services.db.orm.em.fork();

  beforeAll(async () => {
    service = await startTestService('pglite');
  });
  afterAll(async () => {
    await service?.close();
  });

  it('signs up with an argon2id hash, signs in, resolves and ends the session', async () => {
    const session = await signUp(em(), { email: ' Alice@Example.com ', password: 'correct horse battery' });
    expect(session.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const account = await em().findOneOrFail(Account, { email: 'alice@example.com' });
    expect(account.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await em().count(Session, { id: session.token })).toBe(0); // only the hash is stored

    const principal = await authenticateSession(em(), session.token);
    expect(principal).toMatchObject({ accountId: account.id, email: 'alice@example.com' });
    expect(principal?.csrfToken).toBe(session.csrfToken);

    const again = await logIn(
      em(),
      { email: 'alice@example.com', password: 'correct horse battery' },
      '10.0.0.1',
      rateLimitsOf(service.services),
    );
    expect(again.token).not.toBe(session.token);
    await logOut(em(), session.token);
    expect(await authenticateSession(em(), session.token)).toBeNull();
    expect(await authenticateSession(em(), again.token)).not.toBeNull();
    expect(await authenticateSession(em(), 'not-a-session')).toBeNull();
  });

  it('refuses a taken email, a short password and a wrong password', async () => {
    await signUp(em(), { email: 'bob@example.com', password: 'long enough password' });
    await expect(
      signUp(em(), { email: 'bob@example.com', password: 'another long one' }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'email_taken',
    });
    await expect(signUp(em(), { email: 'carol@example.com', password: 'short' })).rejects.toMatchObject({
      status: 422,
    });
    await expect(
      logIn(
        em(),
        { email: 'bob@example.com', password: 'wrong password!' },
        '10.0.0.2',
        rateLimitsOf(service.services),
      ),
    ).rejects.toMatchObject({
      status: 401,
    });
    await expect(
      logIn(
        em(),
        { email: 'nobody@example.com', password: 'whatever it is' },
        '10.0.0.2',
        rateLimitsOf(service.services),
      ),
    ).rejects.toMatchObject({
      status: 401,
    });
  });

  it('throttles repeated failed sign-ins for an email from one client address', async () => {
    await signUp(em(), { email: 'dave@example.com', password: 'long enough password' });
    for (let i = 0; i < 10; i++) {
      await expect(
        logIn(
          em(),
          { email: 'dave@example.com', password: `wrong ${i} attempt` },
          '10.1.0.1',
          rateLimitsOf(service.services),
        ),
      ).rejects.toMatchObject({
        status: 401,
      });
    }
    // Even the right password waits now: the limit is on attempts, so guessing cannot continue.
    await expect(
      logIn(
        em(),
        { email: 'dave@example.com', password: 'long enough password' },
        '10.1.0.1',
        rateLimitsOf(service.services),
      ),
    ).rejects.toMatchObject({
      status: 429,
      code: 'too_many_requests',
    });
    // The owner elsewhere is not locked out by those guesses.
    await expect(
      logIn(
        em(),
        { email: 'dave@example.com', password: 'long enough password' },
        '10.1.0.2',
        rateLimitsOf(service.services),
      ),
    ).resolves.toMatchObject({ token: expect.any(String) });
  });

  it('expires sessions', async () => {
    const session = await signUp(em(), { email: 'erin@example.com', password: 'long enough password' });
    await em().nativeUpdate(Session, {}, { expiresAt: new Date(Date.now() - 1000) });
    expect(await authenticateSession(em(), session.token)).toBeNull();
  });

  it('lists and revokes only the account’s own keys', async () => {
    const mine = await signUp(em(), { email: 'frank@example.com', password: 'long enough password' });
    const theirs = await signUp(em(), { email: 'grace@example.com', password: 'long enough password' });
    const a = await createApiKey(em(), mine.accountId, { mode: 'test', name: 'ci' });
    const b = await createApiKey(em(), mine.accountId, { mode: 'live', name: 'prod' });
    const c = await createApiKey(em(), theirs.accountId, { mode: 'test' });
    const listed = await listApiKeys(em(), mine.accountId);
    expect(listed.map((k) => k.id).sort()).toEqual([a.apiKey.id, b.apiKey.id].sort());
    await expect(revokeApiKeyById(em(), mine.accountId, c.apiKey.id)).rejects.toMatchObject({ status: 404 });
    const revoked = await revokeApiKeyById(em(), mine.accountId, a.apiKey.id);
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    const response = await service.request('/api/v1/developer/reports/00000000-0000-4000-8000-000000000000', {
      key: a.key,
    });
    expect(response.status).toBe(401);
  });

  it('changes a report’s share settings and rotates its token, for its owner only', async () => {
    const owner = await signUp(em(), { email: 'heidi@example.com', password: 'long enough password' });
    const other = await signUp(em(), { email: 'ivan@example.com', password: 'long enough password' });
    const { key } = await createApiKey(em(), owner.accountId, { mode: 'test' });
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('small_enterprise-2y-no-cash-flow'),
    });
    const reportId = submitted.body.report_id;
    const before = (await waitForReport(service, key, reportId)).body.share;

    const expiresAt = new Date(Date.now() + 86_400_000);
    const updated = await updateShareSettings(em(), owner.accountId, reportId, {
      isPublic: false,
      expiresAt,
    });
    expect(updated.shareIsPublic).toBe(false);
    const read = (await service.request(`/api/v1/developer/reports/${reportId}`, { key })).body.share;
    expect(read).toMatchObject({ is_public: false, share_expires_at: expiresAt.toISOString() });
    await expect(
      updateShareSettings(em(), owner.accountId, reportId, { expiresAt: new Date(Date.now() - 1000) }),
    ).rejects.toMatchObject({ status: 422 });
    await updateShareSettings(em(), owner.accountId, reportId, { isPublic: true, expiresAt: null });

    const rotated = await rotateShareToken(em(), owner.accountId, reportId);
    expect(rotated.shareToken).not.toBe(before.share_token);
    expect(rotated.shareToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expect(rotateShareToken(em(), other.accountId, reportId)).rejects.toMatchObject({ status: 404 });
    await expect(
      updateShareSettings(em(), other.accountId, reportId, { isPublic: false }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });
});
