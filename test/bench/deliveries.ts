/**
 * `npm run bench:deliveries [-- --against <git ref>]`: the CPU a webhook delivery costs, alone — the service's main
 * thread, its other threads and PostgreSQL's backends, per delivery — with no report analysed beside it.
 *
 * Each round starts the build's service (lib.ts withService: one process, its webhook endpoint answering 204 at once
 * on loopback), records deliveries for the bench's account directly in the database as its events would be, and
 * measures from the first insert until every delivery is delivered, in two shapes:
 *
 * - backlog: BENCH_DELIVERIES (1,000) recorded at once — the drain after a burst of reports, one account at its cap;
 * - stream: the same number recorded 10 at a time at BENCH_DELIVERY_RATE a second (60) — a steady trickle.
 *
 * With `--against <ref>` the other build (a worktree, as `npm run bench -- --against`) runs alternately with this one,
 * BENCH_ROUNDS rounds each (2), and each figure is also given as a ratio (this ÷ that). Builds from before
 * Migration20261129140000 kept a pg-boss job per delivery: their deliveries are recorded with it, as their assemble
 * statement did. Nothing here is a test; the machine's other work shows in the figures.
 */
import pg from 'pg';
import { prepareWorktree } from './against.ts';
import { cpuSnapshot, PostgresMeter, ROOT, webhookReceiver, withService } from './lib.ts';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 1000);
const RATE = Number(process.env.BENCH_DELIVERY_RATE ?? 60);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const BATCH = 10;

interface Figures {
  perSecond: number;
  main: number;
  other: number;
  postgres: number;
  whole: number;
}

const PAYLOAD = JSON.stringify({
  type: 'report.succeeded',
  timestamp: new Date().toISOString(),
  data: {
    report_id: '00000000-0000-4000-8000-000000000000',
    task_id: '00000000-0000-4000-8000-000000000001',
    status: 'success',
    version_no: 1,
    share_url: `http://127.0.0.1/shared/reports/${'s'.repeat(43)}`,
    error_message: null,
  },
});

/** Records `count` deliveries to the account's endpoint, due now, as the build's own event would. */
async function record(client: pg.Client, ownQueue: boolean, count: number, tag: string) {
  const { rows } = await client.query('select id, account_id from webhook_endpoints limit 1');
  const [endpoint] = rows as Array<{ id: string; account_id: string }>;
  if (ownQueue) {
    await client.query(
      `insert into webhook_deliveries (id, endpoint_id, account_id, event_key, event_type, payload, status, attempts,
                                       priority, created_at, next_attempt_at)
       select gen_random_uuid(), $1, $2, $3 || g, 'report.succeeded', $4, 'pending', 0, 1, now(), now()
         from generate_series(1, $5) g`,
      [endpoint!.id, endpoint!.account_id, tag, PAYLOAD, count],
    );
  } else {
    await client.query(
      `with d as (
         insert into webhook_deliveries (id, endpoint_id, event_key, event_type, payload, status, attempts, created_at,
                                         next_attempt_at)
         select gen_random_uuid(), $1, $3 || g, 'report.succeeded', $4, 'pending', 0, now(), now()
           from generate_series(1, $5) g returning id)
       insert into pgboss.job (name, data, priority, group_id, expire_seconds, retry_limit, retry_delay, retry_backoff)
       select 'webhook-delivery', json_build_object('deliveryId', d.id), 1, $2, 60, 3, 10, true from d`,
      [endpoint!.id, endpoint!.account_id, tag, PAYLOAD, count],
    );
  }
}

async function measure(root: string, shape: 'backlog' | 'stream'): Promise<Figures> {
  const receiver = await webhookReceiver();
  try {
    return await withService({ root, poolThreads: 1, webhookUrl: receiver.url }, async (service) => {
      if (!service.webhook) throw new Error(`${root}: this build has no webhooks`);
      const client = new pg.Client({ connectionString: service.databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query(
          `select exists (select 1 from information_schema.columns
                           where table_name = 'webhook_deliveries' and column_name = 'account_id') as own`,
        );
        const ownQueue = Boolean(rows[0].own);
        await client.query('analyze');
        const meter = new PostgresMeter(client);
        await meter.start();
        const before = cpuSnapshot(service.pids);
        const started = performance.now();
        if (shape === 'backlog') await record(client, ownQueue, DELIVERIES, 'backlog-');
        else
          for (let sent = 0; sent < DELIVERIES; sent += BATCH) {
            await record(client, ownQueue, Math.min(BATCH, DELIVERIES - sent), `stream-${sent}-`);
            const next = started + ((sent + BATCH) / RATE) * 1000;
            await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
          }
        const deadline = Date.now() + 300_000;
        while (receiver.received() < DELIVERIES && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 10));
        for (;;) {
          const pending = await client.query(
            "select exists (select from webhook_deliveries where status = 'pending') as busy",
          );
          if (!pending.rows[0].busy || Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        const seconds = (performance.now() - started) / 1000;
        const after = cpuSnapshot(service.pids);
        const postgres = await meter.stop();
        if (!before || !after) throw new Error('no /proc: CPU cannot be measured here');
        const per = (cpu: number) => (cpu * 1000) / DELIVERIES;
        const main = per(after.main - before.main);
        const other = per(after.other - before.other);
        return {
          perSecond: DELIVERIES / seconds,
          main,
          other,
          postgres: per(postgres),
          whole: main + other + per(postgres),
        };
      } finally {
        await client.end();
      }
    });
  } finally {
    await receiver.close();
  }
}

const line = (label: string, f: Figures) =>
  `${label.padEnd(28)} ${f.perSecond.toFixed(0).padStart(5)}/s  main ${f.main.toFixed(3)}  other ${f.other.toFixed(3)}  PostgreSQL ${f.postgres.toFixed(3)}  whole ${f.whole.toFixed(3)} ms per delivery`;

const at = process.argv.indexOf('--against');
const against = at >= 0 ? process.argv[at + 1] : undefined;
const builds: Array<{ name: string; root: string }> = [{ name: 'this', root: ROOT }];
if (against) builds.push({ name: against, root: prepareWorktree(against).root });
console.log(
  `${DELIVERIES} deliveries per round; backlog: recorded at once; stream: ${BATCH} at a time, ${RATE} a second`,
);
for (const shape of ['backlog', 'stream'] as const) {
  const results = new Map<string, Figures[]>(builds.map((build) => [build.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // this, that, that, this, …: a drift in the machine's speed falls on both.
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      const figures = await measure(build.root, shape);
      results.get(build.name)!.push(figures);
      console.log(line(`${shape} ${build.name} r${round + 1}`, figures));
    }
  }
  if (against) {
    const mean = (list: Figures[], key: keyof Figures) =>
      list.reduce((sum, f) => sum + f[key], 0) / list.length;
    const mine = results.get('this')!;
    const theirs = results.get(against)!;
    const ratios = (['perSecond', 'main', 'other', 'postgres', 'whole'] as const).map((key) => {
      const each = mine.map((f, i) => f[key] / theirs[i]![key]);
      return `${key} ${(mean(mine, key) / mean(theirs, key)).toFixed(2)}× (${Math.min(...each).toFixed(2)}–${Math.max(...each).toFixed(2)})`;
    });
    console.log(`${shape}, this ÷ ${against}: ${ratios.join(', ')}`);
  }
}
process.exit(0);
