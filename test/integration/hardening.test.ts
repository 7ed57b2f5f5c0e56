/**
 * No single request, caller or burst can hurt the service (issue 11), against the real app on PostgreSQL:
 * bounded validation (the amplification body), compressed bodies, clean text, sign-in throttling that holds
 * under concurrency, TRUST_PROXY hops, GraphQL aliases and AI mutations, body timeouts and early rejections,
 * X-Request-Id and nosniff.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { createApiKey } from '../../server/services/apiKeys.ts';
import { graphql } from '../helpers/graphql.ts';
import { fixture, startTestService, type TestService } from '../helpers/service.ts';

const SUBMIT = '/api/v1/developer/reports/financial';
const LOGIN = '/api/v1/console/login';
const SIGNUP = '/api/v1/console/signup';
const PASSWORD = 'correct horse battery staple';

/** The outside tester's body: one year with `sheets` income sheets of 300 empty items. */
function amplificationBody(sheets: number): string {
  const items = `[${Array.from({ length: 300 }, () => '{}').join(',')}]`;
  const sheet = `{"sheet_type":"income","items":${items}}`;
  return `{"accounting_standard":"general_new","year_start":2020,"year_end":2021,"years_data":[{"year":2020,"sheets":[${Array.from({ length: sheets }, () => sheet).join(',')}]}]}`;
}

/** Raw HTTP/1.1 over a socket: what came back, and whether the server closed the connection. */
function rawExchange(
  port: number,
  head: string,
  body: string,
  options: { stallMs?: number } = {},
): Promise<{ response: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let response = '';
    let closed = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      response += chunk;
    });
    socket.on('error', reject);
    socket.on('end', () => {
      closed = true;
    });
    socket.on('close', () => resolve({ response, closed }));
    socket.write(head + body);
    // Keep the socket open (a client that never finishes its body) until the server acts or time is up.
    setTimeout(() => {
      if (!closed) socket.destroy();
    }, options.stallMs ?? 5_000);
  });
}

describe('hardening', () => {
  let service: TestService;
  let key: string;
  let port: number;

  beforeAll(async () => {
    const { rateLimits } = loadConfig({});
    service = await startTestService('postgres', {
      trustProxyHops: 1,
      bodyTimeoutMs: 1_000,
      headersTimeoutMs: 1_000,
      rateLimits: { ...rateLimits, signup: { points: 10_000, windowSeconds: 3600 } },
    });
    key = await service.newKey('test');
    port = Number(new URL(service.url).port);
  });
  afterAll(async () => {
    await service?.close();
  });

  describe('bounded validation', () => {
    it('answers the 8,900-sheet gzip body with a small 4xx while /healthz keeps answering', async () => {
      const gzipped = gzipSync(amplificationBody(8_900));
      expect(gzipped.length).toBeLessThan(30_000);
      const pending = fetch(`${service.url}${SUBMIT}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'X-API-Key': key },
        body: gzipped,
      });
      const health = await fetch(`${service.url}/healthz`);
      expect(health.status).toBe(200);
      const response = await pending;
      const text = await response.text();
      // 8.3 MB inflated, just under the 8 MiB limit: the over-long sheets array is one error, its elements unread.
      expect(response.status).toBe(422);
      expect(JSON.parse(text).errors).toContainEqual({
        path: 'years_data[0].sheets',
        message: 'must hold at most 3 sheets',
      });
      expect(text.length).toBeLessThan(2_000);
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    });

    it('stops inflating a compressed body at the limit: 413', async () => {
      const gzipped = gzipSync(amplificationBody(12_000));
      expect(gzipped.length).toBeLessThan(1024 * 1024);
      const response = await fetch(`${service.url}${SUBMIT}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'X-API-Key': key },
        body: gzipped,
      });
      const text = await response.text();
      expect(response.status).toBe(413);
      expect(JSON.parse(text)).toMatchObject({ code: 'payload_too_large' });
      expect(text.length).toBeLessThan(1_000);
    });

    it('returns at most 100 errors, says how many more, and stays under 64 kB whatever the input', async () => {
      const body = fixture('general_new-3y');
      const long = 'k'.repeat(2_000);
      for (const year of body.years_data) {
        for (const sheet of year.sheets) {
          sheet.items = Array.from({ length: 300 }, (_, i) => ({
            item_name: `\u0000${i}`,
            current_year_amount: 'x'.repeat(1000),
            [`${long}${i}`]: 'y',
          }));
        }
      }
      const response = await service.request(SUBMIT, { method: 'POST', key, body });
      expect(response.status).toBe(422);
      expect(response.body.errors).toHaveLength(100);
      expect(response.body.errors_truncated).toBe(true);
      expect(response.body.errors_omitted).toBeGreaterThan(100);
      expect(response.text.length).toBeLessThan(64 * 1024);
    });

    it('bounds the same input over GraphQL: VALIDATION_FAILED, not a stack overflow', async () => {
      const sheets = Array.from({ length: 5_000 }, () => ({
        sheet_type: 'income',
        items: Array.from({ length: 20 }, () => ({ item_name: 'x', current_year_amount: 'y' })),
      }));
      const input = {
        accounting_standard: 'general_new',
        year_start: 2020,
        year_end: 2021,
        years_data: [{ year: 2020, sheets }],
      };
      const response = await graphql(
        service,
        key,
        'mutation($input: SubmitFinancialReportInput!) { submitFinancialReport(input: $input) { reportId } }',
        { input },
      );
      expect(response.status).toBeLessThan(500);
      const codes = response.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code);
      expect(codes).not.toContain('INTERNAL_SERVER_ERROR');
      expect(codes).toContain('VALIDATION_FAILED');
      expect(response.text.length).toBeLessThan(64 * 1024);
    });
  });

  describe('compressed bodies', () => {
    it('accepts gzip and zstd, refuses an unknown Content-Encoding with 415 and a problem body', async () => {
      const text = JSON.stringify(fixture('general_new-3y'));
      for (const [encoding, body] of [
        ['gzip', gzipSync(text)],
        ['zstd', zstdCompressSync(text)],
      ] as const) {
        const response = await fetch(`${service.url}${SUBMIT}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding, 'X-API-Key': key },
          body,
        });
        expect(response.status, encoding).toBe(202);
      }
      const unknown = await fetch(`${service.url}${SUBMIT}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'compress', 'X-API-Key': key },
        body: text,
      });
      expect(unknown.status).toBe(415);
      expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await unknown.json()).toMatchObject({ code: 'unsupported_content_encoding' });
    });
  });

  describe('clean text', () => {
    const BAD = { nul: 'A\u0000B', surrogate: 'A\ud800B', control: 'A\u0007B' };

    it.each(Object.entries(BAD))(
      'rejects %s in every submission text field, naming it',
      async (_kind, bad) => {
        const targets: Array<[string, (body: ReturnType<typeof fixture>) => void]> = [
          ['enterprise_name', (b) => (b.enterprise_name = bad)],
          [
            'years_data[0].sheets[0].items[0].item_name',
            (b) => (b.years_data[0]!.sheets[0]!.items[0]!.item_name = bad),
          ],
          ['enterprise_info.city', (b) => (b.enterprise_info = { city: bad })],
        ];
        for (const [path, apply] of targets) {
          const body = fixture('general_new-3y');
          apply(body);
          const response = await service.request(SUBMIT, { method: 'POST', key, body: JSON.stringify(body) });
          expect(response.status, path).toBe(422);
          expect(
            response.body.errors.map((e: { path: string }) => e.path),
            path,
          ).toContain(path);
        }
      },
    );

    it.each(Object.entries(BAD))(
      'rejects %s in the console email and password, signed in or not',
      async (_kind, bad) => {
        for (const path of [LOGIN, SIGNUP]) {
          const email = await service.request(path, {
            method: 'POST',
            body: { email: `a${bad}@example.com`, password: PASSWORD },
          });
          expect(email.status, path).toBe(422);
          expect(email.body.errors, path).toEqual([{ path: 'email', message: expect.any(String) }]);
          const password = await service.request(path, {
            method: 'POST',
            body: { email: `clean-${randomUUID()}@example.com`, password: `${PASSWORD}${bad}` },
          });
          expect(password.status, path).toBe(422);
          expect(password.body.errors, path).toEqual([{ path: 'password', message: expect.any(String) }]);
        }
      },
    );

    it('never answers 5xx for control characters or broken UTF-8 in path segments and headers', async () => {
      const id = randomUUID();
      for (const bad of ['%00', '%ED%A0%80', '%FF', '%07x', '%C0%80']) {
        for (const path of [
          `/api/v1/developer/reports/${bad}`,
          `/api/v1/developer/tasks/${bad}`,
          `/api/v1/developer/reports/${id}/analysis/${bad}`,
          `/api/v1/shared/reports/${bad}`,
        ]) {
          const response = await service.request(path, { key });
          expect(response.status, path).toBeLessThan(500);
        }
      }
    });

    it('rejects a bad key name in the service, and bad GraphQL arguments and variables with 422', async () => {
      const em = service.services.db.orm.em.fork();
      const accountId = (await service.services.db.orm.em
        .fork()
        .getConnection()
        .execute('select id from accounts limit 1')) as Array<{ id: string }>;
      await expect(
        createApiKey(em, accountId[0]!.id, { mode: 'test', name: 'ci\u0000' }),
      ).rejects.toMatchObject({
        status: 422,
        errors: [{ path: 'name' }],
      });
      const literal = await graphql(service, key, '{ report(id: "a\\u0000b") { reportId } }');
      expect(literal.status).toBe(422);
      expect(literal.body.errors[0].extensions).toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [{ path: 'id', message: expect.stringContaining('NUL') }],
      });
      const input = { ...fixture('general_new-3y'), enterprise_name: 'x\ud800' };
      const variable = await graphql(
        service,
        key,
        'mutation($input: SubmitFinancialReportInput!) { submitFinancialReport(input: $input) { reportId } }',
        { input },
      );
      expect(variable.status).toBe(422);
      expect(variable.body.errors[0].extensions.errors).toEqual([
        { path: 'input.enterprise_name', message: expect.stringContaining('surrogate') },
      ]);
    });
  });

  describe('sign-in throttling', () => {
    const login = (email: string, password: string, client: string) =>
      service.request(LOGIN, {
        method: 'POST',
        body: { email, password },
        headers: { 'X-Forwarded-For': client },
      });

    it('lets at most the limit of 100 concurrent guesses through; the owner elsewhere still signs in', async () => {
      const email = `owner-${randomUUID()}@example.com`;
      expect(
        (await service.request(SIGNUP, { method: 'POST', body: { email, password: PASSWORD } })).status,
      ).toBe(201);
      const stranger = '203.0.113.9';
      const guesses = await Promise.all(
        Array.from({ length: 100 }, (_, i) => login(email, `wrong guess number ${i}`, stranger)),
      );
      const statuses = guesses.map((r) => r.status);
      const unauthorised = statuses.filter((s) => s === 401).length;
      expect(unauthorised).toBeLessThanOrEqual(10);
      expect(statuses.filter((s) => s === 429).length).toBe(100 - unauthorised);
      const retryAfter = Number(guesses.find((r) => r.status === 429)!.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      // The right password from the stranger's address waits for the window…
      expect((await login(email, PASSWORD, stranger)).status).toBe(429);
      // …while the owner, from another address, is not locked out by the stranger's guesses alone.
      expect((await login(email, PASSWORD, '198.51.100.20')).status).toBe(200);
    });

    it('takes the client address from the right-most X-Forwarded-For entry with TRUST_PROXY=1', async () => {
      const email = `xff-${randomUUID()}@example.com`;
      await service.request(SIGNUP, { method: 'POST', body: { email, password: PASSWORD } });
      // The left-most entries are the client's to choose: varying them does not make a new client.
      for (let i = 0; i < 10; i++) {
        expect((await login(email, `wrong ${i} attempt!`, `10.0.${i}.1, 192.0.2.50`)).status).toBe(401);
      }
      expect((await login(email, PASSWORD, '10.9.9.9, 192.0.2.50')).status).toBe(429);
      expect((await login(email, PASSWORD, '192.0.2.50, 192.0.2.51')).status).toBe(200);
    });
  });

  describe('passwords', () => {
    it('refuses weak passwords with a Chinese reason', async () => {
      const cases: Array<[string, RegExp]> = [
        ['password1234', /常见/],
        ['aaaaaaaaaaaaaaaa', /重复/],
        ['abcdefghijklmn', /连续/],
        ['short', /10 到 200/],
      ];
      for (const [password, why] of cases) {
        const response = await service.request(SIGNUP, {
          method: 'POST',
          body: { email: `weak-${randomUUID()}@example.com`, password },
        });
        expect(response.status, password).toBe(422);
        expect(response.body.errors, password).toEqual([
          { path: 'password', message: expect.stringMatching(why) },
        ]);
      }
    });
  });

  describe('GraphQL limits', () => {
    it('caps aliases: 250 aliases of catalogue, or 31 small ones, are refused before anything runs', async () => {
      const aliases = (n: number, field: string) =>
        `{ ${Array.from({ length: n }, (_, i) => `c${i}: ${field}`).join(' ')} }`;
      const huge = await graphql(service, key, aliases(250, 'catalogue { items { slug } }'));
      expect(huge.status).toBe(400);
      expect(huge.body.data).toBeUndefined();
      expect(huge.text.length).toBeLessThan(10_000);
      const many = await graphql(service, key, aliases(31, 'catalogue { riskLevels }'));
      expect(many.status).toBe(400);
      expect(many.body.data).toBeUndefined();
      expect(many.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual([
        'TOO_MANY_ALIASES',
      ]);
      expect(
        (await graphql(service, key, aliases(30, 'catalogue { riskLevels }'))).body.errors,
      ).toBeUndefined();
    });

    it('counts the catalogue lists by their real size', async () => {
      const one = 'catalogue { items { fields { key } riskRules { tiers { level } } } lineItems { key } }';
      const query = `{ ${Array.from({ length: 20 }, (_, i) => `c${i}: ${one}`).join(' ')} }`;
      const response = await graphql(service, key, query);
      expect(response.status).toBe(400);
      expect(response.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    });

    it('allows at most one AI-generating mutation field per request', async () => {
      const query = `mutation { a: generateAiAnalysis(reportId: "${randomUUID()}") { slug } b: generateAiAnalysis(reportId: "${randomUUID()}") { slug } }`;
      const response = await graphql(service, key, query);
      expect(response.status).toBe(400);
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors[0].extensions.code).toBe('TOO_MANY_AI_MUTATIONS');
    });
  });

  describe('timeouts and connections', () => {
    it('answers 408 with a problem body when the body does not arrive in time', async () => {
      const head =
        `POST ${SUBMIT} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `X-API-Key: ${key}\r\nContent-Length: 1000\r\n\r\n`;
      const { response, closed } = await rawExchange(port, head, '{"accounting_standard":');
      expect(response).toMatch(/^HTTP\/1\.1 408 /);
      expect(response).toMatch(/"code":"request_timeout"/);
      expect(response.toLowerCase()).toContain('connection: close');
      expect(closed).toBe(true);
    });

    it('answers 408 and closes the connection when the headers do not arrive in time', async () => {
      // The request line and one header, never the blank line that ends the headers.
      const { response, closed } = await rawExchange(
        port,
        'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n',
        '',
        {
          stallMs: 10_000,
        },
      );
      expect(response).toMatch(/^HTTP\/1\.1 408 /);
      expect(closed).toBe(true);
    });

    it.each([
      ['401 (no key)', '', 401],
      ['415 (another media type)', `X-API-Key: {key}\r\nContent-Type: text/plain\r\n`, 415],
      ['413 (declared too large)', `X-API-Key: {key}\r\nContent-Type: application/json\r\n`, 413],
    ])(
      'closes the connection of a request refused before its body is read: %s',
      async (_name, headers, status) => {
        const length = status === 413 ? 100 * 1024 * 1024 : 100_000;
        const head = `POST ${SUBMIT} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.replace('{key}', key)}Content-Length: ${length}\r\n\r\n`;
        const { response, closed } = await rawExchange(port, head, '{"a":', { stallMs: 3_000 });
        expect(response).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
        expect(response.toLowerCase()).toContain('connection: close');
        expect(closed).toBe(true);
      },
    );
  });

  describe('headers', () => {
    it('accepts a safe X-Request-Id and replaces an unsafe one', async () => {
      const safe = await service.request('/healthz', { headers: { 'X-Request-Id': 'req-42.abc:1_x' } });
      expect(safe.headers.get('x-request-id')).toBe('req-42.abc:1_x');
      for (const unsafe of ['a b', '<script>', 'x'.repeat(200), 'é']) {
        const response = await new Promise<string | undefined>((resolve, reject) => {
          const req = httpRequest(
            `${service.url}/healthz`,
            { headers: { 'X-Request-Id': unsafe } },
            (res) => {
              res.resume();
              resolve(res.headers['x-request-id'] as string | undefined);
            },
          );
          req.on('error', reject);
          req.end();
        });
        expect(response, unsafe).toMatch(/^[0-9a-f-]{36}$/);
      }
    });

    it('sends X-Content-Type-Options: nosniff on every response', async () => {
      for (const path of ['/healthz', '/api/v1/developer/reports/x', '/nowhere', '/api/v1/openapi.json']) {
        const response = await service.request(path, { key });
        expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      }
      const gql = await graphql(service, key, '{ __typename }');
      expect(gql.headers.get('x-content-type-options')).toBe('nosniff');
    });
  });
});
