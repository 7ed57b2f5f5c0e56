/**
 * The submission writes its analysis job, and the assemble statement its report.succeeded deliveries' jobs, with
 * pg-boss's own insert embedded in their statements (JobQueue.jobInsertCtes, issue 26) instead of pg-boss's send in
 * a transaction. The jobs must be the jobs pg-boss's send makes — same queue settings, group, priority, retention —
 * and the analysis job must still wake the workers by the queue's NOTIFY, or they would find it only at their poll.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Transaction } from 'kysely';
import { notifyChannelSql } from 'pg-boss/dist/plans.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSql } from '../../server/db/sql.ts';
import { ANALYSIS_QUEUE, preparedDb } from '../../server/jobs/queue.ts';
import { enqueueDelivery, WEBHOOK_QUEUE } from '../../server/webhooks/delivery.ts';
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

  it('writes each report.succeeded delivery’s job as enqueueDelivery writes it', async () => {
    const receiver = createServer((_req, res) => {
      res.statusCode = 204;
      res.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
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
      const deliveries = await runSql<{ id: string; account_id: string }>(
        service.services.db.orm.em.fork(),
        `select d.id, e.account_id from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
          where d.event_key = $1`,
        [`report.succeeded:${submitted.body.report_id}`],
      );
      expect(deliveries).toHaveLength(2);
      for (const delivery of deliveries) {
        const job = await jobOf(WEBHOOK_QUEUE, 'deliveryId', delivery.id);
        expect(job.data).toEqual({ deliveryId: delivery.id });
        expect(job.group_id).toBe(delivery.account_id);
        const reference = await referenceJob(
          (tx) => enqueueDelivery(service.services, tx, delivery.id, delivery.account_id, 0),
          `name = $1 and data->>'deliveryId' = $2 and id <> $3`,
          [WEBHOOK_QUEUE, delivery.id, job.id],
        );
        expect(settings(job)).toEqual(settings(reference));
      }
    } finally {
      receiver.close();
    }
  });
});
