/**
 * `npm run bench:tenants`: can one tenant slow another (issue 21)? One service process (ROLE=all) on a fresh
 * PostgreSQL database, an attacker account and a victim account. The victim reads its report (GET
 * /reports/{id}, one client, back to back) while the attacker, within its budgets:
 *
 * - idles (the baseline);
 * - sends the costliest GraphQL query the limits admit (cost just under 10,000) at 14 requests/s;
 * - floods the public share JSON of one of its reports from one address (16 clients, as fast as answered);
 *
 * and, as counts: 400 submissions over 10 keys in one burst, and 300 console GraphQL requests from one session.
 * Run twice in one go: `before` switches off what issue 21 added for these paths (GRAPHQL_COST_PER_READ=0: one
 * point per request whatever its cost; a share-read budget too large to matter; account ceilings too large to
 * matter), `after` runs the defaults. Figures to stdout; nothing here is a test.
 */
import { randomUUID } from 'node:crypto';
import { parse } from 'graphql';
import pg from 'pg';
import { operationCost } from '../../server/graphql/limits.ts';
import { schema } from '../../server/graphql/schema.ts';
import { syntheticSubmission } from '../fixtures/synthetic.ts';
import { runCli, startChildService } from '../helpers/process.ts';

const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const PHASE_MS = Number(process.env.BENCH_SECONDS ?? 8) * 1000;
const ATTACKER_REPORTS = 30;
const BODY = JSON.stringify(syntheticSubmission({ years: 3, lastYear: 2024 }));

const BEFORE: Record<string, string> = {
  GRAPHQL_COST_PER_READ: '0',
  RATE_LIMIT_SHARE_READS_PER_MINUTE: '100000000',
  RATE_LIMIT_ACCOUNT_READS_PER_SECOND: '100000',
  RATE_LIMIT_ACCOUNT_READS_BURST: '100000',
  RATE_LIMIT_ACCOUNT_SUBMISSIONS_PER_SECOND: '100000',
  RATE_LIMIT_ACCOUNT_SUBMISSIONS_BURST: '100000',
};

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The costliest reports query the limits admit: the largest page whose estimated cost stays ≤ 10,000. */
function costliestQuery(): { query: string; cost: number } {
  const build = (first: number) =>
    `{ reports(first: ${first}) { edges { node { reportId name analysis { slug label spResult aiContent riskItems { code level message } } } } } }`;
  let best = { query: build(1), cost: operationCost(schema, parse(build(1))) };
  for (let first = 2; first <= 100; first++) {
    const cost = operationCost(schema, parse(build(first)));
    if (cost > 10_000) break;
    best = { query: build(first), cost };
  }
  return best;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

async function timed(run: () => Promise<Response>): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await run();
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

/** The victim's reads for `ms`: one client, back to back. */
async function victimReads(url: string, key: string, reportId: string, ms: number) {
  const samples: number[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const { ms: took, status } = await timed(() =>
      fetch(`${url}/api/v1/developer/reports/${reportId}`, { headers: { 'X-API-Key': key } }),
    );
    if (status === 200) samples.push(took);
  }
  return samples;
}

async function waitAll(url: string, key: string, ids: string[]) {
  for (const id of ids) {
    for (;;) {
      const response = await fetch(`${url}/api/v1/developer/reports/${id}`, {
        headers: { 'X-API-Key': key },
      });
      const body = (await response.json()) as { status: string };
      if (body.status !== 'pending') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

const count = (statuses: Array<number | string>) => {
  const counts: Record<string, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
};

async function runSide(label: 'before' | 'after', extra: Record<string, string>) {
  const database = `bench_tenants_${label}_${randomUUID().slice(0, 8)}`;
  await admin(`create database ${database}`);
  const databaseUrl = new URL(ADMIN_URL);
  databaseUrl.pathname = `/${database}`;
  const env = { DATABASE_URL: databaseUrl.toString(), LOG_LEVEL: 'warn', ...extra };
  const service = await startChildService(env);
  try {
    const newKey = async (email: string) => {
      const cli = await runCli(['keys', 'create', '--email', email, '--mode', 'test'], env);
      return cli.stdout.trim().split('\n').at(-1)!;
    };
    const victim = await newKey('victim@example.com');
    const attackerEmail = 'attacker@example.com';
    const attacker = await newKey(attackerEmail);
    const submit = async (key: string) => {
      const response = await fetch(`${service.url}/api/v1/developer/reports/financial`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
        body: BODY,
      });
      return ((await response.json()) as { report_id: string }).report_id;
    };
    const victimReport = await submit(victim);
    const attackerReports: string[] = [];
    for (let i = 0; i < ATTACKER_REPORTS; i++) attackerReports.push(await submit(attacker));
    await waitAll(service.url, victim, [victimReport]);
    await waitAll(service.url, attacker, attackerReports);
    const shared = (await (
      await fetch(`${service.url}/api/v1/developer/reports/${attackerReports[0]}`, {
        headers: { 'X-API-Key': attacker },
      })
    ).json()) as { share: { share_url: string } };

    const results: Record<string, unknown> = {};
    /** The victim's p50 with the attacker idle, measured right before each attack (the machine is shared). */
    const baseline = async () =>
      percentile(await victimReads(service.url, victim, victimReport, PHASE_MS / 2), 50);

    // A costly query at 14/s.
    const { query, cost } = costliestQuery();
    const alone: number[] = [];
    for (let i = 0; i < 3; i++) {
      alone.push(
        (
          await timed(() =>
            fetch(`${service.url}/graphql`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'X-API-Key': victim },
              body: JSON.stringify({ query }),
            }),
          )
        ).ms,
      );
      await new Promise((resolve) => setTimeout(resolve, 2_500));
    }
    const idleBeforeCostly = await baseline();
    const costlyStatuses: number[] = [];
    let stop = false;
    const costly = (async () => {
      const inFlight: Promise<void>[] = [];
      while (!stop) {
        inFlight.push(
          timed(() =>
            fetch(`${service.url}/graphql`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'X-API-Key': attacker },
              body: JSON.stringify({ query }),
            }),
          ).then(
            ({ status }) => {
              costlyStatuses.push(status);
            },
            () => {
              costlyStatuses.push(0);
            },
          ),
        );
        await new Promise((resolve) => setTimeout(resolve, 1000 / 14));
      }
      await Promise.all(inFlight);
    })();
    const underCost = await victimReads(service.url, victim, victimReport, PHASE_MS);
    stop = true;
    await costly;
    results.costlyQuery = {
      cost,
      oneQueryAloneMs: percentile(alone, 50),
      idleP50: idleBeforeCostly,
      ratio: percentile(underCost, 50) / idleBeforeCostly,
      p50: percentile(underCost, 50),
      p95: percentile(underCost, 95),
      n: underCost.length,
      attacker: count(costlyStatuses),
    };

    // Share-JSON flood from one address, 16 clients.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const idleBeforeFlood = await baseline();
    const shareStatuses: number[] = [];
    stop = false;
    const flood = Promise.all(
      Array.from({ length: 16 }, async () => {
        while (!stop) {
          const { status } = await timed(() => fetch(`${service.url}${shared.share.share_url}`)).catch(
            () => ({
              status: 0,
              ms: 0,
            }),
          );
          shareStatuses.push(status);
        }
      }),
    );
    const underFlood = await victimReads(service.url, victim, victimReport, PHASE_MS);
    stop = true;
    await flood;
    results.shareFlood = {
      idleP50: idleBeforeFlood,
      ratio: percentile(underFlood, 50) / idleBeforeFlood,
      p50: percentile(underFlood, 50),
      p95: percentile(underFlood, 95),
      n: underFlood.length,
      attacker: count(shareStatuses),
    };

    // 400 submissions over 10 keys, one burst (an empty body: each is 422 once admitted, nothing is recorded).
    const keys = [attacker];
    for (let i = 1; i < 10; i++) keys.push(await newKey(attackerEmail));
    const burst = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        fetch(`${service.url}/api/v1/developer/reports/financial`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-API-Key': keys[i % 10]! },
          body: '{}',
        }).then(
          async (response) => {
            await response.arrayBuffer();
            return response.status;
          },
          () => 0,
        ),
      ),
    );
    results.submissionBurst = count(burst);

    // 300 console GraphQL requests from one session, 20 at a time.
    const signup = await fetch(`${service.url}/api/v1/console/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        email: `console-${randomUUID()}@example.com`,
        password: 'correct horse battery staple',
      }),
    });
    const cookie = signup.headers.get('set-cookie')!.split(';')[0]!;
    const { csrf_token: csrf } = (await signup.json()) as { csrf_token: string };
    const consoleStatuses: number[] = [];
    const consoleStarted = Date.now();
    let sent = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (sent < 300) {
          sent++;
          const response = await fetch(`${service.url}/graphql`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Cookie: cookie, 'X-CSRF-Token': csrf },
            body: JSON.stringify({
              query: '{ viewer { email } reports(first: 20) { edges { node { reportId } } } }',
            }),
          });
          await response.arrayBuffer();
          consoleStatuses.push(response.status);
        }
      }),
    );
    results.console300 = { ms: Date.now() - consoleStarted, statuses: count(consoleStatuses) };
    return results;
  } finally {
    await service.kill('SIGTERM');
    await admin(`drop database if exists ${database} with (force)`);
  }
}

const before = await runSide('before', BEFORE);
const after = await runSide('after', {});
console.log(JSON.stringify({ phaseSeconds: PHASE_MS / 1000, before, after }, null, 2));
