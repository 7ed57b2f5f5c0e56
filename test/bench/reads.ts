/**
 * `npm run bench:reads`: the service's CPU per read of a finished report, one request at a time — 304 on
 * If-None-Match and 200 — against PostgreSQL (DATABASE_URL, or the local server), every capability on (lib.ts
 * withService). BENCH_READS sets the number of requests per figure (default 4000), BENCH_ROUNDS the rounds.
 * The same figure `npm run bench` prints, alone, so a change to the read path can be measured in a minute.
 * Figures go to stdout. Nothing here is a test.
 */
import { conditionalReadCost, withService } from './lib.ts';

const n = Number(process.env.BENCH_READS ?? 4000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const fmt = (value: number | undefined) => (value === undefined ? '—' : value.toFixed(3));
await withService({ poolThreads: 1, split: false }, async (service) => {
  for (let round = 1; round <= rounds; round++) {
    const reads = await conditionalReadCost(service, n);
    console.log(
      `round ${round}: 304 service ${fmt(reads.notModified?.serviceMs)} ms, PostgreSQL ` +
        `${fmt(reads.notModified?.postgresMs)} ms, wall ${fmt(reads.notModified?.wallMs)} ms · 200 service ` +
        `${fmt(reads.full?.serviceMs)} ms, PostgreSQL ${fmt(reads.full?.postgresMs)} ms, wall ${fmt(reads.full?.wallMs)} ms`,
    );
  }
});
