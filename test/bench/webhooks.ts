/**
 * `npm run bench:webhooks`: how fast and how fairly one worker process delivers webhooks, in the production layout
 * (an api and a worker process on one PostgreSQL, DATABASE_URL or the local server), with loopback receivers:
 *
 * 1. lag — 200 reports submitted over 20 s by one account whose endpoint answers in 50 ms: the time from each
 *    report's `completed_at` to its `report.succeeded` reaching the receiver (p50, p95, max);
 * 2. starvation — an attacker account queues 620 test events (20 GraphQL requests of 31 aliased
 *    `testWebhookEndpoint`, over 19 endpoints answering in 50 ms; its per-minute test-event and pending caps are
 *    raised for this phase, so what is measured is the queue's fairness, not the caps), then a victim's report
 *    finishes: the victim's delay from `completed_at` to receipt, and how long the attacker's backlog took;
 * 3. trickle — the attacker's 8 test events to a receiver that answers headers and then one byte every 4 s: the
 *    victim's delay again, and how long one attempt held a connection.
 *
 * Figures to stdout (docs/performance.md#webhooks). Nothing here is a test; the machine's other work shows in them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { syntheticSubmission } from '../fixtures/synthetic.ts';
import { type ChildService, runCli, startChildService } from '../helpers/process.ts';

const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REPORTS = Number(process.env.BENCH_REPORTS ?? 200);
const SUBMIT_SECONDS = Number(process.env.BENCH_SUBMIT_SECONDS ?? 20);
const PHASES = (process.env.BENCH_PHASES ?? 'lag,starvation,trickle').split(',');

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A loopback receiver: records when each event arrived (by report id, or webhook-id for test events). */
class Receiver {
  readonly arrivals = new Map<string, number>();
  readonly holds: number[] = [];
  /** Connections still open, by when they opened. */
  readonly open = new Set<number>();
  server!: Server;
  url = '';
  readonly behaviour: 'fast' | 'trickle';
  constructor(behaviour: 'fast' | 'trickle') {
    this.behaviour = behaviour;
  }
  async start() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      const opened = Date.now();
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = Date.now();
        const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as {
          type?: string;
          data?: { report_id?: string };
        };
        const key = body.data?.report_id ?? String(req.headers['webhook-id']);
        if (!this.arrivals.has(key)) this.arrivals.set(key, at);
        if (this.behaviour === 'fast') {
          setTimeout(() => res.end('ok'), 50);
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.flushHeaders();
        const timer = setInterval(() => res.write('.'), 4000);
        this.open.add(opened);
        res.on('close', () => {
          clearInterval(timer);
          this.open.delete(opened);
          this.holds.push(Date.now() - opened);
        });
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  stop() {
    this.server.closeAllConnections();
    this.server.close();
  }
}

async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, base), {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function newKey(env: Record<string, string>, who: string): Promise<string> {
  const cli = await runCli(
    ['keys', 'create', '--email', `${who}-${randomUUID()}@example.com`, '--mode', 'test'],
    env,
  );
  if (cli.code !== 0) throw new Error(cli.stderr);
  return cli.stdout.trim().split('\n').at(-1)!;
}

async function endpoint(api: string, key: string, url: string): Promise<string> {
  const created = await call(api, key, 'POST', '/api/v1/developer/webhook-endpoints', { url });
  if (created.status !== 201) throw new Error(`endpoint: ${created.status} ${JSON.stringify(created.json)}`);
  return String(created.json.id);
}

const SUBMISSION = syntheticSubmission({ years: 3, lastYear: 2024 });

async function submit(api: string, key: string): Promise<string> {
  const response = await call(api, key, 'POST', '/api/v1/developer/reports/financial', SUBMISSION);
  if (response.status !== 202) throw new Error(`submit: ${response.status} ${JSON.stringify(response.json)}`);
  return String(response.json.report_id);
}

async function completedAt(db: pg.Client, ids: string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ id: string; completed_at: Date | null }>(
    'select id, completed_at from reports where id = any($1)',
    [ids],
  );
  return new Map(rows.filter((r) => r.completed_at).map((r) => [r.id, r.completed_at!.getTime()]));
}

async function waitForArrivals(receiver: Receiver, ids: string[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (ids.some((id) => !receiver.arrivals.has(id))) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** Sends the attacker's test events as 31 aliases per GraphQL request over its endpoints; returns how many were queued. */
async function testBurst(api: string, key: string, endpoints: string[], requests: number): Promise<number> {
  let queued = 0;
  await Promise.all(
    Array.from({ length: requests }, async (_, r) => {
      const fields = Array.from(
        { length: 31 },
        // 30 aliases (MAX_ALIASES) and the field itself: 31 events per request.
        (_, i) =>
          `${i ? `t${i}: ` : ''}testWebhookEndpoint(id: "${endpoints[(r + i) % endpoints.length]}") { id }`,
      );
      const answer = await call(api, key, 'POST', '/graphql', { query: `mutation { ${fields.join(' ')} }` });
      const data = (answer.json.data ?? {}) as Record<string, unknown>;
      queued += Object.values(data).filter(Boolean).length;
    }),
  );
  return queued;
}

async function victimDelay(api: string, key: string, db: pg.Client, receiver: Receiver) {
  const id = await submit(api, key);
  const arrived = await waitForArrivals(receiver, [id], 600_000);
  const done = (await completedAt(db, [id])).get(id)!;
  return arrived ? (receiver.arrivals.get(id)! - done) / 1000 : Number.POSITIVE_INFINITY;
}

async function main() {
  const name = `fra_bench_wh_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${name}`;
  const env = {
    DATABASE_URL: dbUrl.toString(),
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE: '1',
    RATE_LIMIT_READS_PER_SECOND: '1000000',
    RATE_LIMIT_SUBMISSIONS_PER_SECOND: '1000000',
    // Raised so the starvation phase measures the queue's fairness, not the caps that now stop such a burst.
    WEBHOOK_TEST_EVENTS_PER_MINUTE: '100000',
    WEBHOOK_MAX_PENDING_DELIVERIES: '100000',
  };
  const services: ChildService[] = [];
  const receivers: Receiver[] = [];
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  try {
    const api = await startChildService({ ...env, ROLE: 'api' });
    services.push(api);
    services.push(await startChildService({ ...env, ROLE: 'worker' }));
    await db.connect();
    const victim = await newKey(env, 'victim');
    const attacker = await newKey(env, 'attacker');
    const fast = new Receiver('fast');
    const trickle = new Receiver('trickle');
    receivers.push(fast, trickle);
    await fast.start();
    await trickle.start();
    await endpoint(api.url, victim, `${fast.url}/victim`);
    console.log(`webhook bench (${new Date().toISOString()}; the machine is shared with other work)`);

    if (PHASES.includes('lag')) {
      const ids: string[] = [];
      const started = Date.now();
      for (let i = 0; i < REPORTS; i++) {
        const due = started + (i * SUBMIT_SECONDS * 1000) / REPORTS;
        await sleep(Math.max(0, due - Date.now()));
        ids.push(await submit(api.url, victim));
      }
      const all = await waitForArrivals(fast, ids, 300_000);
      const done = await completedAt(db, ids);
      const lags = ids
        .filter((id) => done.has(id) && fast.arrivals.has(id))
        .map((id) => (fast.arrivals.get(id)! - done.get(id)!) / 1000)
        .sort((a, b) => a - b);
      const lastDone = Math.max(...done.values());
      const lastArrival = Math.max(...ids.map((id) => fast.arrivals.get(id) ?? 0));
      console.log(
        `lag: ${REPORTS} reports over ${SUBMIT_SECONDS} s; last finished ${((lastDone - started) / 1000).toFixed(1)} s, ` +
          `last webhook ${((lastArrival - started) / 1000).toFixed(1)} s after the first submission${all ? '' : ' (some never arrived)'}; ` +
          `lag p50 ${percentile(lags, 50).toFixed(2)} s, p95 ${percentile(lags, 95).toFixed(2)} s, max ${percentile(lags, 100).toFixed(2)} s`,
      );
    }

    if (PHASES.includes('starvation')) {
      const endpoints: string[] = [];
      for (let i = 0; i < 19; i++)
        endpoints.push(await endpoint(api.url, attacker, `${fast.url}/attacker/${i}`));
      const before = fast.arrivals.size;
      const started = Date.now();
      const queued = await testBurst(api.url, attacker, endpoints, 20);
      const burstMs = Date.now() - started;
      const delay = await victimDelay(api.url, victim, db, fast);
      const deadline = Date.now() + 600_000;
      while (fast.arrivals.size - before < queued + 1 && Date.now() < deadline) await sleep(100);
      console.log(
        `starvation: attacker queued ${queued} test events in ${(burstMs / 1000).toFixed(1)} s; victim's report.succeeded ` +
          `${delay.toFixed(2)} s after completed_at; attacker's backlog delivered ${((Date.now() - started) / 1000).toFixed(1)} s after the burst began`,
      );
    }

    if (PHASES.includes('trickle')) {
      const slow = await endpoint(api.url, attacker, `${trickle.url}/trickle`);
      const started = Date.now();
      for (let i = 0; i < 8; i++)
        await call(api.url, attacker, 'POST', `/api/v1/developer/webhook-endpoints/${slow}/test`);
      const delay = await victimDelay(api.url, victim, db, fast);
      const phase = (Date.now() - started) / 1000;
      // Until the 8 attempts have been cut (or 60 s: before the hard deadline they never were).
      const until = Date.now() + 60_000;
      while (trickle.holds.length < 8 && Date.now() < until) await sleep(250);
      const holds = [...trickle.holds].sort((a, b) => a - b);
      const stillOpen = [...trickle.open].map((opened) => Date.now() - opened);
      console.log(
        `trickle: victim's report.succeeded ${delay.toFixed(2)} s after completed_at (${phase.toFixed(1)} s into the phase); ` +
          `attempts cut: ${holds.length}, held ${(percentile(holds, 50) / 1000).toFixed(1)}–${(percentile(holds, 100) / 1000).toFixed(1)} s; ` +
          `still open: ${stillOpen.length}${stillOpen.length ? `, for up to ${(Math.max(...stillOpen) / 1000).toFixed(1)} s` : ''}`,
      );
    }
  } finally {
    await db.end().catch(() => undefined);
    for (const service of services.reverse()) await service.kill('SIGTERM');
    for (const receiver of receivers) receiver.stop();
    await admin(`drop database if exists ${name} with (force)`);
  }
}

await main();
