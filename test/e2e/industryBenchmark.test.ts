/**
 * 行业对标 (industry_benchmark) on the share page, in Chromium against the real server on PostgreSQL: the real BYD
 * filing FY2016–19 submitted as 汽车制造业 (C36) and once with no industry code at all. On a phone (375 × 812) and
 * a desktop: the card is there, one row per benchmarked indicator (the REST item's rows, line for line) with the
 * enterprise's value, the set's name, edition and data year and a position bar; every 退档 (fallback) the engine
 * states is shown; nothing in the card is wider than the phone; axe finds no serious or critical violation in it.
 * Screenshots: test/artifacts/industry-benchmark-*.png.
 */
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkRow } from '../../worker/engine/industryBenchmark.ts';
import {
  ARTIFACTS,
  axeViolations,
  DESKTOP,
  launchChromium,
  PHONE,
  requireChromium,
} from '../helpers/browser.ts';
import {
  type SubmissionBody,
  startTestService,
  type TestService,
  waitForReport,
} from '../helpers/service.ts';

type Name = 'c36' | 'none';

const CARD = '#item-industry_benchmark';

/** The real BYD filing, as 汽车制造业 (C36) or with every industry field removed. */
function byd(name: Name): SubmissionBody {
  const body: SubmissionBody = JSON.parse(
    readFileSync(new URL('../fixtures/real/byd-2016-2019.json', import.meta.url), 'utf8'),
  );
  const info = { ...(body.enterprise_info as Record<string, unknown>) };
  for (const field of [
    'industry_sector_code',
    'industry_sector',
    'industry_division_code',
    'industry_division',
  ])
    delete info[field];
  if (name === 'c36') info.industry_division_code = 'C36';
  return { ...body, enterprise_name: `比亚迪（${name}）`, enterprise_info: info };
}

/** The figure as the card writes it (zh-CN grouping, at most 2 decimals, the unit after). */
const fmt = (v: number | null, unit: string) =>
  v === null ? '—' : `${v.toLocaleString('zh-CN', { maximumFractionDigits: 2 })}${unit}`;

interface Sp {
  industry: { code: string | null; name: string | null; level: string; basis: string };
  rows: BenchmarkRow[];
  sets_used: { set_id: string; set_name: string; edition: string; data_year: number | null }[];
}

/** The lines the card draws for a row: one per benchmark figure, one more for the peers' distribution. */
const linesOf = (row: BenchmarkRow) => row.benchmarks.length + (row.peers?.quantiles ? 1 : 0);

describe('行业对标 on the share page', { timeout: 180_000 }, () => {
  let service: TestService;
  let browser: Browser;
  const reports = {} as Record<Name, { token: string; sp: Sp }>;

  async function submit(name: Name) {
    const key = await service.newKey('test');
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: byd(name),
    });
    expect(submitted.status, submitted.text).toBe(202);
    const id = submitted.body.report_id;
    const done = await waitForReport(service, key, id, 90_000);
    expect(done.body.status).toBe('success');
    const item = await service.request(`/api/v1/developer/reports/${id}/analysis/industry_benchmark`, {
      key,
    });
    expect(item.status, item.text).toBe(200);
    reports[name] = { token: done.body.share.share_token, sp: item.body.sp_result };
  }

  /** The share page with every card rendered, the 行业对标 card in view. */
  async function open(name: Name, options: BrowserContextOptions): Promise<Page> {
    const page = await (await browser.newContext(options)).newPage();
    await page.goto(`${service.url}/shared/reports/${reports[name].token}`, { waitUntil: 'networkidle' });
    await page.waitForSelector('.report-layout[data-complete=true]');
    await page.$eval(CARD, (card) => card.scrollIntoView());
    return page;
  }

  beforeAll(async () => {
    requireChromium();
    service = await startTestService('postgres');
    await submit('c36');
    await submit('none');
    browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('the engine matched C36 to its section and found no industry without a code', () => {
    const c36 = reports.c36.sp;
    expect(c36.industry.code).toBe('C36');
    expect(c36.rows.filter((r) => linesOf(r) > 0).length).toBeGreaterThan(0);
    // The built-in NBS figures are at 门类 level: C36 falls back to 门类 C, and says so.
    const fallbacks = c36.rows.flatMap((r) => r.benchmarks.map((b) => b.fallback ?? ''));
    expect(fallbacks.some((f) => f.includes('采用门类C'))).toBe(true);
    const none = reports.none.sp;
    expect(none.industry.code).toBeNull();
    expect(none.rows.filter((r) => linesOf(r) > 0).length).toBeGreaterThan(0);
    for (const row of none.rows) for (const b of row.benchmarks) expect(b.level).toBe('all');
  });

  for (const name of ['c36', 'none'] as const) {
    for (const [viewport, options] of [
      ['phone', PHONE],
      ['desktop', DESKTOP],
    ] as const) {
      it(`shows one row per benchmarked indicator, as the REST item has them (${name}, ${viewport})`, async () => {
        const { sp } = reports[name];
        const page = await open(name, options);
        const card = page.locator(CARD);
        expect(await card.count()).toBe(1);
        expect(await card.locator('h3').textContent()).toBe('行业对标');
        // The section contents link to the card.
        expect(await page.$$eval(`a[href="${CARD}"]`, (all) => all.length)).toBeGreaterThan(0);

        const lines = await card.locator('li.bm-row').evaluateAll((all) =>
          all.map((li) => ({
            indicator: li.getAttribute('data-indicator')!,
            label: li.querySelector('.bm-label')!.textContent!.trim(),
            value: li.querySelector('.bm-value')!.textContent!.trim(),
            figure: li.querySelector('.bm-figure')!.textContent!.replace(/\s+/g, ' ').trim(),
            source: li.querySelector('.bm-source')!.textContent!.trim(),
            bar: li.querySelector('.bm-bar[role=img]')?.getAttribute('aria-label') ?? null,
            marker: (li.querySelector('.bm-marker') as HTMLElement | null)?.style.left ?? null,
            markerBox: (() => {
              const bar = li.querySelector('.bm-bar')?.getBoundingClientRect();
              const marker = li.querySelector('.bm-marker')?.getBoundingClientRect();
              return bar && marker
                ? { bar: [bar.left, bar.right, bar.width], at: marker.left + marker.width / 2 }
                : null;
            })(),
            position: li.querySelector('.bm-position small')!.textContent!.trim(),
          })),
        );

        // Rows: the REST item's benchmarked rows, in order, each with as many lines as figures (+ peers).
        const benchmarked = sp.rows.filter((r) => linesOf(r) > 0);
        const expected = benchmarked.flatMap((row) =>
          [
            ...row.benchmarks.map((b) => ({ row, set: b as (typeof row.benchmarks)[number] | null })),
            ...(row.peers?.quantiles ? [{ row, set: null }] : []),
          ].map((line, i) => ({ ...line, first: i === 0 })),
        );
        expect(lines.length).toBe(expected.length);
        expect([...new Set(lines.map((l) => l.indicator))]).toEqual(benchmarked.map((r) => r.indicator));

        lines.forEach((line, i) => {
          const { row, set, first } = expected[i]!;
          const what = `${row.indicator} line ${i}`;
          expect(line.indicator, what).toBe(row.indicator);
          // The indicator and the enterprise's value on its first line.
          expect(line.label, what).toBe(first ? row.label : '');
          expect(line.value, what).toBe(first ? fmt(row.value, row.unit) : '');
          // The set's name, edition and data year (or the peers' scope).
          if (set) {
            expect(line.source, what).toContain(set.set_name);
            expect(line.source, what).toContain(set.edition);
            if (set.data_year) expect(line.source, what).toContain(`${set.data_year}年`);
            expect(line.source, what).toContain(set.level_label);
          } else expect(line.source, what).toContain('本账户同业');
          expect(line.figure.length, what).toBeGreaterThan(line.source.length);
          // The position: a bar whose marker sits at the engine's 0–100, and its words.
          const position = set ? set.position : row.peers!.position;
          expect(line.position, what).toBe(position?.label ?? '—');
          if (position?.bar !== null && position?.bar !== undefined) {
            expect(line.bar, what).toBe(`位置 ${position.bar}（0 最差，100 最好）`);
            expect(line.marker, what).toBe(`${position.bar}%`);
            const [left, right, width] = line.markerBox!.bar as [number, number, number];
            expect(width, `${what}: the bar is drawn`).toBeGreaterThan(40);
            expect(line.markerBox!.at, what).toBeGreaterThanOrEqual(left - 1);
            expect(line.markerBox!.at, what).toBeLessThanOrEqual(right + 1);
            expect(Math.abs(line.markerBox!.at - (left + (width * position.bar) / 100)), what).toBeLessThan(
              2,
            );
          } else expect(line.bar, what).toBeNull();
        });
        expect(lines.filter((l) => l.bar !== null).length).toBeGreaterThan(0);
        // BYD has most figures (a missing one, e.g. 利息保障倍数 without interest expense, reads —).
        expect(benchmarked.filter((r) => r.value !== null).length).toBeGreaterThan(benchmarked.length / 2);

        // Every set the report used is named in the card; every 退档 the engine states is shown.
        const text = (await card.textContent())!.replace(/\s+/g, ' ');
        for (const set of sp.sets_used) expect(text).toContain(set.set_name);
        const notes = await card.locator('.bm-notes p').allTextContents();
        const fallbacks = [
          ...new Set(sp.rows.flatMap((r) => r.benchmarks.map((b) => b.fallback).filter((f) => !!f))),
        ];
        for (const fallback of fallbacks) expect(notes).toContain(`退档：${fallback}。`);
        expect(notes.filter((n) => n.startsWith('退档：')).length).toBe(fallbacks.length);
        if (name === 'c36') {
          expect(text).toContain('行业：汽车制造业（C36）');
          // The NBS figures are the 门类 C's, the SASAC ones all industries': both fallbacks are stated.
          expect(
            notes.some((n) => n.startsWith('退档：大类C36无此指标基准，采用门类C（')),
            notes.join('\n'),
          ).toBe(true);
          expect(
            notes.some((n) => n.startsWith('退档：大类C36无此指标基准，采用全行业')),
            notes.join('\n'),
          ).toBe(true);
        } else expect(text).toContain('行业：未识别');

        // Nothing wider than the screen: the card, everything in it, and the page.
        const overflow = await page.$eval(CARD, (el) => {
          const box = el.getBoundingClientRect();
          const wide = [el, ...el.querySelectorAll('*')]
            .filter((e) => {
              const r = e.getBoundingClientRect();
              return (
                e.scrollWidth > e.clientWidth + 1 ||
                (r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1))
              );
            })
            .map(
              (e) =>
                `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}: ${e.textContent!.slice(0, 40)}`,
            );
          const doc = document.documentElement;
          return { wide, page: doc.scrollWidth - doc.clientWidth, right: box.right - window.innerWidth };
        });
        expect(overflow.wide).toEqual([]);
        expect(overflow.page).toBeLessThanOrEqual(1);
        expect(overflow.right).toBeLessThanOrEqual(1);
        if (viewport === 'phone') {
          // Stacked on a phone: the figure and the bar take the whole width under the label and value.
          const stacked = await card
            .locator('li.bm-row')
            .first()
            .evaluate((li) => {
              const row = li.getBoundingClientRect();
              const bar = li.querySelector('.bm-position')!.getBoundingClientRect();
              return bar.width / row.width;
            });
          expect(stacked).toBeGreaterThan(0.9);
        }

        // axe on the card: no serious or critical violation.
        const axe = await axeViolations(page).include(CARD).analyze();
        const found = axe.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.nodes.length}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
        expect(found).toEqual([]);

        await card.screenshot({ path: `${ARTIFACTS}industry-benchmark-${name}-${viewport}.png` });
        await page.context().close();
      });
    }
  }
});
