/**
 * `node test/bench/profileStatements.ts`: one pooled sustained run (every capability on) with pg_stat_statements
 * reset before it, then the statements of the bench's database by total time, per report. Needs the
 * pg_stat_statements extension loaded by the server (shared_preload_libraries) and created in the admin database.
 */

import { availableParallelism } from 'node:os';
import pg from 'pg';
import { ADMIN_URL, agent, closedLoop, sustained, webhookReceiver, withService } from './lib.ts';

const receiver = await webhookReceiver();
await withService({ poolThreads: availableParallelism(), webhookUrl: receiver.url }, async (service) => {
  await closedLoop(service.url, service.key, 4, 10, 3000);
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const dbName = new URL(service.databaseUrl).pathname.slice(1);
  await admin.query('select pg_stat_statements_reset()');
  const run = await sustained(service, 16, receiver.received);
  const { rows } = await admin.query(
    `select calls, total_exec_time, total_plan_time, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) as q
       from pg_stat_statements s join pg_database d on d.oid = s.dbid
      where d.datname = $1 order by (case when $2 then calls else total_exec_time + total_plan_time end) desc limit 30`,
    [dbName, process.env.BY_CALLS === '1'],
  );
  const n = run.completed;
  console.log(`${n} reports, ${((n / run.elapsedMs) * 1000).toFixed(1)}/s; cpu`, run.cpu, 'db', run.db);
  console.log('| calls/report | ms/report | ms/call | query |');
  for (const r of rows)
    console.log(
      `| ${(r.calls / n).toFixed(2)} | ${((r.total_exec_time + r.total_plan_time) / n).toFixed(3)} | ${((r.total_exec_time + r.total_plan_time) / r.calls).toFixed(3)} | ${r.q} |`,
    );
  await admin.end();
});
await receiver.close();
agent.destroy();
