/**
 * Starts the real service (HTTP, database, pg-boss, Piscina pool) in the test process on a free port, and
 * gives tests a small HTTP client and tenant factory.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { type Config, loadConfig } from '../../server/config.ts';
import { type RunningService, startService } from '../../server/runtime.ts';
import { createApiKey, findOrCreateAccount } from '../../server/services/apiKeys.ts';
import { type Backend, createTestDatabase, type TestDatabase } from './database.ts';

export const FIXTURES = [
  'general_new-3y',
  'small_enterprise-2y-no-cash-flow',
  'general_old-5y-ai',
  'general_new-4y-inconsistent',
] as const;
export type FixtureName = (typeof FIXTURES)[number];

/** A submission body as the fixtures hold it; loose enough for tests to break it on purpose. */
export interface SubmissionBody {
  [field: string]: unknown;
  enterprise_name?: string;
  accounting_standard: string;
  year_start: number;
  year_end: number;
  years_data: Array<{
    year: number;
    sheets: Array<{ sheet_type: string; items: Array<Record<string, string | null>> }>;
  }>;
}

export function fixture(name: FixtureName): SubmissionBody {
  return JSON.parse(readFileSync(new URL(`../fixtures/${name}.json`, import.meta.url), 'utf8'));
}

export function testConfig(db: TestDatabase, overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    databaseUrl: db.databaseUrl,
    dataDir: db.dataDir,
    port: 0,
    host: '127.0.0.1',
    logLevel: 'silent',
    poolThreads: 2,
    jobConcurrency: 4,
    // Tests stop their services at once; the drain has its own test (processes.test.ts).
    shutdownDrainMs: 0,
    ...overrides,
  };
}

export interface TestService extends RunningService {
  db: TestDatabase;
  /** Creates an account with one key of the given mode; returns the full key. */
  newKey(mode?: 'test' | 'live', email?: string): Promise<string>;
  request(
    path: string,
    init?: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on whatever JSON came back
  body: any;
  text: string;
}

export async function startTestService(
  backend: Backend,
  overrides: Partial<Config> = {},
): Promise<TestService> {
  const db = await createTestDatabase(backend);
  const running = await startService(testConfig(db, overrides), pino({ level: 'silent' }));
  const service: TestService = {
    ...running,
    db,
    async newKey(mode = 'test', email = `user-${randomUUID()}@example.com`) {
      const em = running.services.db.orm.em.fork();
      const accountId = await findOrCreateAccount(em, email);
      return (await createApiKey(em, accountId, { mode })).key;
    },
    async request(path, init = {}) {
      const headers: Record<string, string> = { ...(init.headers ?? {}) };
      if (init.key) headers['X-API-Key'] = init.key;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['Content-Type'] ??= 'application/json';
      }
      const response = await fetch(`${running.url}${path}`, { method: init.method ?? 'GET', headers, body });
      const text = await response.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    async close() {
      await running.stop();
      await db.drop();
    },
  };
  return service;
}

/** Polls a report until it leaves `pending` (the spec's client loop, with a short interval for tests). */
export async function waitForReport(service: TestService, key: string, reportId: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await service.request(`/api/v1/developer/reports/${reportId}`, { key });
    if (response.status !== 200) throw new Error(`GET report answered ${response.status}: ${response.text}`);
    if (response.body.status !== 'pending') return response;
    if (Date.now() > deadline) throw new Error(`report ${reportId} still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
