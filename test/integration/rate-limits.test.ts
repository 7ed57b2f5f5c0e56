/**
 * Per-key rate limits on the developer API and GraphQL (issue 11, contract 5), counted in PostgreSQL: the IETF
 * RateLimit-Policy / RateLimit headers on every response, 429 problem bodies with Retry-After, test and live
 * keys apart, and one budget shared by two app instances on the same database. Small budgets by configuration.
 */
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { leaseSize, RateLimits } from '../../server/lib/rateLimits.ts';
import { graphql } from '../helpers/graphql.ts';
import { type ApiResponse, fixture, startTestService, type TestService } from '../helpers/service.ts';

const READS = 5;
const SUBMISSIONS = 2;
const AI = 2;

/** The account ceiling's policy, after the key's (the defaults: this file sizes only the per-key budgets). */
const { accountRateLimits } = loadConfig({});
const accountPolicy = (budget: 'reads' | 'submissions' | 'ai_regeneration') =>
  `"${budget}_account";q=${accountRateLimits[budget].points};w=${Math.ceil(accountRateLimits[budget].windowSeconds)}`;

describe.each(['postgres', 'pglite'] as const)('per-key rate limits on %s', (backend) => {
  let service: TestService;

  beforeAll(async () => {
    const { rateLimits } = loadConfig({});
    service = await startTestService(backend, {
      rateLimits: {
        ...rateLimits,
        reads: { points: READS, windowSeconds: 60 },
        submissions: { points: SUBMISSIONS, windowSeconds: 60 },
        ai_regeneration: { points: AI, windowSeconds: 3600 },
      },
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  const read = (key: string, url = service.url) =>
    fetch(`${url}/api/v1/developer/catalogue`, { headers: { 'X-API-Key': key } });

  it('sends RateLimit-Policy and RateLimit on every answer, then 429 with Retry-After', async () => {
    const key = await service.newKey('test');
    for (let i = 0; i < READS; i++) {
      const response = await read(key);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe(
        `"reads";q=${READS};w=60, ${accountPolicy('reads')}`,
      );
      expect(response.headers.get('ratelimit')).toMatch(
        new RegExp(`^"reads";r=${READS - 1 - i};t=\\d+, "reads_account";r=\\d+;t=\\d+$`),
      );
    }
    const refused = await read(key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await refused.json()).toMatchObject({ status: 429, code: 'too_many_requests' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit')).toMatch(/^"reads";r=0;t=\d+, "reads_account";r=\d+;t=\d+$/);
    // GraphQL with the same key shares the budget.
    const overGraphql = await graphql(service, key, '{ __typename }');
    expect(overGraphql.status).toBe(429);
  });

  it('gives a test key and a live key of one account budgets of their own', async () => {
    const email = `modes-${crypto.randomUUID()}@example.com`;
    const test = await service.newKey('test', email);
    const live = await service.newKey('live', email);
    for (let i = 0; i < READS; i++) expect((await read(test)).status).toBe(200);
    expect((await read(test)).status).toBe(429);
    expect((await read(live)).status).toBe(200);
  });

  it('shares one budget between two app instances on the same database', async () => {
    // A second app with its own limiter objects (another config object), on the same database.
    const second: Server = buildApp({ ...service.services, config: { ...service.services.config } }).listen(
      0,
      '127.0.0.1',
    );
    await new Promise((resolve) => second.once('listening', resolve));
    const secondUrl = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
    try {
      const key = await service.newKey('test');
      const statuses: number[] = [];
      for (let i = 0; i < READS + 2; i++)
        statuses.push((await read(key, i % 2 ? secondUrl : service.url)).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(READS);
      expect(statuses.slice(READS)).toEqual([429, 429]);
    } finally {
      await new Promise((resolve) => second.close(resolve));
    }
  });

  it('limits submissions per key, REST and GraphQL together, before reading the body', async () => {
    const key = await service.newKey('test');
    const submit = () =>
      service.request('/api/v1/developer/reports/financial', { method: 'POST', key, body: { nothing: 1 } });
    const first = await submit();
    expect(first.status).toBe(422);
    expect(first.headers.get('ratelimit-policy')).toBe(
      `"submissions";q=${SUBMISSIONS};w=60, ${accountPolicy('submissions')}`,
    );
    const mutation = await graphql(
      service,
      key,
      'mutation($input: SubmitFinancialReportInput!) { submitFinancialReport(input: $input) { reportId } }',
      { input: fixture('general_new-3y') },
    );
    expect(mutation.body.errors).toBeUndefined();
    const refused: ApiResponse = await submit();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('limits AI regeneration per key per hour, REST and GraphQL together', async () => {
    const key = await service.newKey('test');
    const id = crypto.randomUUID();
    const rest = () =>
      service.request(`/api/v1/developer/reports/${id}/ai-analysis`, { method: 'POST', key });
    const first = await rest();
    expect(first.status).toBe(404);
    expect(first.headers.get('ratelimit-policy')).toBe(
      `"ai_regeneration";q=${AI};w=3600, ${accountPolicy('ai_regeneration')}`,
    );
    const viaGraphql = await graphql(
      service,
      key,
      `mutation { generateAiAnalysis(reportId: "${id}") { slug } }`,
    );
    expect(viaGraphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const refused = await rest();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    const refusedGraphql = await graphql(
      service,
      key,
      `mutation { generateAiAnalysis(reportId: "${id}") { slug } }`,
    );
    expect(refusedGraphql.body.errors[0].extensions.code).toBe('TOO_MANY_REQUESTS');
  });
});

/**
 * Leases (server/lib/rateLimits.ts consumeFor): a budget of short window is reserved in the database a lease at a
 * time and spent from memory, never granted past what the database counted.
 */
describe('rate-limit leases on postgres', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('postgres');
  });
  afterAll(async () => {
    await service?.close();
  });

  const sizes = (points: number, windowSeconds: number) => {
    const { rateLimits, accountRateLimits } = loadConfig({});
    return {
      perKey: { ...rateLimits, reads: { points, windowSeconds } },
      perAccount: { ...accountRateLimits, reads: { points: points * 10, windowSeconds } },
    };
  };
  const counter = async (subject: string) => {
    const digest = createHash('sha256').update(subject).digest('base64url');
    const rows = await service.services.db.orm.em
      .getConnection()
      .execute<Array<{ points: number }>>('select points from rate_limits where key = ?', [
        `reads:${digest}`,
      ]);
    return Number(rows[0]?.points ?? 0);
  };

  it('reserves a tenth of a short window per statement and keeps the RateLimit header exact', async () => {
    const { perKey, perAccount } = sizes(100, 2);
    expect(leaseSize(perKey.reads, perAccount.reads)).toBe(10);
    const limits = new RateLimits(service.services.db, perKey, perAccount);
    const spender = { subject: `lease-${crypto.randomUUID()}`, accountId: crypto.randomUUID() };
    const remaining: number[] = [];
    for (let i = 0; i < 25; i++) remaining.push((await limits.consumeFor('reads', spender)).remaining);
    expect(remaining).toEqual(Array.from({ length: 25 }, (_, i) => 99 - i));
    // Three leases of ten were counted: three statements for 25 requests, and the database never behind.
    expect(await counter(spender.subject)).toBe(30);
  });

  it('counts a long window a point at a time', async () => {
    const { perKey, perAccount } = sizes(100, 60);
    expect(leaseSize(perKey.reads, perAccount.reads)).toBe(1);
    const limits = new RateLimits(service.services.db, perKey, perAccount);
    const spender = { subject: `exact-${crypto.randomUUID()}`, accountId: crypto.randomUUID() };
    for (let i = 0; i < 7; i++) await limits.consumeFor('reads', spender);
    expect(await counter(spender.subject)).toBe(7);
  });

  it('never grants more than the budget over two processes, and holds back at most a lease each', async () => {
    const { perKey, perAccount } = sizes(100, 5);
    const processes = [0, 1].map(() => new RateLimits(service.services.db, perKey, perAccount));
    const spender = { subject: `race-${crypto.randomUUID()}`, accountId: crypto.randomUUID() };
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => processes[i % 2]!.consumeFor('reads', spender)),
    );
    const granted = results.filter((r) => r.allowed).length;
    expect(granted).toBeLessThanOrEqual(100);
    expect(granted).toBeGreaterThanOrEqual(100 - 2 * (leaseSize(perKey.reads, perAccount.reads) - 1));
    const refused = results.find((r) => !r.allowed)!;
    expect(refused.remaining).toBe(0);
    expect(refused.resetSeconds).toBeGreaterThan(0);
  });
});
