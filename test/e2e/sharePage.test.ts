/**
 * The share page in a real browser: Debian's Chromium driven by playwright-core (never a downloaded browser)
 * against the real server. Opens a share link on a desktop and on a 375 px phone, checks the enterprise
 * name, every section, every chart's canvas (drawn, not blank), risks and AI text, that nothing is fetched
 * from the internet, printing, and the 404 view. Screenshots land in test/artifacts/ (git-ignored).
 */
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisResult } from '../../server/db/entities/analysisResult.entity.ts';
import { Report } from '../../server/db/entities/report.entity.ts';
import type { SharedReport } from '../../web/src/api/types.ts';
import { chartForItem } from '../../web/src/charts/registry.ts';
import {
  ARTIFACTS,
  DESKTOP,
  launchChromium,
  nextFrames,
  PHONE,
  requireChromium,
} from '../helpers/browser.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const SECTION_LABELS = [
  '核心风险洞察',
  '企业概况',
  '利润表分析',
  '资产负债表分析',
  '现金流量表分析',
  '综合经营分析',
  '数据核对',
];
const AI_TEXT =
  '营业收入连续四年增长，2024年增速放缓至2.33%。\n管理费用增幅明显高于收入增幅，建议关注费用管控。';

interface Visit {
  page: Page;
  status: number;
  requests: string[];
  problems: string[];
}

describe('share page in Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let token: string;
  let reportId: string;
  let report: SharedReport;

  async function visit(path: string, options: BrowserContextOptions): Promise<Visit> {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    const response = await page.goto(`${service.url}${path}`, { waitUntil: 'networkidle' });
    return { page, status: response?.status() ?? 0, requests, problems };
  }

  /** Every chart on the page: its item, canvas size and how many of its pixels are painted. */
  const charts = (page: Page) =>
    page.$$eval('.chart', (elements) =>
      elements.map((element) => {
        const canvas = element.querySelector('canvas');
        const slug = element.closest('[data-slug]')?.getAttribute('data-slug') ?? '';
        if (!canvas) return { slug, width: 0, height: 0, painted: 0 };
        const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
        return { slug, width: canvas.width, height: canvas.height, painted };
      }),
    );

  /** Scrolls the page down a screen at a time (drawing the charts as a reader would), then back to the top. */
  async function scrollThrough(page: Page) {
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    const step = await page.evaluate(() => window.innerHeight);
    for (let y = 0; y < height; y += step) {
      await page.evaluate((top) => window.scrollTo({ top, behavior: 'instant' }), y);
      // Two animation frames: the page has rendered at this position, so the IntersectionObserver has seen
      // what is in view (a fixed 60 ms wait let a loaded machine scroll past a chart before any frame).
      await nextFrames(page);
    }
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.chart')].every((c) => c.querySelector('canvas')),
    );
    await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }));
  }

  async function expectFullReport({ page, status, requests, problems }: Visit) {
    expect(status).toBe(200);
    await page.waitForSelector('[data-testid=enterprise-name]');
    expect(await page.textContent('[data-testid=enterprise-name]')).toBe(report.name);
    expect(await page.title()).toBe(`${report.name} · 财务分析报告`);
    expect(await page.$$eval('.report-section > h2', (hs) => hs.map((h) => h.textContent?.trim()))).toEqual(
      SECTION_LABELS,
    );
    for (const item of report.items) {
      if (item.section === 'core_risk') continue;
      expect(await page.$(`#item-${item.slug}`), item.slug).not.toBeNull();
    }

    // First screen: real risks per level (1 danger, 3 warnings), then data gaps (OCI and EPS lines not
    // submitted) and strengths (Altman safe zone) apart.
    const counts = await page.$$eval('[data-testid=risk-counts] .count-n', (ns) =>
      ns.map((n) => Number(n.textContent)),
    );
    expect(counts).toEqual([1, 3, 0, 2, 1]);
    // Core risk insight: real risks grouped by level, each naming its module; data gaps listed apart.
    expect(await page.$$eval('.risk-group', (gs) => gs.map((g) => g.getAttribute('data-level')))).toEqual([
      'danger',
      'warning',
    ]);
    // The danger is among the summary's top risks, said there once; its group says so.
    expect(await page.textContent('[data-testid=top-risks]')).toContain('利润表数据核对');
    expect(await page.textContent('.risk-group--danger')).toContain('见摘要');
    expect(await page.textContent('[data-testid=data-gaps]')).toContain('每股收益');

    // Charts are drawn as they come into view: none far below the first screen yet, every one after scrolling.
    expect(await page.$eval('#item-comparative .chart', (e) => e.getAttribute('data-drawn'))).toBe('false');
    await scrollThrough(page);
    await page.waitForTimeout(700); // chart animations (400 ms)
    const expected = report.items.filter((item) => chartForItem(item)).map((item) => item.slug);
    const drawn = await charts(page);
    expect(drawn.map((chart) => chart.slug)).toEqual(expected);
    for (const chart of drawn) {
      expect(chart.width, chart.slug).toBeGreaterThan(100);
      expect(chart.height, chart.slug).toBeGreaterThan(100);
      expect(chart.painted, chart.slug).toBeGreaterThan(500);
    }

    // Indicators with units, risks coloured by level, mismatches as a table, AI text where there is some.
    const revenue = await page.textContent('#item-revenue table');
    expect(revenue).toContain('营业收入万元');
    expect(revenue).toContain('11,715.65');
    // Every submitted year, newest first, the change against the prior year beside the latest.
    const newest = [...report.years].reverse().map((year) => `${year}年`);
    expect(
      await page.$$eval('#item-revenue thead th', (ths) => ths.map((th) => th.textContent?.trim())),
    ).toEqual(['指标', newest[0], '较上年', ...newest.slice(1)]);
    expect(await page.textContent('#item-revenue .ai')).toContain('管理费用增幅明显高于收入增幅');
    expect(await page.textContent('#item-income_statement table[data-list=mismatches]')).toContain(
      '营业收入',
    );
    const danger = await page.$eval(
      '#item-income_statement .risk--danger',
      (e) => getComputedStyle(e).backgroundColor,
    );
    const warning = await page.$eval(
      '#item-expense .risk--warning',
      (e) => getComputedStyle(e).backgroundColor,
    );
    expect(danger).not.toBe(warning);

    // Nothing from the internet, no errors, nothing wider than the screen.
    for (const url of requests)
      expect(url.startsWith(service.url) || url.startsWith('data:'), url).toBe(true);
    expect(problems).toEqual([]);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
  }

  beforeAll(async () => {
    requireChromium();
    service = await startTestService('postgres');
    const key = await service.newKey('test');
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('general_new-4y-inconsistent'),
    });
    reportId = submitted.body.report_id;
    token = (await waitForReport(service, key, reportId)).body.share.share_token;
    const em = service.services.db.orm.em.fork();
    for (const slug of ['core_risk_insight', 'revenue']) {
      await em.nativeUpdate(AnalysisResult, { report: reportId, slug }, { aiContent: AI_TEXT });
    }
    report = (await service.request(`/api/v1/shared/reports/${token}`)).body;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('shows the whole report on a desktop', async () => {
    const visit1 = await visit(`/shared/reports/${token}`, DESKTOP);
    await expectFullReport(visit1);
    const { page } = visit1;
    // The section nav is a sidebar here: always open.
    expect(await page.isVisible('.section-nav-list')).toBe(true);
    expect(await page.isVisible('.section-nav-toggle')).toBe(false);
    await page.screenshot({ path: `${ARTIFACTS}share-desktop-top.png` });
    await page.screenshot({ path: `${ARTIFACTS}share-desktop.png`, fullPage: true });
    await page.context().close();
  });

  it('reads on a 375 px phone, with a collapsing section nav', async () => {
    const visit2 = await visit(`/shared/reports/${token}`, PHONE);
    await expectFullReport(visit2);
    const { page } = visit2;
    expect(await page.isVisible('.section-nav-toggle')).toBe(true);
    expect(await page.isVisible('.section-nav-list')).toBe(false);
    await page.screenshot({ path: `${ARTIFACTS}share-mobile-top.png` });
    await page.tap('.section-nav-toggle');
    expect(await page.isVisible('.section-nav-list')).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}share-mobile-nav.png` });
    await page.tap('.section-nav-list a.nav-section >> text=数据核对');
    expect(await page.isVisible('.section-nav-list')).toBe(false);
    await expect.poll(() => page.evaluate(() => window.scrollY), { timeout: 5000 }).toBeGreaterThan(5000);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${ARTIFACTS}share-mobile.png`, fullPage: true });
    await page.context().close();
  });

  it('folds long tables past their first ten rows and unfolds them on request', async () => {
    const { page } = await visit(`/shared/reports/${token}`, DESKTOP);
    await page.waitForSelector('[data-testid=enterprise-name]');
    // Every foldable table shows ten rows and hides the rest; its button names how many are hidden.
    const tables = await page.$$eval('button.fold', (buttons) =>
      buttons.map((button) => {
        const table = button.parentElement!.querySelector('table')!;
        const rows = [...table.querySelectorAll('tbody tr')];
        const visible = rows.filter((row) => getComputedStyle(row).display !== 'none').length;
        return { text: button.textContent!.trim(), rows: rows.length, visible };
      }),
    );
    expect(tables.length).toBeGreaterThan(0);
    for (const table of tables) {
      expect(table.rows).toBeGreaterThan(12);
      expect(table.visible).toBe(10);
      expect(table.text).toContain(`展开其余 ${table.rows - 10} 项`);
    }
    const button = page.locator('button.fold').first();
    const hidden = button.locator('xpath=..').locator('tbody tr.row-collapsed');
    expect(await hidden.count()).toBe(tables[0]!.rows - 10);
    await button.click();
    expect(await hidden.count()).toBe(0);
    expect((await button.textContent())?.trim()).toBe('收起');
    await button.click();
    expect(await hidden.count()).toBe(tables[0]!.rows - 10);
    await page.context().close();
  });

  it('prints with a cover, without navigation, keeping titles with their content and charts drawn', async () => {
    const { page } = await visit(`/shared/reports/${token}`, DESKTOP);
    await page.waitForSelector('[data-testid=enterprise-name]');
    expect(await page.isVisible('[data-testid=print-cover]')).toBe(false);
    await page.emulateMedia({ media: 'print' });
    await page.evaluate(() => window.dispatchEvent(new Event('beforeprint')));
    expect(await page.isVisible('.section-nav')).toBe(false);
    expect(await page.isVisible('.header-actions')).toBe(false);
    expect(await page.textContent('[data-testid=print-cover]')).toContain(report.name);
    expect(await page.$eval('#item-revenue .card-head', (e) => getComputedStyle(e).breakAfter)).toBe('avoid');
    // On paper a picture of the chart drawn for its print size stands in for the canvas: the print event
    // makes the pictures not made yet (this test prints before the page is idle), charts far below included.
    await page.waitForSelector('#item-comparative .chart-box.has-print-picture', { state: 'attached' });
    expect(await page.isVisible('#item-revenue .chart-picture')).toBe(true);
    expect(await page.isVisible('#item-revenue .chart')).toBe(false);
    // Folded table rows are printed too.
    expect(
      await page.$eval('#item-distress_signals tbody tr:last-child', (e) => getComputedStyle(e).display),
    ).toBe('table-row');
    await page.screenshot({ path: `${ARTIFACTS}share-print.png` });
    await page.pdf({ path: `${ARTIFACTS}share.pdf`, format: 'A4', printBackground: true });
    await page.context().close();
  });

  it('answers an unknown, private or expired link with 404 and the not-found view', async () => {
    const unknown = await visit(`/shared/reports/${'x'.repeat(43)}`, PHONE);
    expect(unknown.status).toBe(404);
    await unknown.page.waitForSelector('[data-testid=not-found]');
    expect(await unknown.page.textContent('h1')).toBe('报告不存在或链接已失效');
    await unknown.page.screenshot({ path: `${ARTIFACTS}share-not-found.png` });
    await unknown.page.context().close();

    const em = service.services.db.orm.em.fork();
    try {
      for (const change of [
        { shareIsPublic: false },
        { shareIsPublic: true, shareExpiresAt: new Date(Date.now() - 1) },
      ]) {
        await em.nativeUpdate(Report, { id: reportId }, change);
        const { page, status } = await visit(`/shared/reports/${token}`, DESKTOP);
        expect(status).toBe(404);
        await page.waitForSelector('[data-testid=not-found]');
        expect(await page.$('[data-testid=enterprise-name]')).toBeNull();
        await page.context().close();
      }
    } finally {
      await em.nativeUpdate(Report, { id: reportId }, { shareIsPublic: true, shareExpiresAt: null });
    }

    // The console is an SPA route too: without a session it shows its sign-in page (test/e2e/console.test.ts).
    const console = await visit('/console', DESKTOP);
    expect(console.status).toBe(200);
    await console.page.waitForSelector('[data-testid=auth-form]');
    expect(new URL(console.page.url()).pathname).toBe('/console/login');
    await console.page.context().close();
  });
});
