/**
 * The submission writes its analysis job with pg-boss's own insert embedded in its statement (JobQueue.analysisJobInsertCtes,
 * issue 26) instead of pg-boss's send in a transaction. The job must be the job pg-boss's send makes — same queue
 * settings, group, priority, retention — and must still wake the workers by the queue's NOTIFY, or they would find
 * it only at their poll. The assemble statement records the report.succeeded deliveries (the deliveries' queue)
 * as emitReportEvent records them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Transaction } from 'kysely';
import { notifyChannelSql } from 'pg-boss/dist/plans.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSql } from '../../server/db/sql.ts';
import { ANALYSIS_QUEUE, preparedDb } from '../../server/jobs/queue.ts';
import { emitReportEvent } from '../../server/webhooks/delivery.ts';
import { connect } from '../helpers/database.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const SUBMIT = '/api/v1/developer/reports/financial';

/** A job's columns that its run changes or that name this job alone; everything else pg-boss set at insert. */
const PER_JOB = new Set([
  'id',
  'data',
  'state',
  'retry_count',
  'start_after',
  'started_on',
  'created_on',
  'completed_on',
  'keep_until',
  'output',
  'heartbeat_on',
]);

type Row = Record<string, unknown>;

/** What pg-boss set at insert, with its retention as an interval rather than a time. */
function settings(row: Row): Row {
  const kept = Object.fromEntries(Object.entries(row).filter(([column]) => !PER_JOB.has(column)));
  const retention = new Date(String(row.keep_until)).getTime() - new Date(String(row.start_after)).getTime();
  return { ...kept, retention_seconds: Math.round(retention / 1000) };
}

describe('jobs embedded in the statements that need them', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('postgres', { webhookAllowPrivate: true });
  });
  afterAll(async () => {
    await service?.close();
  });

  /** The row pg-boss's own send writes in `send`, read in its transaction, which is then rolled back. */
  async function referenceJob(send: (tx: EntityManager) => Promise<void>, where: string, params: unknown[]) {
    let row: Row | undefined;
    await service.services.db.orm.em
      .fork()
      .transactional(async (tx) => {
        await send(tx);
        [row] = await runSql<Row>(tx, `select * from pgboss.job where ${where}`, params);
        throw new Error('rolled back');
      })
      .catch((error: Error) => {
        if (error.message !== 'rolled back') throw error;
      });
    if (!row) throw new Error('pg-boss wrote no job');
    return row;
  }

  async function jobOf(queue: string, field: string, value: string): Promise<Row> {
    const [job] = await runSql<Row>(
      service.services.db.orm.em.fork(),
      `select * from pgboss.job where name = $1 and data->>'${field}' = $2`,
      [queue, value],
    );
    if (!job) throw new Error(`no ${queue} job for ${value}`);
    return job;
  }

  it('writes the analysis job pg-boss’s send writes, and wakes the workers by its NOTIFY', async () => {
    const key = await service.newKey('test');
    const listener = await connect(service.db.databaseUrl!);
    const notified: string[] = [];
    listener.on('notification', (message) => notified.push(message.payload ?? ''));
    const channel = (await listener.query(`select ${notifyChannelSql('pgboss')} as channel`)).rows[0].channel;
    await listener.query(`listen "${channel}"`);
    try {
      const submitted = await service.request(SUBMIT, {
        method: 'POST',
        key,
        body: fixture('general_new-3y'),
      });
      expect(submitted.status).toBe(202);
      const deadline = Date.now() + 5000;
      while (!notified.includes(ANALYSIS_QUEUE) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(notified).toContain(ANALYSIS_QUEUE);

      const job = await jobOf(ANALYSIS_QUEUE, 'reportId', submitted.body.report_id);
      expect(job.data).toEqual({ reportId: submitted.body.report_id, taskId: submitted.body.task_id });
      expect(job.group_id).toEqual(expect.any(String));
      const reference = await referenceJob(
        async (tx) => {
          await service.services.queue.boss.send(ANALYSIS_QUEUE, job.data as object, {
            db: preparedDb(tx.getTransactionContext() as Transaction<unknown>),
            group: { id: job.group_id as string },
          });
        },
        `name = $1 and state = 'created' and id <> $2`,
        [ANALYSIS_QUEUE, job.id],
      );
      expect(settings(job)).toEqual(settings(reference));
    } finally {
      await listener.end();
    }
  });

  it('claims and stores a job’s report in the statement that fetches the job', async () => {
    // Test instrumentation: each row change we look for records the transaction that made it.
    const probe = await connect(service.db.databaseUrl!);
    try {
      await probe.query(`
        create table claim_probe (what text, report_id text, tx bigint);
        create function claim_probe_task() returns trigger language plpgsql as $$ begin
          if new.step = 'compute' and old.step <> 'compute' then
            insert into claim_probe values ('claim', new.report_id::text, txid_current());
          end if;
          return new;
        end $$;
        create trigger claim_probe_task after update on tasks for each row execute function claim_probe_task();
        create function claim_probe_store() returns trigger language plpgsql as $$ begin
          insert into claim_probe values ('store', new.report_id::text, txid_current());
          return new;
        end $$;
        create trigger claim_probe_store after insert on statements for each row execute function claim_probe_store();
        create function claim_probe_job() returns trigger language plpgsql as $$ begin
          if new.name = '${ANALYSIS_QUEUE}' and new.state = 'active' and old.state <> 'active' then
            insert into claim_probe values ('fetch', new.data ->> 'reportId', txid_current());
          end if;
          return new;
        end $$;
        create trigger claim_probe_job after update on pgboss.job_common for each row execute function claim_probe_job();`);
      const key = await service.newKey('test');
      const submitted = await service.request(SUBMIT, {
        method: 'POST',
        key,
        body: fixture('general_new-3y'),
      });
      expect(submitted.status).toBe(202);
      await waitForReport(service, key, submitted.body.report_id);
      const { rows } = await probe.query<{ what: string; tx: string }>(
        'select what, tx from claim_probe where report_id = $1 order by what',
        [submitted.body.report_id],
      );
      // One fetch, one claim, a row per year and sheet stored — all by one transaction.
      expect(rows.filter((row) => row.what === 'fetch')).toHaveLength(1);
      expect(rows.filter((row) => row.what === 'claim')).toHaveLength(1);
      expect(rows.filter((row) => row.what === 'store')).toHaveLength(9);
      expect(new Set(rows.map((row) => row.tx)).size).toBe(1);
    } finally {
      await probe.query(`
        drop trigger if exists claim_probe_job on pgboss.job_common;
        drop trigger if exists claim_probe_store on statements;
        drop trigger if exists claim_probe_task on tasks;
        drop function if exists claim_probe_job, claim_probe_store, claim_probe_task;
        drop table if exists claim_probe`);
      await probe.end();
    }
  });

  it('keeps fetching when a job’s claim cannot be made: that job fails alone, the next report succeeds', async () => {
    const probe = await connect(service.db.databaseUrl!);
    try {
      // Test instrumentation: storing the statements of one enterprise's reports fails.
      await probe.query(`
        create function poison_statements() returns trigger language plpgsql as $$ begin
          if exists (select 1 from reports r join enterprises e on e.id = r.enterprise_id
                      where r.id = new.report_id and e.name = 'Poisoned Co') then
            raise exception 'statements of a poisoned report';
          end if;
          return new;
        end $$;
        create trigger poison_statements before insert on statements for each row execute function poison_statements();`);
      const key = await service.newKey('test');
      const body = fixture('general_new-3y') as Record<string, unknown>;
      const poisoned = await service.request(SUBMIT, {
        method: 'POST',
        key,
        body: { ...body, enterprise_name: 'Poisoned Co' },
      });
      const healthy = await service.request(SUBMIT, { method: 'POST', key, body });
      expect([poisoned.status, healthy.status]).toEqual([202, 202]);
      expect((await waitForReport(service, key, healthy.body.report_id)).body.status).toBe('success');
      const failed = await waitForReport(service, key, poisoned.body.report_id, 90_000);
      expect(failed.body.status).toBe('failed');
    } finally {
      await probe.query(`
        drop trigger if exists poison_statements on statements;
        drop function if exists poison_statements`);
      await probe.end();
    }
  }, 120_000);

  it('records each report.succeeded delivery in the assemble statement as emitReportEvent records it', async () => {
    const receiver = createServer((_req, res) => {
      res.statusCode = 204;
      res.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    // Test instrumentation: every delivery row as it was inserted, before the delivery worker takes it.
    const probe = await connect(service.db.databaseUrl!);
    await probe.query(`
      create table delivery_probe as select * from webhook_deliveries with no data;
      create function delivery_probe() returns trigger language plpgsql as $$ begin
        insert into delivery_probe select new.*;
        return new;
      end $$;
      create trigger delivery_probe after insert on webhook_deliveries for each row execute function delivery_probe();`);
    try {
      const key = await service.newKey('test');
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const base = '/api/v1/developer/webhook-endpoints';
      expect((await service.request(base, { method: 'POST', key, body: { url } })).status).toBe(201);
      expect((await service.request(base, { method: 'POST', key, body: { url: `${url}/2` } })).status).toBe(
        201,
      );
      const submitted = await service.request(SUBMIT, {
        method: 'POST',
        key,
        body: fixture('general_new-3y'),
      });
      await waitForReport(service, key, submitted.body.report_id);
      // A third endpoint, registered after the report finished: emitReportEvent records its delivery alone (the
      // first two already have theirs).
      expect((await service.request(base, { method: 'POST', key, body: { url: `${url}/3` } })).status).toBe(
        201,
      );
      const em = service.services.db.orm.em.fork();
      await em.transactional((tx) => emitReportEvent(service.services, tx, submitted.body.report_id));
      const rows = await runSql<Row>(
        em,
        `select p.*, e.account_id as endpoint_account, e.url from delivery_probe p
           join webhook_endpoints e on e.id = p.endpoint_id where p.event_key = $1 order by e.url`,
        [`report.succeeded:${submitted.body.report_id}`],
      );
      expect(rows.map((row) => row.url)).toEqual([url, `${url}/2`, `${url}/3`]);
      const recorded = (row: Row) => {
        const {
          id,
          endpoint_id,
          url: _url,
          created_at,
          next_attempt_at,
          payload,
          endpoint_account,
          attempt_started_at,
          ...rest
        } = row;
        const { timestamp, ...event } = JSON.parse(String(payload)) as Row;
        return {
          ...rest,
          // Leased at insertion: handed to the delivery worker of the process that recorded it.
          handed_off: attempt_started_at !== null,
          event,
          own_account: row.account_id === endpoint_account,
          due_at_creation:
            new Date(String(next_attempt_at)).getTime() === new Date(String(created_at)).getTime(),
          has_timestamp: typeof timestamp === 'string',
        };
      };
      const reference = recorded(rows[2]!);
      expect(reference).toMatchObject({
        status: 'pending',
        attempts: 0,
        priority: 1,
        handed_off: false,
        own_account: true,
        due_at_creation: true,
        has_timestamp: true,
      });
      // The assemble statement's rows are emitReportEvent's, but that one of them (the first endpoint's, by id) was
      // handed off: this process's delivery worker had a slot, and the account no lease held.
      const assembled = [recorded(rows[0]!), recorded(rows[1]!)];
      const { handed_off: _notHanded, ...shared } = reference;
      for (const { handed_off: _handedOff, ...rest } of assembled) expect(rest).toEqual(shared);
      expect(assembled.filter((row) => row.handed_off)).toHaveLength(1);
    } finally {
      await probe.query(`
        drop trigger if exists delivery_probe on webhook_deliveries;
        drop function if exists delivery_probe();
        drop table if exists delivery_probe;`);
      await probe.end();
      receiver.close();
    }
  });
});
