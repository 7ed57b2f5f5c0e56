/**
 * The console over HTTP: sign-in endpoints and the session cookie's flags, the CSRF rules, the mode header,
 * the console's GraphQL operations, what an API key may not do, and that one account never sees another's
 * keys or reports.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { Session } from '../../server/db/entities/session.entity.ts';
import { SIGN_UP_LIMIT } from '../../server/rest/consoleRoutes.ts';
import type { ServiceContext } from '../../server/services/context.ts';
import { graphql } from '../helpers/graphql.ts';
import {
  type ApiResponse,
  fixture,
  startTestService,
  type TestService,
  waitForReport,
} from '../helpers/service.ts';

const PASSWORD = 'correct horse battery staple';

interface Browser {
  email: string;
  cookie: string;
  csrf: string;
}

/** The `name=value` part of a response's Set-Cookie header. */
function cookiePair(response: ApiResponse): string {
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

/** Set-Cookie's attributes, lower-cased names → values. */
function cookieAttributes(response: ApiResponse): Record<string, string> {
  const [, ...parts] = response.headers.get('set-cookie')!.split(';');
  return Object.fromEntries(
    parts.map((part) => {
      const [name, value = ''] = part.trim().split('=');
      return [name!.toLowerCase(), value];
    }),
  );
}

/** Starts a second app on the same services, with other settings (e.g. TRUST_PROXY) or fresh limiters. */
async function listen(services: ServiceContext): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = buildApp(services).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}

describe('the console over HTTP', () => {
  let service: TestService;

  beforeAll(async () => {
    // This file signs up far more than 20 accounts from 127.0.0.1: a roomy sign-up budget (throttling is
    // tested below on an app of its own, from an address of its own).
    const { rateLimits } = loadConfig({});
    service = await startTestService('postgres', {
      rateLimits: { ...rateLimits, signup: { points: 10_000, windowSeconds: 3600 } },
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    service.request(`/api/v1/console/${path}`, { method: 'POST', body, headers });

  async function signUp(email = `console-${randomUUID()}@example.com`): Promise<Browser> {
    const response = await post('signup', { email, password: PASSWORD });
    expect(response.status, response.text).toBe(201);
    return { email, cookie: cookiePair(response), csrf: response.body.csrf_token };
  }

  /** GraphQL as the console sends it: cookie, CSRF token, mode. */
  const consoleQuery = (
    who: Browser,
    query: string,
    variables?: Record<string, unknown>,
    mode: 'test' | 'live' = 'test',
  ) =>
    graphql(service, undefined, query, variables, {
      Cookie: who.cookie,
      'X-CSRF-Token': who.csrf,
      'X-Console-Mode': mode,
    });

  const CREATE = `mutation Create($name: String, $mode: ApiKeyMode!) {
    createApiKey(name: $name, mode: $mode) { key apiKey { id name mode prefix lastFour status createdAt lastUsedAt revokedAt } }
  }`;
  const KEYS = '{ apiKeys { id name mode prefix lastFour status revokedAt } }';
  const REPORTS = `{ reports(first: 50) { edges { node {
    reportId name versionNo status createdAt enterprise { name } share { isPublic shareToken shareUrl webUrl shareExpiresAt }
  } } } }`;
  const SHARE = `mutation Share($id: ID!, $isPublic: Boolean, $expiresAt: DateTime) {
    updateReportShare(reportId: $id, isPublic: $isPublic, expiresAt: $expiresAt) { share { isPublic shareToken shareExpiresAt } }
  }`;
  const SHARE_PUBLIC_ONLY = `mutation Share($id: ID!, $isPublic: Boolean) {
    updateReportShare(reportId: $id, isPublic: $isPublic) { share { isPublic shareExpiresAt } }
  }`;
  const ROTATE = `mutation Rotate($id: ID!) { rotateShareToken(reportId: $id) { share { shareToken shareUrl } } }`;
  const REVOKE = `mutation Revoke($id: ID!) { revokeApiKey(id: $id) { id status revokedAt } }`;

  async function createKey(who: Browser, mode: 'test' | 'live' = 'test', name = 'ci') {
    const response = await consoleQuery(who, CREATE, { name, mode });
    expect(response.status, response.text).toBe(200);
    expect(response.body.errors).toBeUndefined();
    return response.body.data.createApiKey as { key: string; apiKey: { id: string } };
  }

  async function submitReport(key: string, enterprise = `控制台企业-${randomUUID()}`) {
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: { ...fixture('small_enterprise-2y-no-cash-flow'), enterprise_name: enterprise },
    });
    expect(submitted.status, submitted.text).toBe(202);
    return (await waitForReport(service, key, submitted.body.report_id)).body;
  }

  describe('sign-in endpoints', () => {
    it('signs up with a cookie that is HttpOnly, SameSite=Strict, Path=/ and lives as long as the session', async () => {
      const email = `Cookie-${randomUUID()}@Example.com `;
      const response = await post('signup', { email, password: PASSWORD });
      expect(response.status).toBe(201);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.body).toEqual({ email: email.trim().toLowerCase(), csrf_token: expect.any(String) });
      expect(response.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(cookiePair(response)).toMatch(/^fra_session=[A-Za-z0-9_-]{43}$/);
      const attributes = cookieAttributes(response);
      expect(attributes).toEqual({
        path: '/',
        'max-age': String(7 * 24 * 3600),
        httponly: '',
        samesite: 'Strict',
      });
      // Plain HTTP: no Secure, or the browser would drop the cookie.
      expect(attributes).not.toHaveProperty('secure');
      // The cookie holds the token; the database only its hash.
      const token = cookiePair(response).split('=')[1]!;
      expect(await service.services.db.orm.em.fork().count(Session, { id: token })).toBe(0);

      const session = await service.request('/api/v1/console/session', {
        headers: { Cookie: cookiePair(response) },
      });
      expect(session.status).toBe(200);
      expect(session.body).toEqual(response.body);
    });

    it('marks the cookie Secure behind a trusted HTTPS proxy, and only then', async () => {
      const trusting = await listen({
        ...service.services,
        config: { ...service.services.config, trustProxy: true },
      });
      const plain = await listen(service.services);
      try {
        const attempt = async (url: string) => {
          const response = await fetch(`${url}/api/v1/console/signup`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-Forwarded-Proto': 'https' },
            body: JSON.stringify({ email: `proxy-${randomUUID()}@example.com`, password: PASSWORD }),
          });
          expect(response.status).toBe(201);
          return response.headers.get('set-cookie')!;
        };
        expect(await attempt(trusting.url)).toMatch(/; Secure$/);
        // Without TRUST_PROXY the header is anyone's to send: it is ignored.
        expect(await attempt(plain.url)).not.toMatch(/Secure/);
      } finally {
        await trusting.close();
        await plain.close();
      }
    });

    it('refuses a taken email (409), a bad email or short password (422), and a body that is not an object', async () => {
      const { email } = await signUp();
      const taken = await post('signup', { email, password: PASSWORD });
      expect(taken.status).toBe(409);
      expect(taken.body).toMatchObject({ code: 'email_taken' });
      expect(taken.headers.get('set-cookie')).toBeNull();
      const short = await post('signup', { email: `x-${randomUUID()}@example.com`, password: 'short' });
      expect(short.status).toBe(422);
      expect(short.body.errors).toEqual([{ path: 'password', message: expect.any(String) }]);
      const badEmail = await post('signup', { email: 'not an email', password: PASSWORD });
      expect(badEmail.body.errors).toEqual([{ path: 'email', message: expect.any(String) }]);
      for (const body of ['[]', 'null', '"text"']) {
        expect((await post('login', body)).status).toBe(422);
      }
      expect((await post('login', '{"email":')).status).toBe(400);
      const form = await post('login', 'email=a', { 'Content-Type': 'application/x-www-form-urlencoded' });
      expect(form.status).toBe(415);
    });

    it('logs in, logs out (clearing the cookie and the session), and needs the CSRF token to log out', async () => {
      const { email } = await signUp();
      const wrong = await post('login', { email, password: 'not the password' });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('set-cookie')).toBeNull();
      const response = await post('login', { email: email.toUpperCase(), password: PASSWORD });
      expect(response.status).toBe(200);
      const who: Browser = { email, cookie: cookiePair(response), csrf: response.body.csrf_token };

      const forged = await post('logout', undefined, { Cookie: who.cookie });
      expect(forged.status).toBe(403);
      expect(forged.body).toMatchObject({ code: 'csrf_failed' });
      expect(
        (await service.request('/api/v1/console/session', { headers: { Cookie: who.cookie } })).status,
      ).toBe(200);

      const out = await post('logout', undefined, { Cookie: who.cookie, 'X-CSRF-Token': who.csrf });
      expect(out.status).toBe(204);
      expect(out.text).toBe('');
      expect(cookiePair(out)).toBe('fra_session=');
      expect(cookieAttributes(out)['max-age']).toBe('0');
      const after = await service.request('/api/v1/console/session', { headers: { Cookie: who.cookie } });
      expect(after.status).toBe(401);
      expect(after.body).toMatchObject({ code: 'unauthenticated' });
      // A stale cookie is cleared; no cookie, nothing to clear.
      expect(cookiePair(after)).toBe('fra_session=');
      const anonymous = await service.request('/api/v1/console/session');
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('set-cookie')).toBeNull();
      // GraphQL with the ended session: 401, so the console returns to its sign-in page.
      const gone = await consoleQuery(who, '{ viewer { email } }');
      expect(gone.status).toBe(401);
      expect(gone.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      // Logging out without a session is harmless and idempotent.
      expect((await post('logout', undefined)).status).toBe(204);
    });

    it('refuses sign-in requests another site sends', async () => {
      const email = `cross-${randomUUID()}@example.com`;
      const crossSite: Array<Record<string, string>> = [
        { Origin: 'https://evil.example' },
        { Origin: 'null' },
        { 'Sec-Fetch-Site': 'cross-site' },
        { 'Sec-Fetch-Site': 'same-site' },
      ];
      for (const headers of crossSite) {
        const response = await post('signup', { email, password: PASSWORD }, headers);
        expect(response.status, JSON.stringify(headers)).toBe(403);
        expect(response.body).toMatchObject({ code: 'csrf_failed' });
      }
      const host = new URL(service.url).host;
      const same = await post(
        'signup',
        { email, password: PASSWORD },
        { Origin: `http://${host}`, 'Sec-Fetch-Site': 'same-origin' },
      );
      expect(same.status).toBe(201);
    });

    it('throttles failed log-ins with 429 and Retry-After', async () => {
      const { email } = await signUp();
      for (let i = 0; i < 10; i++) {
        expect((await post('login', { email, password: `wrong password ${i}` })).status).toBe(401);
      }
      const blocked = await post('login', { email, password: PASSWORD });
      expect(blocked.status).toBe(429);
      expect(blocked.body).toMatchObject({ code: 'too_many_requests' });
      const retryAfter = Number(blocked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    });

    it('throttles sign-ups per client address', async () => {
      // An app with the default sign-up budget behind one trusted proxy; this test's own client address.
      const { config } = service.services;
      const app = await listen({
        ...service.services,
        config: {
          ...config,
          trustProxyHops: 1,
          rateLimits: { ...config.rateLimits, signup: loadConfig({}).rateLimits.signup },
        },
      });
      const address = `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
      try {
        const attempt = () =>
          fetch(`${app.url}/api/v1/console/signup`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': address },
            body: JSON.stringify({ email: 'not an email', password: PASSWORD }),
          });
        for (let i = 0; i < SIGN_UP_LIMIT; i++) expect((await attempt()).status).toBe(422);
        const blocked = await attempt();
        expect(blocked.status).toBe(429);
        expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      } finally {
        await app.close();
      }
    });
  });

  describe('GraphQL with the session cookie', () => {
    it('needs the CSRF token on every request, query or mutation (403 CSRF_FAILED)', async () => {
      const who = await signUp();
      for (const query of ['{ viewer { email } }', 'mutation { createApiKey(mode: test) { key } }']) {
        for (const token of [undefined, 'x'.repeat(43), `${who.csrf}x`]) {
          const headers: Record<string, string> = { Cookie: who.cookie };
          if (token) headers['X-CSRF-Token'] = token;
          const response = await graphql(service, undefined, query, undefined, headers);
          expect(response.status, query).toBe(403);
          expect(response.body.data).toBeUndefined();
          expect(response.body.errors).toEqual([
            { message: expect.stringMatching(/X-CSRF-Token/), extensions: { code: 'CSRF_FAILED' } },
          ]);
        }
      }
      // Nothing was created by the refused mutations.
      expect((await consoleQuery(who, KEYS)).body.data.apiKeys).toEqual([]);
    });

    it('tells who is signed in and works in the mode of X-Console-Mode', async () => {
      const who = await signUp();
      expect((await consoleQuery(who, '{ viewer { email mode } }')).body.data.viewer).toEqual({
        email: who.email,
        mode: 'test',
      });
      const live = await consoleQuery(who, '{ viewer { mode } }', undefined, 'live');
      expect(live.body.data.viewer.mode).toBe('live');
      const bad = await graphql(service, undefined, '{ viewer { mode } }', undefined, {
        Cookie: who.cookie,
        'X-CSRF-Token': who.csrf,
        'X-Console-Mode': 'production',
      });
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');

      // Reports follow the mode: a live key's report is listed in live mode only.
      const testKey = await createKey(who, 'test');
      const liveKey = await createKey(who, 'live');
      const testReport = await submitReport(testKey.key);
      const liveReport = await submitReport(liveKey.key);
      const ids = async (mode: 'test' | 'live') =>
        (await consoleQuery(who, REPORTS, undefined, mode)).body.data.reports.edges.map(
          (edge: { node: { reportId: string } }) => edge.node.reportId,
        );
      expect(await ids('test')).toEqual([testReport.report_id]);
      expect(await ids('live')).toEqual([liveReport.report_id]);
    });

    it('creates a key (shown once), lists it by prefix and last four, revokes it for the next request', async () => {
      const who = await signUp();
      const created = await createKey(who, 'test', '  CI 流水线  ');
      expect(created.key).toMatch(/^ek_test_[A-Za-z0-9_-]{43}$/);
      expect(created.apiKey).toMatchObject({
        name: 'CI 流水线',
        mode: 'test',
        prefix: created.key.slice(0, 12),
        lastFour: created.key.slice(-4),
        status: 'active',
        lastUsedAt: null,
        revokedAt: null,
      });
      const report = await submitReport(created.key);
      expect(report.status).toBe('success');

      const listed = await consoleQuery(who, KEYS);
      expect(listed.body.data.apiKeys).toEqual([
        expect.objectContaining({ id: created.apiKey.id, status: 'active', lastFour: created.key.slice(-4) }),
      ]);
      // The list never carries the key itself.
      expect(listed.text).not.toContain(created.key.slice(12, 40));
      const used = await consoleQuery(who, '{ apiKeys { lastUsedAt } }');
      expect(used.body.data.apiKeys[0].lastUsedAt).toEqual(expect.any(String));

      // In the console's reports list with enterprise, version, status, created and share.
      const reports = await consoleQuery(who, REPORTS);
      expect(reports.body.data.reports.edges).toEqual([
        {
          node: expect.objectContaining({
            reportId: report.report_id,
            name: report.name,
            versionNo: 1,
            status: 'success',
            enterprise: { name: report.name },
            share: expect.objectContaining({ isPublic: true, shareToken: report.share.share_token }),
          }),
        },
      ]);

      const revoked = await consoleQuery(who, REVOKE, { id: created.apiKey.id });
      expect(revoked.body.data.revokeApiKey).toMatchObject({
        status: 'revoked',
        revokedAt: expect.any(String),
      });
      const refused = await service.request(`/api/v1/developer/reports/${report.report_id}`, {
        key: created.key,
      });
      expect(refused.status).toBe(401);
      expect(refused.body.detail).toMatch(/revoked/);
      // Revoking again changes nothing; an unknown or malformed id is NOT_FOUND.
      const again = await consoleQuery(who, REVOKE, { id: created.apiKey.id });
      expect(again.body.data.revokeApiKey.revokedAt).toBe(revoked.body.data.revokeApiKey.revokedAt);
      for (const id of [randomUUID(), 'nope']) {
        const missing = await consoleQuery(who, REVOKE, { id });
        expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
      }
      const invalid = await consoleQuery(who, CREATE, { name: 'x'.repeat(101), mode: 'test' });
      expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED' });
    });

    it('opens and closes a share link, sets and clears its expiry, and rotates its token', async () => {
      const who = await signUp();
      const { key } = await createKey(who);
      const report = await submitReport(key);
      const id = report.report_id;
      const token = report.share.share_token;
      const shared = (t: string) => service.request(`/api/v1/shared/reports/${t}`);
      expect((await shared(token)).status).toBe(200);

      const closed = await consoleQuery(who, SHARE, { id, isPublic: false });
      expect(closed.body.data.updateReportShare.share).toMatchObject({ isPublic: false, shareToken: token });
      expect((await shared(token)).status).toBe(404);
      await consoleQuery(who, SHARE, { id, isPublic: true });
      expect((await shared(token)).status).toBe(200);

      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const expiring = await consoleQuery(who, SHARE, { id, expiresAt });
      expect(expiring.body.data.updateReportShare.share).toMatchObject({
        isPublic: true,
        shareExpiresAt: expiresAt,
      });
      // Not given: left as it is. Given as null: cleared.
      const kept = await consoleQuery(who, SHARE_PUBLIC_ONLY, { id, isPublic: true });
      expect(kept.body.data.updateReportShare.share.shareExpiresAt).toBe(expiresAt);
      const cleared = await consoleQuery(who, SHARE, { id, expiresAt: null });
      expect(cleared.body.data.updateReportShare.share.shareExpiresAt).toBeNull();
      const past = await consoleQuery(who, SHARE, {
        id,
        expiresAt: new Date(Date.now() - 60_000).toISOString(),
      });
      expect(past.body.errors[0].extensions).toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [{ path: 'expiresAt', message: expect.any(String) }],
      });
      const local = await consoleQuery(who, SHARE, { id, expiresAt: '2099-01-01T08:00:00+08:00' });
      expect(local.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');

      const rotated = await consoleQuery(who, ROTATE, { id });
      const fresh = rotated.body.data.rotateShareToken.share;
      expect(fresh.shareToken).not.toBe(token);
      expect(fresh.shareUrl).toBe(`/shared/reports/${fresh.shareToken}`);
      expect((await shared(token)).status).toBe(404);
      expect((await shared(fresh.shareToken)).status).toBe(200);
    });
  });

  describe('what an API key may not do', () => {
    it('answers FORBIDDEN for every console-only field, and changes nothing', async () => {
      const who = await signUp();
      const { key, apiKey } = await createKey(who);
      const report = await submitReport(key);
      for (const [query, variables] of [
        ['{ viewer { email } }', undefined],
        ['{ apiKeys { id } }', undefined],
        ['mutation { createApiKey(mode: live) { key } }', undefined],
        [REVOKE, { id: apiKey.id }],
        [SHARE, { id: report.report_id, isPublic: false }],
        [ROTATE, { id: report.report_id }],
      ] as const) {
        const response = await graphql(service, key, query, variables);
        expect(response.status, query).toBe(200);
        expect(response.body.errors).toEqual([
          expect.objectContaining({ extensions: { code: 'FORBIDDEN' }, path: [expect.any(String)] }),
        ]);
      }
      // The key still reads its reports over GraphQL.
      const own = await graphql(service, key, REPORTS);
      expect(own.body.data.reports.edges).toHaveLength(1);
      // Nothing changed: one key, active; the link still open with its token.
      const keys = (await consoleQuery(who, KEYS)).body.data.apiKeys;
      expect(keys).toEqual([expect.objectContaining({ id: apiKey.id, status: 'active' })]);
      const shared = await service.request(`/api/v1/shared/reports/${report.share.share_token}`);
      expect(shared.status).toBe(200);
    });

    it('uses the key, not the cookie, when both are sent', async () => {
      const who = await signUp();
      const { key } = await createKey(who);
      const response = await graphql(service, key, '{ apiKeys { id } }', undefined, {
        Cookie: who.cookie,
        'X-CSRF-Token': who.csrf,
      });
      expect(response.body.errors[0].extensions.code).toBe('FORBIDDEN');
    });
  });

  describe('tenancy', () => {
    it('never shows one account another account’s keys or reports, nor lets it change them', async () => {
      const alice = await signUp();
      const bob = await signUp();
      const aliceKey = await createKey(alice);
      const aliceReport = await submitReport(aliceKey.key);
      const bobKey = await createKey(bob);

      const bobKeys = (await consoleQuery(bob, KEYS)).body.data.apiKeys;
      expect(bobKeys.map((k: { id: string }) => k.id)).toEqual([bobKey.apiKey.id]);
      expect((await consoleQuery(bob, REPORTS)).body.data.reports.edges).toEqual([]);
      const read = await consoleQuery(bob, 'query R($id: ID!) { report(id: $id) { name } }', {
        id: aliceReport.report_id,
      });
      expect(read.body.errors[0].extensions.code).toBe('NOT_FOUND');

      for (const [query, variables] of [
        [REVOKE, { id: aliceKey.apiKey.id }],
        [SHARE, { id: aliceReport.report_id, isPublic: false }],
        [ROTATE, { id: aliceReport.report_id }],
      ] as const) {
        const response = await consoleQuery(bob, query, variables);
        expect(response.body.errors[0].extensions.code, query).toBe('NOT_FOUND');
      }
      // Alice's key and link are untouched.
      expect((await consoleQuery(alice, KEYS)).body.data.apiKeys[0].status).toBe('active');
      const shared = await service.request(`/api/v1/shared/reports/${aliceReport.share.share_token}`);
      expect(shared.status).toBe(200);
    });

    it('ends with the session: an expired session is 401', async () => {
      const who = await signUp();
      await service.services.db.orm.em
        .fork()
        .nativeUpdate(Session, {}, { expiresAt: new Date(Date.now() - 1) });
      const response = await consoleQuery(who, '{ viewer { email } }');
      expect(response.status).toBe(401);
      expect(response.body.errors[0].message).toMatch(/sign in again/);
    });
  });
});
