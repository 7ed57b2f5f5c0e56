/**
 * The report a credit committee accepts, in Chromium against the real server, on two real filings (Gree and
 * BYD FY2016–19) and the 3- and 5-year fixtures: the latest year in view on a phone and a desktop, amounts a
 * person reads, every label Chinese and every unit right, reasons under empty cards, the phone's details,
 * printing (page.pdf alone; the print dialog's media and event first; and a print that sends no event and no
 * media-change notification at all: every chart drawn whole for its place on paper, checked on the PDF's pages
 * rendered to images), an Excel workbook that stands alone, and the hint for a report without interpretation. Screenshots, PDFs and page images: test/artifacts/committee-*.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatNumber } from '../../web/src/lib/format.ts';
import {
  ARTIFACTS,
  axeViolations,
  DESKTOP,
  launchChromium,
  PHONE,
  requireChromium,
} from '../helpers/browser.ts';
import {
  fixture,
  type SubmissionBody,
  startTestService,
  type TestService,
  waitForReport,
} from '../helpers/service.ts';

type Name = 'gree' | 'byd' | 'three' | 'five' | 'mixed';

const real = (name: string): SubmissionBody =>
  JSON.parse(readFileSync(new URL(`../fixtures/real/${name}.json`, import.meta.url), 'utf8'));

/** A grey PDF page image (pdftoppm -gray, binary PGM). */
interface Gray {
  width: number;
  height: number;
  pixels: Uint8Array;
}

function readPgm(file: string): Gray {
  const data = readFileSync(file);
  const header = data.subarray(0, 64).toString('latin1').split(/\s+/);
  const [, width, height, max] = header;
  const offset =
    data.indexOf(`${max}\n`, 2 + String(width).length + String(height).length) + `${max}\n`.length;
  return { width: Number(width), height: Number(height), pixels: data.subarray(offset) };
}

/** The PDF's pages as grey images at 72 dpi (one pixel a point); also the page images left in test/artifacts/. */
async function renderPages(pdf: string, prefix: string): Promise<Gray[]> {
  const ours = (file: string) => file.startsWith(`${prefix}-`) && /-\d+\.pgm$/.test(file);
  for (const file of readdirSync(ARTIFACTS)) if (ours(file)) rmSync(`${ARTIFACTS}${file}`);
  await promisify(execFile)('pdftoppm', ['-r', '72', '-gray', pdf, `${ARTIFACTS}${prefix}`]);
  return readdirSync(ARTIFACTS)
    .filter(ours)
    .sort()
    .map((file) => readPgm(`${ARTIFACTS}${file}`));
}

interface Band {
  page: number;
  top: number;
  bottom: number;
  left: number;
  right: number;
  changed: number;
}

/**
 * Where two renderings of the same PDF differ (the charts drawn vs hidden), as bands of rows on each page:
 * rows apart by less than `gap` points belong to one band (one chart: legend, plot and axis labels).
 */
function chartBands(drawn: Gray[], hidden: Gray[], gap = 36): Band[] {
  const bands: Band[] = [];
  drawn.forEach((page, index) => {
    const other = hidden[index]!;
    let band: Band | null = null;
    let lastRow = -1000;
    for (let y = 0; y < page.height; y++) {
      let left = -1;
      let right = -1;
      let changed = 0;
      for (let x = 0; x < page.width; x++) {
        const i = y * page.width + x;
        if (Math.abs(page.pixels[i]! - other.pixels[i]!) > 24) {
          if (left < 0) left = x;
          right = x;
          changed++;
        }
      }
      if (changed === 0) continue;
      if (band && y - lastRow <= gap) {
        band.bottom = y;
        band.left = Math.min(band.left, left);
        band.right = Math.max(band.right, right);
        band.changed += changed;
      } else {
        band = { page: index + 1, top: y, bottom: y, left, right, changed };
        bands.push(band);
      }
      lastRow = y;
    }
  });
  return bands;
}

const PRINT_MODES = {
  pdf: 'page.pdf alone, early',
  dialog: 'print dialog, early',
  silent: 'no print event, no media-change notification',
} as const;
type PrintMode = keyof typeof PRINT_MODES;

/**
 * An init script: the page's print listeners are never called. `beforeprint`/`afterprint` listeners and
 * handlers are dropped, and so are change listeners on any `matchMedia` query that mentions print.
 */
function SILENT_PRINT() {
  const isPrintEvent = (target: unknown, type: string) =>
    (target === window && (type === 'beforeprint' || type === 'afterprint')) ||
    (target instanceof MediaQueryList && type === 'change' && target.media.includes('print'));
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (
    this: EventTarget,
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: boolean | AddEventListenerOptions,
  ) {
    if (!isPrintEvent(this, type)) add.call(this, type, listener, options);
  };
  const addListener = MediaQueryList.prototype.addListener;
  MediaQueryList.prototype.addListener = function (this: MediaQueryList, listener) {
    if (!this.media.includes('print')) addListener.call(this, listener);
  };
  const ignored = { get: () => null, set: () => {}, configurable: true };
  Object.defineProperty(window, 'onbeforeprint', ignored);
  Object.defineProperty(window, 'onafterprint', ignored);
  Object.defineProperty(MediaQueryList.prototype, 'onchange', ignored);
}

/**
 * An init script: a page whose main thread is never idle. `requestIdleCallback` calls back only at its
 * timeout (as a browser does when there is no idle time), so what the page does when idle comes late.
 */
function NEVER_IDLE() {
  window.requestIdleCallback = (callback, options) =>
    window.setTimeout(
      () => callback({ didTimeout: true, timeRemaining: () => 0 }),
      options?.timeout ?? 10_000,
    );
}

describe('the report a credit committee accepts', () => {
  let service: TestService;
  let browser: Browser;
  const tokens = {} as Record<Name, string>;

  async function submit(name: Name, body: SubmissionBody) {
    const key = await service.newKey('test');
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body,
    });
    expect(submitted.status, submitted.text).toBe(202);
    const done = await waitForReport(service, key, submitted.body.report_id, 60_000);
    expect(done.body.status).toBe('success');
    tokens[name] = done.body.share.share_token;
  }

  /** The page with every card rendered (the progressive render done). */
  async function open(name: Name, options: BrowserContextOptions): Promise<Page> {
    const page = await (await browser.newContext(options)).newPage();
    await page.goto(`${service.url}/shared/reports/${tokens[name]}`, { waitUntil: 'networkidle' });
    await page.waitForSelector('.report-layout[data-complete=true]');
    return page;
  }

  /**
   * One page a report and screen, shared by the tests that read it (and scroll it at most): opened once,
   * closed with the browser. The tests that click, print or audit open their own.
   */
  const shown = new Map<string, Promise<Page>>();
  function view(name: Name, options: BrowserContextOptions): Promise<Page> {
    const key = `${name} ${options.viewport!.width}`;
    if (!shown.has(key)) shown.set(key, open(name, options));
    return shown.get(key)!;
  }

  beforeAll(async () => {
    requireChromium();
    service = await startTestService('postgres');
    await submit('gree', real('gree-2016-2019'));
    await submit('byd', real('byd-2016-2019'));
    await submit('three', fixture('general_new-3y'));
    await submit('five', fixture('general_old-5y-ai'));
    // Deliberate cross-year inconsistencies: risks of more than one level (danger and warnings).
    await submit('mixed', fixture('general_new-4y-inconsistent'));
    browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  for (const [viewport, options] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    it(`shows the latest year and its change first in every year-by-year table (${viewport})`, async () => {
      for (const name of ['gree', 'five'] as const) {
        const page = await view(name, options);
        const tables = await page.$$eval('table[data-years]', (all) =>
          all
            .filter((t) => t.getAttribute('data-years')!.includes(','))
            .map((table) => {
              const scroller = table.closest('.table-scroll')!;
              const box = scroller.getBoundingClientRect();
              const heads = [...table.querySelectorAll('thead th')];
              return {
                slug: table.closest('[data-slug]')?.getAttribute('data-slug'),
                years: table.getAttribute('data-years'),
                head: heads.map((th) => th.textContent!.trim()),
                scrollLeft: scroller.scrollLeft,
                // The latest year's column and 较上年, their right edges against the visible area.
                rightOfLatest: heads[2]!.getBoundingClientRect().right - box.right,
                overflow: scroller.scrollWidth - scroller.clientWidth,
              };
            }),
        );
        expect(tables.length).toBeGreaterThan(20);
        for (const table of tables) {
          const years = table.years!.split(',').map(Number);
          expect(years, table.slug!).toEqual([...years].sort((a, b) => b - a));
          expect(table.head.slice(0, 3), table.slug!).toEqual(['指标', `${years[0]}年`, '较上年']);
          expect(table.scrollLeft).toBe(0);
          expect(table.rightOfLatest, `${table.slug} latest year in view`).toBeLessThanOrEqual(1);
          // On a desktop no year-by-year table is cut: the chart takes only the width the table leaves.
          if (viewport === 'desktop')
            expect(table.overflow, `${table.slug} overflows`).toBeLessThanOrEqual(1);
        }
        if (name === 'gree') {
          await page.screenshot({ path: `${ARTIFACTS}committee-gree-${viewport}.png` });
          await page.$eval('#item-core_financial_indicators, #item-financial_benchmarks', (e) =>
            e.scrollIntoView(),
          );
          await page.waitForTimeout(300);
          await page.screenshot({ path: `${ARTIFACTS}committee-gree-${viewport}-table.png` });
        }
      }
    });
  }

  it('writes amounts a person reads: 亿元 in cards and texts, separators in risk texts, one minus sign', async () => {
    for (const name of ['gree', 'byd'] as const) {
      const page = await view(name, PHONE);
      const revenue = await page.textContent(
        '[data-testid=headline-figures] .figure:first-child .figure-value',
      );
      expect(revenue).toMatch(/^\d{1,3}(,\d{3})*\.\d{2} 亿元$/);
      const texts = await page.$$eval(
        '.risk-message, [data-testid=risk-overview] li, [data-testid=top-risks] li, [data-testid=empty-reasons] li',
        (all) => all.map((e) => e.textContent!.replace(/\s+/g, ' ').trim()),
      );
      expect(texts.length).toBeGreaterThan(3);
      for (const text of texts) expect(text, text).not.toMatch(/\d{5,}/);
      // Large amounts in sentences read in 亿元 (Gree's and BYD's are in the hundreds of 亿元).
      expect(texts.some((text) => /\d 亿元/.test(text))).toBe(true);
      const body = (await page.textContent('main'))!;
      // One minus sign: no U+2212 before a number (the 勾稽 formulas' "−" is the subtraction operator).
      expect(body).not.toMatch(/\u2212\s?\d/);
      expect(await page.textContent('.report-footer')).toContain('1 亿元及以上的金额以亿元表示');
    }
  });

  it('labels every model and row in Chinese with the right unit, and says why a card is empty', async () => {
    const page = await view('gree', DESKTOP);
    const body = (await page.textContent('main'))!;
    expect(body).not.toMatch(/z_prime|z_double_prime|\bdistress\b|\bgrey\b/);
    const distress = (await page.textContent('#item-distress_signals'))!;
    expect(distress).toMatch(/Z′（非上市制造业）|Z″（非制造业）/);
    // Categorical rows (zones, the model) carry no unit; Piotroski's scores are points, not "个".
    const unitOf = (key: string) =>
      page.$eval(
        `#item-distress_signals tr[data-key=${key}] th`,
        (th) => th.querySelector('.unit')?.textContent ?? '',
      );
    expect(await unitOf('altman_headline_zone')).toBe('');
    expect(await unitOf('altman_z_prime_zone')).toBe('');
    expect(await unitOf('piotroski_f')).toBe('分');
    const perHead = await page.$eval(
      '#item-business_input_profitability tr[data-key=revenue_per_employee] th',
      (th) => th.textContent!.replace(/\s+/g, ''),
    );
    expect(perHead).toBe('人均营业收入万元/人');
    // Every card whose figures are all empty says why, right there.
    const empty = await page.$$eval('[data-testid=empty-reasons]', (all) =>
      all.map((e) => ({
        slug: e.closest('[data-slug]')!.getAttribute('data-slug'),
        reasons: e.querySelectorAll('li').length,
      })),
    );
    expect(empty.length).toBeGreaterThan(0);
    for (const card of empty) expect(card.reasons, card.slug!).toBeGreaterThan(0);
    expect(body).not.toContain('原因见下方提示');
    // 资产负债规模: the caption's two bars a year are drawn, with a legend naming each part.
    await page.$eval('#item-reporting_period_balance_sheet', (e) => e.scrollIntoView());
    await page.waitForSelector('#item-reporting_period_balance_sheet .chart[data-drawn=true]');
    const caption = await page.textContent('#item-reporting_period_balance_sheet figcaption');
    expect(caption).toContain('左柱为资产');
    await page.waitForTimeout(600);
    await page.locator('#item-reporting_period_balance_sheet').screenshot({
      path: `${ARTIFACTS}committee-balance-chart.png`,
    });
  });

  it('on a phone: version and date shown, full card labels, Escape closes the contents, back-to-top covers nothing, 勾稽 folded, top risks once', async () => {
    const page = await open('gree', PHONE);
    expect(await page.isVisible('[data-testid=report-version]')).toBe(true);
    expect(await page.textContent('[data-testid=report-version]')).toMatch(
      /第 \d+ 版 · \d{4}-\d{2}-\d{2} \d{2}:\d{2}/,
    );
    // Headline labels are whole: nothing cut with an ellipsis (the year included).
    const cut = await page.$$eval(
      '[data-testid=headline-figures] dt',
      (all) =>
        all.filter(
          (dt) => dt.scrollWidth > dt.clientWidth + 1 || getComputedStyle(dt).textOverflow === 'ellipsis',
        ).length,
    );
    expect(cut).toBe(0);
    expect(await page.textContent('[data-testid=headline-figures]')).toContain('经营活动现金流量净额2019年');
    // The contents panel closes with Escape, focus back on its toggle.
    await page.click('.section-nav-toggle');
    expect(await page.isVisible('#section-nav-list')).toBe(true);
    await page.keyboard.press('Escape');
    expect(await page.isVisible('#section-nav-list')).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('section-nav-toggle'))).toBe(
      true,
    );
    // Back to top sits in the sticky bar: it overlaps no card anywhere down the page.
    for (const slug of ['revenue', 'statement_arithmetic', 'distress_signals']) {
      await page.$eval(`#item-${slug}`, (e) => e.scrollIntoView({ block: 'center' }));
      await page.waitForSelector('[data-testid=back-to-top]', { state: 'visible' });
      const overlap = await page.evaluate(() => {
        const button = document.querySelector('[data-testid=back-to-top]')!.getBoundingClientRect();
        if (button.width === 0) return 'hidden';
        const nav = document.querySelector('.section-nav')!.getBoundingClientRect();
        return button.top >= nav.top && button.bottom <= nav.bottom ? 'in-bar' : 'over-content';
      });
      expect(overlap).toBe('in-bar');
    }
    // The 勾稽 relations are folded; the first column of the check stays short.
    const formulas = await page.$$eval('#item-statement_arithmetic [data-testid=list-formula]', (all) =>
      all.map((d) => (d as HTMLDetailsElement).open),
    );
    expect(formulas.length).toBeGreaterThan(0);
    expect(formulas.every((open) => !open)).toBe(true);
    const listHeight = await page.$eval(
      '#item-statement_arithmetic .list-table',
      (e) => e.getBoundingClientRect().height,
    );
    expect(listHeight).toBeLessThan(812 * 2.5);
    await page.$eval('#item-statement_arithmetic', (e) => e.scrollIntoView());
    await page.screenshot({ path: `${ARTIFACTS}committee-gree-phone-check.png` });
    // The top risks: listed in the summary, not again under 核心风险洞察.
    const top = await page.$$eval('[data-testid=top-risks] li', (all) =>
      all.map((li) => li.textContent!.split('：').slice(1).join('：').trim()),
    );
    expect(top.length).toBeGreaterThan(0);
    const overview = (await page.textContent('[data-testid=risk-overview]'))!;
    for (const risk of top) expect(overview).not.toContain(risk.slice(0, 30));
    expect(await page.textContent('[data-testid=top-risks-link]')).toContain('重点风险见');
    await page.$eval('[data-testid=risk-overview]', (e) => e.scrollIntoView());
    await page.screenshot({ path: `${ARTIFACTS}committee-gree-phone-risks.png` });
    await page.context().close();
  });

  it('says how to get an interpretation when the report has none', async () => {
    const page = await view('gree', PHONE);
    const hint = (await page.textContent('[data-testid=no-interpretation]'))!;
    expect(hint).toContain('生成解读');
    expect(hint).toContain('/ai-analysis');
    const withAi = await view('five', PHONE);
    expect(await withAi.$('[data-testid=no-interpretation]')).toBeNull();
  });

  /**
   * Prints a report to PDF twice (charts drawn, then hidden) and finds every chart's area on the pages.
   * `pdf`: page.pdf alone (Chromium sends the print event and switches to print media), as soon as the cards
   * are rendered and the chart code is loaded, on a page that has had no idle time to make the charts' print
   * pictures ahead. `dialog`: the same page, the print event sent first (the browser's print dialog), then
   * print media. `silent`: a printer that sends no print event and no media-change notification (a headless
   * tool that snapshots print media, an iOS share sheet): the page's `beforeprint`/`afterprint` listeners and
   * its `matchMedia('print')` change listeners are never called, so only the pictures the page made ahead and
   * its print CSS can put the charts on paper; it waits for `data-print-ready`, as such a tool would.
   */
  async function printCharts(name: Name, mode: PrintMode) {
    const context = await browser.newContext(DESKTOP);
    await context.addInitScript(mode === 'silent' ? SILENT_PRINT : NEVER_IDLE);
    const page = await context.newPage();
    await page.goto(`${service.url}/shared/reports/${tokens[name]}`, { waitUntil: 'networkidle' });
    const pictures = () => page.$$eval('.chart-box.has-print-picture', (all) => all.length);
    if (mode === 'silent') {
      await page.waitForSelector('.report-layout[data-print-ready=true]', { timeout: 60_000 });
    } else {
      await page.waitForSelector('.report-layout[data-complete=true][data-charts-loaded=true]');
      const charts = await page.$$eval('.card-chart', (all) => all.length);
      const before = await pictures();
      console.info(`${name} (${mode}): ${before} of ${charts} print pictures made before printing`);
      expect(before).toBeLessThan(charts / 2);
    }
    if (mode === 'dialog') {
      // The print event makes every missing picture at once, before the print's layout (page.pdf, which
      // follows, shows that Chromium prints them: in `pdf` its own event is all there is).
      const state = await page.evaluate(() => {
        window.dispatchEvent(new Event('beforeprint'));
        return {
          charts: document.querySelectorAll('.card-chart').length,
          pictures: document.querySelectorAll('.chart-box.has-print-picture .chart-picture[src]').length,
        };
      });
      expect(state.pictures).toBe(state.charts);
      await page.emulateMedia({ media: 'print' });
    }
    // No chart drawn on screen: nothing has been scrolled; on paper every chart is its picture.
    expect(await page.$$eval('.chart[data-drawn=true]', (all) => all.length)).toBeLessThan(5);
    const tag = `committee-${name}${mode === 'pdf' ? '' : `-${mode}`}`;
    const pdf = `${ARTIFACTS}${tag}.pdf`;
    // page.pdf sends the print event and switches to print media itself (not in `silent`, where both are lost).
    await page.pdf({ path: pdf, format: 'A4', printBackground: true, preferCSSPageSize: true });
    // poppler renders the printed pages while Chromium prints the second PDF.
    const drawnPages = renderPages(pdf, `${tag}-drawn`);
    drawnPages.catch(() => undefined); // awaited below; not an unhandled rejection should a step before fail
    const charts = await page.$$eval('.card-chart', (all) => all.length);
    // Charts with almost nothing to draw (a ring of one tiny slice): their ink is not a chart-sized area.
    // What went on paper is the print picture where the chart has one, else its canvas.
    const sparse = await page.$$eval('.card-chart', (all) =>
      all
        .filter((figure) => {
          const picture = figure.querySelector<HTMLImageElement>('.has-print-picture img.chart-picture');
          const canvas = figure.querySelector('canvas');
          const source = picture?.complete && picture.naturalWidth > 0 ? picture : canvas;
          if (!source) return false; // nothing drawn at all: not sparse, a blank chart
          const c = document.createElement('canvas');
          c.width = 300;
          c.height = 165;
          const context = c.getContext('2d')!;
          context.drawImage(source, 0, 0, c.width, c.height);
          const pixels = context.getImageData(0, 0, c.width, c.height).data;
          let painted = 0;
          // Ink, not the picture's white ground.
          for (let i = 0; i < pixels.length; i += 4)
            if (pixels[i + 3]! > 0 && pixels[i]! + pixels[i + 1]! + pixels[i + 2]! < 3 * 250) painted++;
          return painted < 0.02 * c.width * c.height;
        })
        .map((figure) => figure.closest('[data-slug]')!.getAttribute('data-slug')),
    );
    await page.addStyleTag({
      content: '@media print { .card-chart canvas, .card-chart img { visibility: hidden !important; } }',
    });
    const blank = `${ARTIFACTS}${tag}.blank.pdf`;
    await page.pdf({ path: blank, format: 'A4', printBackground: true, preferCSSPageSize: true });
    await page.context().close();
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))![1]);
    const [drawn, hidden] = await Promise.all([drawnPages, renderPages(blank, `${tag}-hidden`)]);
    expect(hidden.length).toBe(drawn.length);
    const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
    return {
      pages,
      charts: charts - sparse.length,
      sparse,
      bands: chartBands(drawn, hidden),
      width: drawn[0]!.width,
      text,
    };
  }

  for (const mode of ['pdf', 'dialog', 'silent'] as const) {
    it(`prints every chart whole, drawn for its place on paper (${PRINT_MODES[mode]}), on at most 20 A4 pages`, {
      timeout: 240_000,
    }, async () => {
      const counts: Record<string, number> = {};
      // Every report without any print event (what no script can help); the two event paths on the longest one.
      const names = mode === 'silent' ? (['five', 'three', 'gree'] as const) : (['five'] as const);
      for (const name of names) {
        const printed = await printCharts(name, mode);
        const { pages, charts, width, text, sparse } = printed;
        if (sparse.length > 0) console.info(`${name}: charts with almost nothing to draw:`, sparse);
        let { bands } = printed;
        counts[name] = pages;
        // A4 at 72 dpi is 595 points wide; the text column runs from 31 to 564 points, the chart column
        // (300 CSS px) is its right-hand 225 points.
        const column = { left: 31, right: 564 };
        const chartWidth = 225;
        expect(charts).toBeGreaterThan(10);
        // Ink under 10 points high is a stray axis label; each chart is one area.
        bands = bands.filter((band) => band.bottom - band.top >= 10);
        const listed = bands.map((b) => `p${b.page} ${b.top}-${b.bottom} x${b.left}-${b.right}`).join('; ');
        expect(bands.length, `${name}: one drawn area per chart: ${listed}`).toBe(charts);
        for (const band of bands) {
          const where = `${name} page ${band.page} at ${band.top}`;
          // Inside its column, not clipped at the paper's edge.
          expect(band.left, where).toBeGreaterThanOrEqual(column.right - chartWidth - 2);
          expect(band.right, where).toBeLessThanOrEqual(column.right + 2);
        }
        // Not squashed and not axes only: a chart is 124 points high (165 CSS px). Nearly all charts ink 60 of
        // them and 4 % of their area; a lone horizontal bar on a light grid (Gree's 所有者权益变动) inks less.
        const full = bands.filter((band) => {
          const area = (band.right - band.left + 1) * (band.bottom - band.top + 1);
          return band.bottom - band.top > 60 && band.changed / area > 0.04;
        });
        expect(full.length, name).toBeGreaterThanOrEqual(Math.ceil(0.9 * charts));
        // Drawn across its column (the last year, the legend); rings and short bar lists a little narrower.
        for (const band of full)
          expect(band.right - band.left, `${name} p${band.page}`).toBeGreaterThan(0.6 * chartWidth);
        expect(width).toBe(595);
        // No page holds only the footnote.
        const last = text
          .split('\f')
          .filter((p) => p.trim() !== '')
          .at(-1)!;
        expect(last.replace(/\s+/g, '')).not.toMatch(/^说明：[\s\S]*第\d+页\/共\d+页$/);
        expect(pages).toBeLessThanOrEqual(20);
      }
      console.info(`printed pages (${PRINT_MODES[mode]}):`, counts);
    });
  }

  it('exports an Excel workbook that stands alone: 概要 first, newest year first, n.m. with its reason, risks by severity', async () => {
    for (const name of ['five', 'gree', 'mixed'] as const) {
      const response = await fetch(`${service.url}/api/v1/shared/reports/${tokens[name]}/export.xlsx`);
      expect(response.status).toBe(200);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(Buffer.from(await response.arrayBuffer()) as unknown as ArrayBuffer);
      // 行业对标 last (server/benchmarks/exportSheet.ts): a header row, then a row per indicator and benchmark.
      expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual([
        '概要',
        '指标',
        '风险与提示',
        '行业对标',
      ]);
      const benchmarks = workbook.getWorksheet('行业对标')!;
      expect((benchmarks.getRow(1).values as unknown[]).slice(1, 5)).toEqual([
        '指标',
        '单位',
        '企业值',
        '基准',
      ]);
      expect(benchmarks.rowCount, name).toBeGreaterThanOrEqual(2);
      expect(String(benchmarks.getRow(2).getCell(1).value ?? ''), name).not.toBe('');
      expect(String(benchmarks.getRow(2).getCell(4).value ?? ''), name).not.toBe('');
      // Levels and size classes in words, not their codes (the 规模 column said "all").
      benchmarks.eachRow((row, index) => {
        if (index === 1) return;
        for (const column of [8, 9]) {
          const value = String(row.getCell(column).value ?? '');
          expect(value, `${name} 行业对标 row ${index}`).not.toMatch(/[a-z]/);
        }
      });
      const summary = new Map<string, string[]>();
      let label = '';
      workbook.getWorksheet('概要')!.eachRow((row, index) => {
        if (index === 1) return;
        const [k, v] = (row.values as unknown[]).slice(1).map((value) => String(value ?? ''));
        if (k) label = k;
        summary.set(label, [...(summary.get(label) ?? []), v!]);
      });
      const page = await service.request(`/api/v1/shared/reports/${tokens[name]}`);
      const report = page.body;
      expect(summary.get('企业名称')).toEqual([report.name]);
      expect(summary.get('报表年度')![0]).toContain(`${report.year_start}—${report.year_end}年`);
      expect(summary.get('会计准则')![0]).toMatch(/会计准则/);
      expect(summary.get('报告编号')![0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(summary.get('报告生成时间')![0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
      for (const key of ['综合评级', '数据缺口', '优势']) expect(summary.has(key), key).toBe(true);
      const core = report.items.find((item: { section: string }) => item.section === 'core_risk').sp_result;
      if (core.verdict) {
        expect(summary.get('综合评级')![0]).toContain(core.verdict.grade);
        expect(summary.get('健康度得分')![0]).toContain('/ 100');
        expect(summary.get('评分覆盖')![0]).toContain(
          `${formatNumber(core.verdict.coverage.weight_share)}% 权重`,
        );
        expect(summary.get('数据质量')![0]).toMatch(/^数据(一致|有疑点|不一致)/);
        // Each driver with its value (or "—" where the engine gives none).
        expect(summary.get('主要影响因素')!.length).toBe(core.verdict.drivers.length);
        for (const driver of summary.get('主要影响因素')!) expect(driver).toMatch(/：(-?[\d,.]+|—)/);
      }

      const sheet = workbook.getWorksheet('指标')!;
      const head = (sheet.getRow(1).values as unknown[]).slice(1);
      const years = [...report.years]
        .sort((a: number, b: number) => b - a)
        .map((year: number) => `${year}年`);
      expect(head.slice(0, 3 + years.length)).toEqual(['分析项目', '指标', '单位', ...years]);
      let notes = 0;
      let counts = 0;
      const texts: string[] = [];
      sheet.eachRow((row, index) => {
        if (index === 1) return;
        for (let column = 4; column < 4 + years.length; column++) {
          const cell = row.getCell(column);
          if (cell.value === 'n.m.') {
            notes++;
            expect(String(cell.note ?? '')).toMatch(/^n\.m\.：[\u4e00-\u9fff]/);
          }
          if (typeof cell.value === 'string') texts.push(cell.value);
          if (row.getCell(3).value === '个' && typeof cell.value === 'number') {
            counts++;
            expect(cell.numFmt).toBe('#,##0');
          }
        }
        // The formula in words: no field codes (z_prime, year_start) or English zone names (safe, grey).
        const formula = String(row.getCell(4 + years.length).value ?? '');
        expect(formula, `row ${index}`).not.toMatch(/[a-z]+_[a-z]|\b(safe|distress|grey)\b/);
        expect(['倍', '%', '万元', '万元/人', '元', '次', '天', '个', '分', '个百分点', '']).toContain(
          String(row.getCell(3).value ?? ''),
        );
      });
      expect(notes).toBeGreaterThan(0);
      expect(counts).toBeGreaterThan(0);
      // No codes: text cells are Chinese labels.
      for (const text of texts) expect(text).not.toMatch(/^[a-z_]+$/);

      const risks: Array<{ level: string; item: string; message: string }> = [];
      workbook.getWorksheet('风险与提示')!.eachRow((row, index) => {
        if (index === 1)
          return expect((row.values as unknown[]).slice(1)).toEqual(['等级', '分析项目', '内容']);
        const [level, item, message] = (row.values as unknown[]).slice(1).map(String);
        risks.push({ level: level!, item: item!, message: message! });
      });
      // The 5-year fixture and Gree are healthy (few or no risks); the inconsistent fixture has a danger and warnings.
      if (name === 'mixed') expect(new Set(risks.map((risk) => risk.level)).size).toBeGreaterThan(1);
      const order = ['危险', '警告', '提示'];
      const ranks = risks.map((risk) => order.indexOf(risk.level));
      expect(ranks.every((rank) => rank >= 0)).toBe(true);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      const modules = report.items.map((item: { label: string }) => item.label);
      for (let i = 1; i < risks.length; i++) {
        if (risks[i]!.level === risks[i - 1]!.level)
          expect(modules.indexOf(risks[i]!.item)).toBeGreaterThanOrEqual(modules.indexOf(risks[i - 1]!.item));
      }
      for (const risk of risks) {
        expect(risk.message).not.toMatch(/\d{5,}|[a-z]+\.[a-z_]+/);
      }
    }
  });

  it('speaks Chinese in the console when the API refuses a webhook address (loopback)', async () => {
    const page = await (await browser.newContext(DESKTOP)).newPage();
    await page.goto(`${service.url}/console/signup`);
    await page.fill('#auth-email', `committee-${Date.now()}@example.com`);
    await page.fill('#auth-password', 'correct horse battery staple');
    await page.click('[data-testid=auth-form] button[type=submit]');
    await page.waitForSelector('[data-testid=keys-page]');
    await page.click('.console-tab >> text=Webhooks');
    await page.waitForSelector('[data-testid=webhooks-page]');
    await page.fill('[data-testid=webhook-create] input[type=url]', 'http://127.0.0.1:9/hooks');
    await page.click('[data-testid=webhook-create] button[type=submit]');
    const alert = (await page.textContent('[data-testid=webhooks-page] [role=alert]'))!;
    expect(alert).toBe('接收地址指向本机、内网或保留地址，不能用作接收地址。');
    expect(alert).not.toMatch(/[A-Za-z]{3,}/);
    await page.screenshot({ path: `${ARTIFACTS}committee-console-webhook-error.png` });
    await page.context().close();
  });

  for (const [viewport, options] of [
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ] as const) {
    it(`has no serious or critical axe-core violation (${viewport})`, { timeout: 300_000 }, async () => {
      const page = await open('gree', options);
      const results = await axeViolations(page).analyze();
      const found = results.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.length}`);
      await page.context().close();
      expect(found).toEqual([]);
    });
  }
});
