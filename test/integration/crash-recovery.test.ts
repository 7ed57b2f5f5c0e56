/**
 * Durability of the job: a server killed with SIGKILL in the middle of a report's job loses nothing — the
 * next server to start picks the job up again; and when the retries run out, the report fails instead of
 * staying pending. Runs the real `node server/main.ts` on PostgreSQL; the job is held mid-way by a table
 * lock taken from another connection, exactly where a slow or stuck database would hold it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect, createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { type ChildService, runCli, startChildService, until } from '../helpers/process.ts';
import { fixture } from '../helpers/service.ts';

// Real processes, a heartbeat of 10 s and a retry: each test needs tens of seconds, more on a busy machine.
describe('crash recovery', { timeout: 240_000 }, () => {
  let db: TestDatabase | undefined;
  const children: ChildService[] = [];

  afterEach(async () => {
    for (const child of children.splice(0)) await child.kill('SIGKILL');
    await db?.drop();
    db = undefined;
  });

  /** Starts a server, holds a report's job in its store step, kills the server with SIGKILL. */
  async function killMidJob(settings: Record<string, string>) {
    db = await createTestDatabase('postgres');
    const url = db.databaseUrl!;
    const env = { ...settings, DATABASE_URL: url };
    const first = await startChildService(env);
    children.push(first);
    const cli = await runCli(['keys', 'create', '--email', 'crash@example.com', '--mode', 'test'], env);
    expect(cli.code, cli.stderr).toBe(0);
    const key = cli.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^ek_test_/);

    const blocker = await connect(url);
    await blocker.query('begin');
    await blocker.query('lock table statements in access exclusive mode');
    const response = await fetch(`${first.url}/api/v1/developer/reports/financial`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
      body: JSON.stringify(fixture('general_new-3y')),
    });
    expect(response.status).toBe(202);
    const { report_id: reportId, task_id: taskId } = (await response.json()) as {
      report_id: string;
      task_id: string;
    };

    const observer = await connect(url);
    await until('the job to be in its store step', async () => {
      const { rows } = await observer.query('select step, attempts from tasks where id = $1', [taskId]);
      return rows[0]?.step === 'store' && rows[0]?.attempts === 1 ? true : undefined;
    });
    await first.kill('SIGKILL');
    await blocker.query('rollback');
    await blocker.end();
    const { rows } = await observer.query('select status from reports where id = $1', [reportId]);
    expect(rows[0].status).toBe('pending');
    return { key, reportId, taskId, observer, env };
  }

  async function readReport(service: ChildService, key: string, reportId: string) {
    const response = await fetch(`${service.url}/api/v1/developer/reports/${reportId}`, {
      headers: { 'X-API-Key': key },
    });
    return (await response.json()) as { status: string; error_message: string | null };
  }

  it('finishes a report whose server was killed mid-job, after a restart', async () => {
    const { key, reportId, taskId, observer, env } = await killMidJob({
      JOB_HEARTBEAT_SECONDS: '10',
      JOB_MONITOR_SECONDS: '1',
    });
    const second = await startChildService(env);
    children.push(second);
    const report = await until('the report to leave pending', async () => {
      const body = await readReport(second, key, reportId);
      return body.status === 'pending' ? undefined : body;
    });
    expect(report.status).toBe('success');
    const { rows } = await observer.query('select status, attempts from tasks where id = $1', [taskId]);
    expect(rows[0]).toEqual({ status: 'success', attempts: 2 });
    const analysis = await fetch(`${second.url}/api/v1/developer/reports/${reportId}/analysis`, {
      headers: { 'X-API-Key': key },
    });
    expect(analysis.status).toBe(200);
    await observer.end();
  });

  it('fails the report, rather than leaving it pending, when its job runs out of attempts', async () => {
    const { key, reportId, taskId, observer, env } = await killMidJob({
      JOB_HEARTBEAT_SECONDS: '10',
      JOB_MONITOR_SECONDS: '1',
      JOB_RETRY_LIMIT: '0',
    });
    const second = await startChildService(env);
    children.push(second);
    const report = await until('the report to leave pending', async () => {
      const body = await readReport(second, key, reportId);
      return body.status === 'pending' ? undefined : body;
    });
    expect(report.status).toBe('failed');
    expect(report.error_message).toBeTruthy();
    const { rows } = await observer.query('select status from tasks where id = $1', [taskId]);
    expect(rows[0].status).toBe('failed');
    await observer.end();
  });
});
