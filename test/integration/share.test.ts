/**
 * The public share link: GET /api/v1/shared/reports/:token (no key) and the page route
 * /shared/reports/:token, for valid, unknown, private and expired links; what the JSON must never contain;
 * how the web app's files are served and which paths it must leave to the API.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Report } from '../../server/db/entities/report.entity.ts';
import { WEB_DIST } from '../../server/rest/webRoutes.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Every object key anywhere in a JSON value. */
function keysOf(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const entry of value) keysOf(entry, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, entry] of Object.entries(value)) {
      into.add(key);
      keysOf(entry, into);
    }
  }
  return into;
}

describe('share links', () => {
  let service: TestService;
  let key: string;
  let email: string;
  let reportId: string;
  let enterpriseId: string;
  let token: string;

  const setShare = async (values: { shareIsPublic?: boolean; shareExpiresAt?: Date | null }) => {
    await service.services.db.orm.em.fork().nativeUpdate(Report, { id: reportId }, values);
  };
  const page = (path: string, accept = 'text/html,application/xhtml+xml,*/*;q=0.8') =>
    fetch(`${service.url}${path}`, { headers: { Accept: accept } });

  beforeAll(async () => {
    // Behind one proxy: the client address comes from X-Forwarded-For (the export budget is per address).
    service = await startTestService('postgres', { trustProxy: true, trustProxyHops: 1 });
    email = `owner-${Date.now()}@example.com`;
    key = await service.newKey('test', email);
    const body = fixture('general_new-4y-inconsistent');
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body,
    });
    reportId = submitted.body.report_id;
    enterpriseId = submitted.body.enterprise_id;
    const done = await waitForReport(service, key, reportId);
    token = done.body.share.share_token;
  });
  afterAll(async () => {
    await service?.close();
  });

  it('serves the report by its token, without a key, uncached', async () => {
    const response = await service.request(`/api/v1/shared/reports/${token}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const report = response.body;
    expect(Object.keys(report).sort()).toEqual(
      [
        'name',
        'version_no',
        'accounting_standard',
        'year_start',
        'year_end',
        'years',
        'completed_at',
        'share_expires_at',
        'enterprise_info',
        'sections',
        'total',
        'items',
        'null_reasons',
      ].sort(),
    );
    expect(report).toMatchObject({
      name: '广州示例食品有限公司',
      version_no: 1,
      accounting_standard: 'general_new',
      year_start: 2021,
      year_end: 2024,
      years: [2021, 2022, 2023, 2024],
      share_expires_at: null,
    });
    expect(report.completed_at).toMatch(ISO_UTC);
    expect(report.enterprise_info).toMatchObject({
      province: '浙江省',
      industry_division_code: 'C39',
      is_sme: 1,
    });
    expect(report.sections.map((s: { id: string }) => s.id)).toEqual([
      'core_risk',
      'enterprise_overview',
      'income_statement_analysis',
      'balance_sheet_analysis',
      'cash_flow_analysis',
      'comprehensive_analysis',
      'data_check',
    ]);
    expect(report.total).toBe(report.items.length);

    // Each item is the developer API's item plus what a reader needs to display it.
    const developer = await service.request(`/api/v1/developer/reports/${reportId}/analysis`, { key });
    expect(report.items.map((i: { slug: string }) => i.slug)).toEqual(
      developer.body.items.map((i: { slug: string }) => i.slug),
    );
    for (const [index, item] of report.items.entries()) {
      const { section, kind, fields, risk_rules, ...apiItem } = item;
      expect(apiItem).toEqual(developer.body.items[index]);
      expect(report.sections.map((s: { id: string }) => s.id)).toContain(section);
      expect(['indicator', 'check', 'aggregate']).toContain(kind);
      for (const field of fields) {
        expect(Object.keys(field).sort()).toEqual(['formula', 'key', 'label', 'unit']);
        expect(field.label).toMatch(/[\u4e00-\u9fff]/);
      }
      // The glossary: the rule behind each risk code the item can raise.
      for (const rule of risk_rules) expect(Object.keys(rule).sort()).toEqual(['code', 'description']);
    }
    const revenue = report.items.find((i: { slug: string }) => i.slug === 'revenue');
    expect(revenue.fields).toContainEqual({
      key: 'operating_revenue',
      label: '营业收入',
      unit: '万元',
      formula: expect.stringContaining('营业收入'),
    });
  });

  it('reveals nothing about the account, its keys, ids or other reports', async () => {
    const other = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: { ...fixture('general_new-3y'), enterprise_name: '另一家保密企业' },
    });
    await waitForReport(service, key, other.body.report_id);

    const response = await service.request(`/api/v1/shared/reports/${token}`);
    // `key` is allowed: it names sp_result keys (fields[].key) and statement lines (items[].key).
    const keys = keysOf(response.body);
    for (const forbidden of [
      'account',
      'account_id',
      'email',
      'api_key',
      'key_prefix',
      'mode',
      'report_id',
      'enterprise_id',
      'task_id',
      'share_token',
      'share_url',
      'is_public',
      'validation_warnings',
      'ai_usage',
    ]) {
      expect(keys.has(forbidden), forbidden).toBe(false);
    }
    for (const secret of [
      email,
      key,
      key.slice(0, 16),
      reportId,
      enterpriseId,
      token,
      other.body.report_id,
      '另一家保密企业',
    ]) {
      expect(response.text.includes(secret), secret).toBe(false);
    }
  });

  it('compresses the JSON for clients that accept gzip', async () => {
    const response = await fetch(`${service.url}/api/v1/shared/reports/${token}`, {
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('vary')).toMatch(/Accept-Encoding/i);
    expect((await response.json()).name).toBe('广州示例食品有限公司');
  });

  it('limits Excel exports per client address (10 a minute), a wrong link counting too', async () => {
    const workbook = `/api/v1/shared/reports/${token}/export.xlsx`;
    const wrong = `/api/v1/shared/reports/${'x'.repeat(43)}/export.xlsx`;
    const from = async (address: string, path = workbook) => {
      const response = await fetch(`${service.url}${path}`, { headers: { 'X-Forwarded-For': address } });
      return { response, text: Buffer.from(await response.arrayBuffer()).toString('latin1') };
    };
    const first = await from('203.0.113.7');
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get('ratelimit-policy')).toBe('"share_exports";q=10;w=60');
    expect(first.response.headers.get('ratelimit')).toMatch(/^"share_exports";r=9;t=\d+$/);
    // Guessing links spends the same budget.
    for (let i = 0; i < 8; i++) expect((await from('203.0.113.7', wrong)).response.status).toBe(404);
    expect((await from('203.0.113.7')).response.status).toBe(200);
    const refused = await from('203.0.113.7');
    expect(refused.response.status).toBe(429);
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.response.headers.get('ratelimit')).toMatch(/^"share_exports";r=0;/);
    expect(JSON.parse(refused.text).code).toBe('too_many_requests');
    // Another reader is not held up, and the share page's JSON is not limited.
    expect((await from('198.51.100.4')).response.status).toBe(200);
    expect((await from('203.0.113.7', `/api/v1/shared/reports/${token}`)).response.status).toBe(200);
  });

  it('answers 404 problem+json for an unknown or malformed token', async () => {
    for (const bad of ['A'.repeat(43), 'short', `${token}x`, '..%2F..%2Fetc']) {
      const response = await service.request(`/api/v1/shared/reports/${bad}`);
      expect(response.status, bad).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 404, code: 'not_found' });
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('honours is_public and share_expires_at, on the endpoint and the page', async () => {
    const check = async (status: number) => {
      expect((await service.request(`/api/v1/shared/reports/${token}`)).status).toBe(status);
      const html = await page(`/shared/reports/${token}`);
      expect(html.status).toBe(status);
      expect(html.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await html.text()).toContain('<div id="app">');
    };
    try {
      await setShare({ shareIsPublic: false });
      await check(404);
      await setShare({ shareIsPublic: true, shareExpiresAt: new Date(Date.now() - 1000) });
      await check(404);
      const later = new Date(Date.now() + 3_600_000);
      await setShare({ shareExpiresAt: later });
      await check(200);
      const response = await service.request(`/api/v1/shared/reports/${token}`);
      expect(response.body.share_expires_at).toBe(later.toISOString());
    } finally {
      await setShare({ shareIsPublic: true, shareExpiresAt: null });
    }
    await check(200);
  });

  it('answers the SPA routes with index.html, never cached', async () => {
    for (const [path, status] of [
      ['/', 200],
      ['/console', 200],
      ['/console/keys', 200],
      [`/shared/reports/${token}`, 200],
      ['/shared/reports/unknown-token', 404],
      ['/no-such-page', 404],
    ] as const) {
      const response = await page(path);
      expect(response.status, path).toBe(status);
      expect(response.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(response.headers.get('cache-control'), path).toBe('no-cache');
      expect(response.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(response.headers.get('content-security-policy'), path).toContain("default-src 'self'");
      const html = await response.text();
      expect(html, path).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js">/);
      // Nothing is loaded from the internet (the favicon is a data: URI).
      expect(html, path).not.toMatch(/(src|href)="(https?:)?\/\//);
    }
  });

  it('leaves API paths to the API: JSON 404s, never the SPA', async () => {
    for (const path of ['/api/v1/nope', '/api/v1/shared/reports', '/healthz/x', '/assets/missing-0000.js']) {
      const response = await page(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toMatch(/^application\/problem\+json/);
    }
    const json = await page('/no-such-page', 'application/json');
    expect(json.status).toBe(404);
    expect(json.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('serves hashed assets for a year, precompressed when the client accepts it', async () => {
    const script = readdirSync(join(WEB_DIST, 'assets')).find((name) => /^index-.+\.js$/.test(name));
    expect(script).toBeDefined();
    const plain = await fetch(`${service.url}/assets/${script}`, {
      headers: { 'Accept-Encoding': 'identity' },
    });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-type')).toMatch(/javascript/);
    expect(plain.headers.get('content-encoding')).toBeNull();
    const source = await plain.text();
    const brotli = await fetch(`${service.url}/assets/${script}`, {
      headers: { 'Accept-Encoding': 'br, gzip' },
    });
    expect(brotli.headers.get('content-encoding')).toBe('br');
    expect(brotli.headers.get('content-type')).toMatch(/javascript/);
    expect(await brotli.text()).toBe(source);
  });
});
