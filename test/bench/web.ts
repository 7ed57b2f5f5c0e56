/**
 * `npm run bench:web`: the share page of the 3-year report in Chromium (playwright-core, Debian's browser) under
 * slow-4G network and 4× CPU throttling (CDP), as a phone reader on a slow line would meet it. Reports largest
 * contentful paint, when the report's data request started and ended against the chart code's, and the main
 * thread's long tasks (PerformanceObserver 'longtask'), up to the moment the page has made every chart's print
 * picture (`data-print-ready`, after the scroll; the pictures' idle tasks count). Figures go to stdout (with --markdown, a table for
 * docs/performance.md). `--trace` also records a Chrome trace and a CPU profile of each run: it prints what every
 * task over 200 ms spent its time on and saves the profile under test/artifacts/ (tracing slows the page, so
 * its figures are not the ones to report). `--serve` instead keeps the service with the 3- and 5-year reports
 * running, printing their links (for looking at the page by hand). Nothing here is a test.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pino } from 'pino';
import { loadConfig } from '../../server/config.ts';
import { startService } from '../../server/runtime.ts';
import { createApiKey, findOrCreateAccount } from '../../server/services/apiKeys.ts';
import { ARTIFACTS, launchChromium, requireChromium } from '../helpers/browser.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { type FixtureName, fixture } from '../helpers/service.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** Chrome DevTools' "Slow 4G" preset (the Lighthouse mobile profile): 150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up. */
const SLOW_4G = {
  offline: false,
  latency: 150,
  downloadThroughput: (1.6 * 1024 * 1024) / 8,
  uploadThroughput: (750 * 1024) / 8,
};

async function startDemo() {
  const db = await createTestDatabase('postgres');
  const config = {
    ...loadConfig({}),
    databaseUrl: db.databaseUrl,
    dataDir: db.dataDir,
    port: Number(process.env.PORT ?? 0),
    host: '127.0.0.1',
    logLevel: 'silent' as const,
  };
  const running = await startService(config, pino({ level: 'silent' }));
  const em = running.services.db.orm.em.fork();
  const key = (
    await createApiKey(em, await findOrCreateAccount(em, 'bench-web@example.com'), { mode: 'test' })
  ).key;
  async function submit(name: FixtureName): Promise<string> {
    const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
    const created = await fetch(`${running.url}/api/v1/developer/reports/financial`, {
      method: 'POST',
      headers,
      body: JSON.stringify(fixture(name)),
    }).then((r) => r.json() as Promise<{ report_id: string }>);
    for (;;) {
      const report = (await fetch(`${running.url}/api/v1/developer/reports/${created.report_id}`, {
        headers,
      }).then((r) => r.json())) as { status: string; share?: { share_token: string } };
      if (report.status === 'success') return report.share!.share_token;
      if (report.status === 'failed') throw new Error(`${name} failed`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url: running.url,
    submit,
    async close() {
      await running.stop();
      await db.drop();
    },
  };
}

interface Run {
  lcp: number;
  /** The LCP element: tag.class (size, first characters of its text). */
  lcpElement: string;
  dataStart: number;
  dataEnd: number;
  chartStart: number | null;
  /** When every chart's print picture was made (`data-print-ready`), or null if not within a minute. */
  printReady: number | null;
  /** [start, duration] of each task over 50 ms. */
  longTasks: Array<[number, number]>;
}

/** Trace events of the renderer's main thread (Chrome's trace event format, timestamps in µs). */
interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string; data?: { url?: string; functionName?: string; type?: string } };
}

/**
 * `--trace`: what each main-thread task over 200 ms spent its time on, from a Chrome trace of the run: the task's
 * children two levels deep (script evaluation with its file, function calls, layout, style, paint, GC), longest
 * first. Which functions ran inside is in the CPU profile saved next to it.
 */
function explainLongTasks(trace: { traceEvents: TraceEvent[] }, budgetMs = 200): string[] {
  const events = trace.traceEvents;
  const main = events.find(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain',
  );
  if (!main) return ['no renderer main thread in the trace'];
  const own = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined)
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const navigation = own.find((e) => e.name === 'ParseHTML')?.ts ?? own[0]?.ts ?? 0;
  const label = (e: TraceEvent) => {
    const data = e.args?.data;
    const file = data?.url ? ` ${data.url.replace(/^.*\//, '')}` : '';
    const fn = data?.functionName ? ` ${data.functionName}` : '';
    const type = data?.type ? ` ${data.type}` : '';
    return `${e.name}${type}${fn}${file}`;
  };
  const children = (parent: TraceEvent, pool: TraceEvent[]) => {
    const end = parent.ts + parent.dur!;
    const inside = pool.filter((e) => e !== parent && e.ts >= parent.ts && e.ts + e.dur! <= end);
    // Direct children: not inside another event that is itself inside the parent.
    return inside.filter(
      (e) =>
        !inside.some((o) => o !== e && o.ts <= e.ts && o.ts + o.dur! >= e.ts + e.dur! && o.dur! > e.dur!),
    );
  };
  const lines: string[] = [];
  for (const task of own.filter((e) => e.name === 'RunTask' && e.dur! > budgetMs * 1000)) {
    lines.push(`task ${Math.round(task.dur! / 1000)} ms at ${Math.round((task.ts - navigation) / 1000)} ms:`);
    const pool = own.filter((e) => e.ts >= task.ts && e.ts <= task.ts + task.dur!);
    for (const child of children(task, pool)
      .sort((a, b) => b.dur! - a.dur!)
      .slice(0, 6)) {
      lines.push(`  ${Math.round(child.dur! / 1000)} ms ${label(child)}`);
      for (const grand of children(child, pool)
        .sort((a, b) => b.dur! - a.dur!)
        .slice(0, 6)) {
        if (grand.dur! >= 5000) lines.push(`    ${Math.round(grand.dur! / 1000)} ms ${label(grand)}`);
      }
    }
  }
  return lines;
}

/**
 * With --trace and BENCH_TIMELINE_MS: the page's first moments — every main-thread task over 15 ms and every
 * resource that finished before that time, in order (what stands between the data's arrival and LCP).
 */
function timeline(trace: { traceEvents: TraceEvent[] }, untilMs: number): string[] {
  const events = trace.traceEvents;
  const main = events.find(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain',
  );
  if (!main) return [];
  const own = events.filter((e) => e.pid === main.pid && e.tid === main.tid).sort((a, b) => a.ts - b.ts);
  const start = own.find((e) => e.name === 'ParseHTML')?.ts ?? own[0]?.ts ?? 0;
  const urls = new Map<string, string>();
  for (const e of events) {
    const d = e.args?.data as { requestId?: string; url?: string } | undefined;
    if (e.name === 'ResourceSendRequest' && d?.requestId && d.url)
      urls.set(d.requestId, d.url.replace(/^.*\//, '').slice(0, 40));
  }
  const lines: string[] = [];
  const mine = [
    ...own,
    ...events.filter((e) => e.name === 'ResourceFinish' || e.name === 'ResourceSendRequest'),
  ].sort((a, b) => a.ts - b.ts);
  for (const e of mine) {
    const at = (e.ts - start) / 1000;
    if (at > untilMs) break;
    if (e.name === 'RunTask' && e.pid === main.pid && e.tid === main.tid && (e.dur ?? 0) > 15_000) {
      const inside = own.filter(
        (o) =>
          o !== e && o.ts >= e.ts && o.ts <= e.ts + e.dur! && (o.dur ?? 0) > 5_000 && o.name !== 'RunTask',
      );
      const what = inside
        .slice(0, 5)
        .map((o) => {
          const d = o.args?.data;
          return `${o.name}${d?.url ? ` ${d.url.replace(/^.*\//, '')}` : ''}${d?.functionName ? ` ${d.functionName}` : ''} ${Math.round(o.dur! / 1000)}`;
        })
        .join(' | ');
      lines.push(`${Math.round(at)} ms task ${Math.round(e.dur! / 1000)} ms: ${what}`);
    }
    if (e.name === 'ResourceFinish' || e.name === 'ResourceSendRequest') {
      const d = e.args?.data as { requestId?: string } | undefined;
      lines.push(
        `${Math.round(at)} ms ${e.name === 'ResourceFinish' ? 'got' : 'asked'} ${urls.get(d?.requestId ?? '') ?? ''}`,
      );
    }
    if (e.name === 'largestContentfulPaint::Candidate' || e.name === 'firstContentfulPaint')
      lines.push(`${Math.round(at)} ms ${e.name}`);
  }
  return lines;
}

const TRACE = process.argv.includes('--trace');

async function measure(url: string): Promise<Run> {
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({
      viewport: { width: 375, height: 812 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.addInitScript(() => {
      const w = window as unknown as { __lcp: number; __lcpElement: string; __long: number[][] };
      w.__lcp = 0;
      w.__lcpElement = '';
      w.__long = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          w.__lcp = entry.startTime;
          const e = entry as PerformanceEntry & { element?: Element | null; size?: number };
          const el = e.element;
          w.__lcpElement = el
            ? `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ')[0]}` : ''} (${e.size} px², "${(el.textContent ?? '').trim().slice(0, 24)}")`
            : '';
        }
      }).observe({ type: 'largest-contentful-paint', buffered: true });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries())
          w.__long.push([Math.round(entry.startTime), Math.round(entry.duration)]);
      }).observe({ type: 'longtask', buffered: true });
    });
    if (TRACE) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
      await cdp.send('Profiler.start');
      await browser.startTracing(page, {
        categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'v8'],
      });
    }
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=enterprise-name]', { timeout: 60_000 });
    // Let the first charts draw, then scroll the whole page through so every chart is drawn as a reader would.
    await page.waitForTimeout(1500);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    for (let y = 0; y < height; y += 700) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.waitForTimeout(250);
    }
    await page.waitForTimeout(1000);
    // The print pictures are made in idle tasks after the cards and the chart code: their tasks count too.
    const printReady = await page
      .waitForFunction(
        () => {
          const w = window as unknown as { __printReady?: number };
          if (document.querySelector('.report-layout[data-print-ready=true]'))
            w.__printReady ??= performance.now();
          return w.__printReady ?? false;
        },
        undefined,
        { timeout: 60_000, polling: 100 },
      )
      .then((handle) => handle.jsonValue() as Promise<number>)
      .catch(() => null);
    await page.waitForTimeout(500);
    if (TRACE) {
      const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as {
        traceEvents: TraceEvent[];
      };
      console.log(explainLongTasks(trace).join('\n'));
      if (process.env.BENCH_TIMELINE_MS)
        console.log(timeline(trace, Number(process.env.BENCH_TIMELINE_MS)).join('\n'));
      const { profile } = await cdp.send('Profiler.stop');
      const path = `${ARTIFACTS}bench-web-${Date.now()}.cpuprofile`;
      writeFileSync(path, JSON.stringify(profile));
      console.log(`CPU profile (open in Chrome DevTools' Performance panel): ${path}`);
    }
    const figures = await page.evaluate(() => {
      const w = window as unknown as {
        __lcp: number;
        __lcpElement: string;
        __long: Array<[number, number]>;
      };
      const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const data = resources.find((r) => r.name.includes('/api/v1/shared/reports/'))!;
      const chart = resources.find((r) => /\/assets\/echarts[^/]*\.js$/.test(r.name));
      return {
        lcp: w.__lcp,
        lcpElement: w.__lcpElement,
        dataStart: data.startTime,
        dataEnd: data.responseEnd,
        chartStart: chart ? chart.startTime : null,
        longTasks: w.__long,
      };
    });
    return { ...figures, printReady };
  } finally {
    await browser.close();
  }
}

/**
 * The share of CPU time the hypervisor gave to other guests during a run (`steal` in /proc/stat; null off
 * Linux). On a shared VM a task's wall-clock duration includes the time its thread waited for a core, so a
 * run with a few per cent of steal can show long tasks that are not the page's doing.
 */
function cpuTimes(): number[] | null {
  try {
    return readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  } catch {
    return null;
  }
}
function stealShare(before: number[] | null, after: number[] | null): number | null {
  if (!before || !after) return null;
  const delta = after.map((value, i) => value - (before[i] ?? 0));
  const total = delta.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return total > 0 ? (delta[7] ?? 0) / total : null;
}

const ms = (n: number | null) => (n === null ? '—' : `${Math.round(n)} ms`);

async function main() {
  requireChromium();
  const demo = await startDemo();
  try {
    const three = await demo.submit('general_new-3y');
    if (process.argv.includes('--serve')) {
      const five = await demo.submit('general_old-5y-ai');
      const four = await demo.submit('general_new-4y-inconsistent');
      console.log(`3y: ${demo.url}/shared/reports/${three}`);
      console.log(`5y: ${demo.url}/shared/reports/${five}`);
      console.log(`4y: ${demo.url}/shared/reports/${four}`);
      // Until stopped (Ctrl-C or kill): then the service stops and its throw-away database is dropped.
      await new Promise((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      return; // stopped: no measurement runs (they used to start here)
    }
    const runs: Run[] = [];
    const steal: Array<number | null> = [];
    for (let i = 0; i < RUNS; i++) {
      const before = cpuTimes();
      runs.push(await measure(`${demo.url}/shared/reports/${three}`));
      steal.push(stealShare(before, cpuTimes()));
    }
    const rows = runs.map((run, i) => [
      `${i + 1}`,
      ms(run.lcp),
      `${ms(run.dataStart)} → ${ms(run.dataEnd)}`,
      ms(run.chartStart),
      ms(run.printReady),
      ms(Math.max(0, ...run.longTasks.map(([, d]) => d))),
      `${run.longTasks.filter(([, d]) => d > 200).length}`,
      `${run.longTasks.length}`,
      [...run.longTasks]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([t, d]) => `${d} ms at ${t}`)
        .join(', '),
      steal[i] == null ? '—' : `${(steal[i]! * 100).toFixed(1)} %`,
      run.lcpElement,
    ]);
    const head = [
      'run',
      'LCP',
      'report data request',
      'chart code request',
      'print pictures made',
      'longest task',
      'tasks > 200 ms',
      'tasks > 50 ms',
      'three longest (start)',
      'CPU steal',
      'LCP element',
    ];
    if (process.argv.includes('--markdown')) {
      console.log(`| ${head.join(' | ')} |\n|${head.map(() => '---').join('|')}|`);
      for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    } else {
      console.log(head.join('\t'));
      for (const row of rows) console.log(row.join('\t'));
    }
  } finally {
    await demo.close();
  }
}

await main();
// The browser's and the pool's handles may outlive a stopped service by a moment: the figures are printed.
process.exit(0);
