/**
 * `npm run bench -- --against <git ref>`: this checkout against another build, on the same machine in the same run.
 *
 * The other ref is checked out in a git worktree under the system's temporary directory
 * (`fra-bench-worktrees/<commit>`), kept between runs so that its dependencies are installed once. Its
 * node_modules is a symlink to this checkout's when the two package-lock.json files are byte for byte the same
 * (the same packages, so nothing to install), and its own `npm ci` otherwise (logged to npm-ci.log beside it).
 * `--clean` removes the worktree afterwards.
 *
 * The two builds then run alternately — this, that, that, this, … (BENCH_ROUNDS rounds each, default 2, at least
 * 2) — so a drift in the machine's speed (other tenants, steal) falls on both. Each round starts the build's
 * service on a fresh database with every capability on (lib.ts withService: rate limits counted, per-account
 * fairness, idempotency keys, a webhook endpoint and its deliveries, metrics, the access log), warms it up, and
 * measures the pooled sustained run, the stored bytes per report and the cost of a conditional read; before and after
 * it, the engine alone (engine.ts), whose mean the round's whole is divided by. Each figure's
 * ratio (this ÷ that) is given as the ratio of the two builds' means, with the spread of the per-round ratios
 * (round i of this against round i of that).
 */

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineCpuPerReport } from './engine.ts';
import {
  closedLoop,
  conditionalReadCost,
  DURATION_MS,
  ROOT,
  storagePerReport,
  sustained,
  webhookReceiver,
  withService,
} from './lib.ts';

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
const lockHash = (root: string) =>
  createHash('sha256')
    .update(readFileSync(join(root, 'package-lock.json')))
    .digest('hex');

/** The other build's checkout, with its dependencies. */
export function prepareWorktree(ref: string): { root: string; commit: string; dependencies: string } {
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const root = join(tmpdir(), 'fra-bench-worktrees', commit.slice(0, 12));
  if (!existsSync(join(root, 'package.json'))) {
    rmSync(root, { recursive: true, force: true });
    git('worktree', 'prune');
    git('worktree', 'add', '--detach', root, commit);
  }
  let dependencies: string;
  if (existsSync(join(root, 'node_modules'))) {
    dependencies = 'installed before (reused)';
  } else if (lockHash(root) === lockHash(ROOT)) {
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
    dependencies = "this checkout's node_modules (package-lock.json identical)";
  } else {
    console.log(`installing ${commit.slice(0, 12)}'s dependencies (npm ci, its package-lock.json differs)…`);
    const log = join(root, 'npm-ci.log');
    const done = spawnSync('sh', ['-c', `npm ci --no-audit --no-fund > '${log}' 2>&1`], { cwd: root });
    if (done.status !== 0) throw new Error(`npm ci failed in ${root} (see ${log})`);
    dependencies = 'its own npm ci (package-lock.json differs)';
  }
  return { root, commit, dependencies };
}

export function removeWorktree(root: string) {
  git('worktree', 'remove', '--force', root);
}

interface Round {
  /**
   * The engine alone (this build's, in this process), on the machine as it is then: measured right before the round and
   * right after it (its service stopped), and their mean, which the round's whole is divided by.
   */
  engineMs: number;
  engineBeforeMs: number;
  engineAfterMs: number;
  perSecond: number;
  p50: number;
  serviceMain: number;
  serviceOther: number;
  /** Of serviceOther, the pool's threads: the engine as it ran in the service, in the same seconds as the whole. */
  servicePool: number;
  postgres: number;
  total: number;
  loadGenerator: number;
  idlePct: number;
  stealPct: number;
  reportsIdlePct: number;
  drainIdlePct: number;
  drainSeconds: number;
  transactions: number;
  rowsWritten: number;
  storedBytes: number;
  jobBytes: number;
  notModifiedMs: number;
  fullReadMs: number;
  webhook: boolean;
  tables: Awaited<ReturnType<typeof storagePerReport>>['tables'];
}

async function oneRound(root: string): Promise<Round> {
  // The machine's speed drifts within a run (the engine alone measured 5.4–8.9 ms on one VM within an hour, and 7.6
  // against 11.1 ms a minute apart on another), so each round's whole is divided by the engine measured on both sides
  // of it, with nothing else of the bench running. Six scratch rounds on one VM: over the engine before each round
  // alone the ratio ranged 2.01–2.89, over the mean of the engines on both sides 2.38–2.81, with the same mean.
  const engineBeforeMs = engineCpuPerReport(ENGINE_REPORTS, 50);
  const round = await measureRound(root);
  const engineAfterMs = engineCpuPerReport(ENGINE_REPORTS, 50);
  return { ...round, engineBeforeMs, engineAfterMs, engineMs: (engineBeforeMs + engineAfterMs) / 2 };
}

/** Reports of each engine-alone measurement beside a round. */
const ENGINE_REPORTS = 400;

async function measureRound(
  root: string,
): Promise<Omit<Round, 'engineMs' | 'engineBeforeMs' | 'engineAfterMs'>> {
  const receiver = await webhookReceiver();
  try {
    return await withService(
      { root, poolThreads: availableParallelism(), webhookUrl: receiver.url },
      async (service) => {
        await closedLoop(service.url, service.key, 4, 10, Math.min(DURATION_MS, 5000)); // warm-up
        const run = await sustained(service, 16, receiver.received);
        const reads = await conditionalReadCost(service, 2000);
        const storage = await storagePerReport(service.databaseUrl);
        const c = run.cpu!;
        const sorted = [...run.latencies].sort((a, b) => a - b);
        return {
          perSecond: (run.completed / run.elapsedMs) * 1000,
          p50: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
          serviceMain: c.serviceMain,
          serviceOther: c.serviceOther,
          servicePool: c.servicePool,
          postgres: c.postgres,
          total: c.serviceMain + c.serviceOther + c.postgres,
          loadGenerator: c.loadGenerator,
          idlePct: c.idlePct,
          stealPct: c.stealPct,
          reportsIdlePct: c.reportsIdlePct,
          drainIdlePct: c.drainIdlePct,
          drainSeconds: c.drainSeconds,
          transactions: run.db!.transactions,
          rowsWritten: run.db!.rowsWritten,
          storedBytes: storage.report,
          jobBytes: storage.jobs,
          notModifiedMs: reads.notModified?.serviceMs ?? Number.NaN,
          fullReadMs: reads.full?.serviceMs ?? Number.NaN,
          webhook: service.webhook,
          tables: storage.tables,
        };
      },
    );
  } finally {
    await receiver.close();
  }
}

const FIGURES: Array<[keyof Round, string, number]> = [
  ['perSecond', 'sustained reports/s (pool)', 1],
  ['p50', 'sustained p50 ms (server side)', 0],
  ['total', 'CPU ms per report: service + PostgreSQL', 1],
  ['serviceMain', 'CPU ms per report: service main thread', 1],
  ['serviceOther', 'CPU ms per report: service other threads', 1],
  ['servicePool', 'CPU ms per report: of those, the pool (the engine in the service)', 1],
  ['postgres', 'CPU ms per report: PostgreSQL', 1],
  ['loadGenerator', 'CPU ms per report: load generator (+ webhook receiver)', 2],
  ['transactions', 'PostgreSQL transactions per report', 1],
  ['rowsWritten', 'rows written per report (inserted + updated + deleted)', 1],
  ['storedBytes', 'stored bytes per report: report tables (after VACUUM)', 0],
  ['jobBytes', 'stored bytes per report: pg-boss job tables (after VACUUM)', 0],
  ['notModifiedMs', 'service CPU ms per 304 read (If-None-Match)', 3],
  ['fullReadMs', 'service CPU ms per 200 read of a finished report', 3],
];

export async function compareAgainst(ref: string, options: { clean: boolean; engineMs: number }) {
  const rounds = Math.max(2, Number(process.env.BENCH_ROUNDS ?? 2));
  const other = prepareWorktree(ref);
  const self =
    git('rev-parse', '--short=12', 'HEAD') +
    (git('status', '--porcelain', '--untracked-files=no') ? ' (+ uncommitted changes)' : '');
  console.log(
    `this: ${self}; that: ${ref} = ${other.commit.slice(0, 12)} in ${other.root}, dependencies: ${other.dependencies}`,
  );
  console.log(
    `${rounds} rounds each, alternately; ${DURATION_MS / 1000} s sustained run per round, pool ${availableParallelism()} threads, one process`,
  );
  const mine: Round[] = [];
  const theirs: Round[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? (['this', 'that'] as const) : (['that', 'this'] as const);
      for (const which of order) {
        const round = await oneRound(which === 'this' ? ROOT : other.root);
        (which === 'this' ? mine : theirs).push(round);
        console.log(
          `  round ${i + 1}, ${which}: ${round.perSecond.toFixed(1)} reports/s, ${round.total.toFixed(1)} ms CPU per report ` +
            `(service ${(round.serviceMain + round.serviceOther).toFixed(1)}, PostgreSQL ${round.postgres.toFixed(1)}), ` +
            `idle ${round.idlePct.toFixed(1)} % (${round.reportsIdlePct.toFixed(1)} % while reports ran, ` +
            `${round.drainIdlePct.toFixed(1)} % over ${round.drainSeconds.toFixed(1)} s of webhook deliveries after them), ` +
            `steal ${round.stealPct.toFixed(1)} %${round.webhook ? '' : ', no webhooks in this build'}; ` +
            `engine alone before / after ${round.engineBeforeMs.toFixed(2)} / ${round.engineAfterMs.toFixed(2)} ms, ` +
            `whole ÷ engine ${(round.total / round.engineMs).toFixed(2)}, whole ÷ pool ${(round.total / round.servicePool).toFixed(2)}`,
        );
      }
    }
  } finally {
    if (options.clean) removeWorktree(other.root);
  }
  const mean = (rows: Round[], key: keyof Round) =>
    rows.reduce((s, r) => s + Number(r[key]), 0) / rows.length;
  const fmt = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
  console.log(`\n| figure | this (${self.slice(0, 12)}) | that (${ref}) | this ÷ that | per-round ratios |`);
  console.log('|---|---|---|---|---|');
  for (const [key, label, digits] of FIGURES) {
    const a = mean(mine, key);
    const b = mean(theirs, key);
    const ratios = mine.map((r, i) => Number(r[key]) / Number(theirs[i]![key]));
    const finite = ratios.filter(Number.isFinite);
    const spread = finite.length ? `${fmt(Math.min(...finite), 2)}–${fmt(Math.max(...finite), 2)}` : '—';
    console.log(
      `| ${label} | ${mine.map((r) => fmt(Number(r[key]), digits)).join(' / ')} | ${theirs.map((r) => fmt(Number(r[key]), digits)).join(' / ')} | **${fmt(a / b, 2)}** | ${spread} |`,
    );
  }
  const last = mine.at(-1)!;
  console.log('\nthis build, bytes per stored report by table after VACUUM (its last round):');
  console.log('| table | total | table | TOAST | indexes |');
  console.log('|---|---|---|---|---|');
  for (const t of last.tables)
    console.log(
      `| ${t.table} | ${fmt(t.total, 0)} | ${fmt(t.heap, 0)} | ${fmt(t.toast, 0)} | ${fmt(t.indexes, 0)} |`,
    );
  const idle = (rows: Round[]) => rows.map((r) => `${fmt(r.idlePct, 1)} / ${fmt(r.stealPct, 1)}`).join(', ');
  console.log(
    `\nmachine idle / steal % during the sustained runs — this: ${idle(mine)}; that: ${idle(theirs)}`,
  );
  // The whole run's idle share includes the webhook deliveries that finish after the last report (their drain,
  // paced by the per-account delivery cap, mostly waiting): apart, the idle share while reports ran.
  const split = (rows: Round[]) =>
    rows
      .map(
        (r) =>
          `${fmt(r.reportsIdlePct, 1)} (drain ${fmt(r.drainSeconds, 1)} s at ${fmt(r.drainIdlePct, 0)} %)`,
      )
      .join(', ');
  console.log(`machine idle % while reports ran — this: ${split(mine)}; that: ${split(theirs)}`);
  const engine = options.engineMs;
  const bracket = (rows: Round[]) =>
    rows.map((r) => `${fmt(r.engineBeforeMs, 2)}–${fmt(r.engineAfterMs, 2)}`).join(' / ');
  // Each round's whole over one of its own figures (the engine alone beside it, or its pool's threads), and their mean.
  const over = (rows: Round[], of: 'engineMs' | 'servicePool') =>
    rows.map((r) => fmt(r.total / r[of], 2)).join(' / ');
  const meanOver = (rows: Round[], of: 'engineMs' | 'servicePool') =>
    fmt(rows.reduce((sum, r) => sum + r.total / r[of], 0) / rows.length, 2);
  console.log(
    `engine alone (this build, in process) at the start: ${engine.toFixed(2)} ms CPU per report; before–after each round: ` +
      `this ${bracket(mine)}, that ${bracket(theirs)}`,
  );
  console.log(
    `whole (service + PostgreSQL) ÷ engine, each round over the mean of the engine measured before and after it: this ${over(mine, 'engineMs')} ` +
      `(mean ${meanOver(mine, 'engineMs')}), that ${over(theirs, 'engineMs')} (mean ${meanOver(theirs, 'engineMs')}; that build's ` +
      `whole over this build's engine)`,
  );
  // The engine alone is measured before and after a round, and the machine's speed drifts within it (four rounds of one
  // build within twenty minutes: 2.19–3.08 on the twenty-first stop's VM); the pool's threads run the engine in the same
  // seconds as the whole, so this ratio moves with the build, not with the machine (2.82–2.84 over those four rounds).
  console.log(
    `whole ÷ the pool's threads in the same run (the engine as the service ran it): this ${over(mine, 'servicePool')} ` +
      `(mean ${meanOver(mine, 'servicePool')}), that ${over(theirs, 'servicePool')} (mean ${meanOver(theirs, 'servicePool')})`,
  );
}
