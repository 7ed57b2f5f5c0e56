/**
 * Statements whose plan is cached keep finding rows by their key while a table outgrows the statistics the plan was
 * made for (issue 26). A prepared statement's plan is made once per connection, for the table as its last ANALYZE saw
 * it, and kept until the next ANALYZE: a plan made while a table was small scanned the whole table, and went on
 * scanning it while a burst grew it tenfold. Each case here makes the plan on a small analysed table, grows the table
 * tenfold without analysing it, and reads the plan the statement then runs with (EXPLAIN of the statement as the
 * service runs it: EXECUTE of its cached plan when it is a prepared statement on the connection, else the statement
 * planned for its parameters).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepared } from '../../server/db/prepared.ts';
import { runSql } from '../../server/db/sql.ts';
import { claimingFetchSql } from '../../server/jobs/analyseReport.ts';
import {
  SETTLE_SQL,
  type Settlement,
  settleDeliveries,
  settleParams,
} from '../../server/webhooks/delivery.ts';
import { planBuffers, rolledBack } from '../helpers/database.ts';
import { insertReportRows } from '../helpers/records.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const ACCOUNT = '00000000-0000-4000-8000-00000000a001';
const ENDPOINT = '00000000-0000-4000-8000-00000000e001';
const ENTERPRISE = '00000000-0000-4000-8000-0000000e0001';

/** A SQL literal of `value` (arrays as array literals), for EXECUTE, which takes no bind parameters. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value))
    return `'{${value.map((v) => (v === null ? 'NULL' : `"${literalText(v)}"`)).join(',')}}'`;
  return `'${literalText(value).replaceAll("'", "''")}'`;
}
function literalText(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/**
 * The plan `text` runs with on `tx`'s connection now, executed in a savepoint rolled back (EXPLAIN ANALYZE): its
 * cached plan when the connection holds it as a prepared statement, else the statement planned for `values`.
 */
async function planAsRun(tx: EntityManager, text: string, values: unknown[]): Promise<string> {
  const [held] = await runSql<{ name: string }>(
    tx,
    'select name from pg_prepared_statements where statement = $1',
    [text],
  );
  await runSql(tx, 'savepoint explained');
  const rows = held
    ? await runSql<Record<string, string>>(
        tx,
        `explain (analyze, buffers, costs off, timing off) execute ${held.name}(${values.map(literal).join(', ')})`,
      )
    : await runSql<Record<string, string>>(
        tx,
        `explain (analyze, buffers, costs off, timing off) ${text}`,
        values,
      );
  await runSql(tx, 'rollback to savepoint explained');
  return rows.map((row) => Object.values(row)[0]).join('\n');
}

describe('cached plans on postgres', () => {
  let service: TestService;
  let em: EntityManager;
  beforeAll(async () => {
    service = await startTestService('postgres');
    em = service.services.db.orm.em.fork() as EntityManager;
    await runSql(em, `insert into accounts (id, email, created_at) values ($1, 'plans@example.com', now())`, [
      ACCOUNT,
    ]);
    await runSql(
      em,
      `insert into webhook_endpoints (id, account_id, mode, url, secret, created_at, updated_at)
       values ($1, $2, 'test', 'https://receiver.example.com/hook', 'whsec_x', now(), now())`,
      [ENDPOINT, ACCOUNT],
    );
    await runSql(
      em,
      `insert into enterprises (id, account_id, mode, name, report_count, created_at, updated_at)
       values ($1, $2, 'test', 'Plans Co', 0, now(), now())`,
      [ENTERPRISE, ACCOUNT],
    );
  });
  afterAll(async () => {
    await service?.close();
  });

  /** `count` delivered deliveries (nothing for the delivery worker to take), or `count` leased ones returning ids. */
  const addDeliveries = (tx: EntityManager, count: number, status: 'delivered' | 'leased') =>
    runSql<{ id: string }>(
      tx,
      `insert into webhook_deliveries (id, endpoint_id, account_id, event_key, event_type, payload, status, attempts,
                                       priority, created_at, next_attempt_at, attempt_started_at)
       select gen_random_uuid(), $1, $2, 'report.succeeded:' || gen_random_uuid(), 'report.succeeded', repeat('x', 300),
              $3::text, 0, 1, now(), now(), case when $3::text = 'pending' then now() end
         from generate_series(1, $4) returning id`,
      [ENDPOINT, ACCOUNT, status === 'leased' ? 'pending' : 'delivered', count],
    );

  it("settles attempts by their deliveries' key after the deliveries grew tenfold past their statistics", async () => {
    await addDeliveries(em, 300, 'delivered');
    await runSql(em, 'analyze webhook_deliveries');
    await rolledBack(em, async (tx) => {
      const settle = async () => {
        const ids = (await addDeliveries(tx, 4, 'leased')).map((row) => row.id);
        const now = new Date();
        const settlements: Settlement[] = ids.map((id) => ({
          id,
          attemptNo: 1,
          attemptedAt: now,
          statusCode: 204,
          latencyMs: 3,
          error: null,
          status: 'delivered',
          nextAttemptAt: null,
          deliveredAt: now,
          goneReason: null,
          priority: 1,
          endpointId: ENDPOINT,
        }));
        return settlements;
      };
      // As the delivery worker settles on its connection: often enough for a cached plan to be made and kept.
      for (let i = 0; i < 8; i++) await settleDeliveries(tx, await settle());
      const small = await planAsRun(tx, SETTLE_SQL, settleParams(await settle()));
      await addDeliveries(tx, 3000, 'delivered');
      const grown = await planAsRun(tx, SETTLE_SQL, settleParams(await settle()));
      // A plan kept from the small table hashed every delivery: 223 buffers at 3,300 of them, and growing.
      expect(grown).not.toMatch(/Seq Scan on webhook_deliveries/);
      expect(planBuffers(grown)).toBeLessThanOrEqual(planBuffers(small) + 12);
    });
  });

  it('completes an analysis job by its key after the job table grew tenfold past its statistics', async () => {
    const completion = prepared(
      `with ${service.services.queue.analysisCompletionCte('job_done', '$1', '$2')} select count(*)::int as n from job_done`,
    );
    const addJobs = (tx: EntityManager, count: number, state: 'completed' | 'active') =>
      runSql<{ id: string; retry_count: number }>(
        tx,
        `insert into pgboss.job (id, name, data, state, started_on, group_id)
         select gen_random_uuid(), 'report-analysis', '{}'::jsonb, $1::pgboss.job_state,
                case when $1 = 'active' then now() end, $2
           from generate_series(1, $3) returning id, retry_count`,
        [state, ACCOUNT, count],
      );
    await addJobs(em, 400, 'completed');
    await runSql(em, 'analyze pgboss.job');
    await rolledBack(em, async (tx) => {
      // The assemble statement's plan, as its connection caches it (the bench's runs showed it generic).
      await runSql(tx, 'set local plan_cache_mode = force_generic_plan');
      const complete = async () => {
        const [job] = await addJobs(tx, 1, 'active');
        return service.services.queue.completionParams({ id: job!.id, retryCount: job!.retry_count });
      };
      for (let i = 0; i < 3; i++) {
        const [done] = await runSql<{ n: number }>(tx, completion, await complete());
        expect(done!.n).toBe(1);
      }
      const small = await planAsRun(tx, completion, await complete());
      await addJobs(tx, 4000, 'completed');
      const grown = await planAsRun(tx, completion, await complete());
      expect(grown).toMatch(/\(actual rows=1 loops=1\)/);
      // A plan for an array parameter (ten ids assumed) scanned the whole job table: every report read every job.
      expect(grown).not.toMatch(/Seq Scan on job_common/);
      expect(planBuffers(grown)).toBeLessThanOrEqual(planBuffers(small) + 6);
    });
  });

  it("claims a fetch's tasks by their key while a backlog of processing tasks is past the statistics", async () => {
    /** `count` reports with their tasks in `status` (a task processing: its report pending); returns the tasks' ids. */
    const addTasks = async (tx: EntityManager, count: number, status: 'success' | 'processing') => {
      const reports = await insertReportRows(tx, {
        accountId: ACCOUNT,
        enterpriseId: ENTERPRISE,
        count,
        status: status === 'processing' ? 'pending' : 'success',
      });
      const rows = await runSql<{ id: string }>(
        tx,
        `insert into tasks (id, report_id, status, step, attempts, payload, created_at, updated_at)
         select gen_random_uuid(), report, $2, 'queued', 0, '{"years": []}'::jsonb, now(), now()
           from unnest($1::uuid[]) as report
         returning id`,
        [reports, status],
      );
      return rows.map((row) => row.id);
    };
    // A stand-in for pg-boss's fetch (its columns id and data): the jobs of the tasks given as $1. The array goes through
    // a subquery so that the planner assumes ten of them, as it does for pg-boss's fetch (a bound array it would count).
    const claim = claimingFetchSql(
      `select gen_random_uuid() as id, jsonb_build_object('taskId', task) as data from unnest((select $1::uuid[])) as task`,
      1,
    );
    await addTasks(em, 100, 'success');
    await runSql(em, 'analyze tasks');
    await runSql(em, 'analyze reports');
    await rolledBack(em, async (tx) => {
      const fetchTwo = async () => [await addTasks(tx, 2, 'processing'), new Date()];
      const small = await planAsRun(tx, claim, await fetchTwo());
      // A burst: a thousand reports waiting, none of them in the statistics (every task was done at the ANALYZE).
      await addTasks(tx, 1000, 'processing');
      const grown = await planAsRun(tx, claim, await fetchTwo());
      const rows = await runSql<{ claim_account_id: string | null }>(tx, claim, await fetchTwo());
      expect(rows.map((row) => row.claim_account_id)).toEqual([ACCOUNT, ACCOUNT]);
      // Joined with the ids, the claim walked every processing task and looked up each one's report: ≈ 3 buffers a
      // task of the backlog. By the key it reads the claimed tasks' (a table this small may still be scanned whole,
      // a few dozen pages, until probing ten ids is the cheaper plan).
      expect(planBuffers(grown)).toBeLessThanOrEqual(planBuffers(small) + 40);
    });
  });
});
