/**
 * Durability of the job: a server killed with SIGKILL in the middle of a report's job loses nothing — the
 * next server to start picks the job up again; and when the retries run out, the report fails instead of
 * staying pending. Runs the real `node server/main.ts` on PostgreSQL; the job is held mid-way by a table
 * lock taken from another connection, exactly where a slow or stuck database would hold it.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { connect, createTestDatabase } from '../helpers/database.ts';
import { type ChildService, runCli, startChildService, until } from '../helpers/process.ts';
import { fixture } from '../helpers/service.ts';

// Real processes, a heartbeat of 10 s and a retry: each test needs tens of seconds, more on a busy machine.
// The two tests, each on its own database, run at once: most of their time is spent waiting for a heartbeat
// to expire.
describe.concurrent('crash recovery', { timeout: 240_000 }, () => {
  /**
   * Starts a server, holds a report's job in its assemble step (its attempt counted, its statements stored), kills
   * the server with SIGKILL. What it starts
   * (and `start` starts) is killed, and the database dropped, when the test finishes.
   */
  async function killMidJob(onTestFinished: TestContext['onTestFinished'], settings: Record<string, string>) {
    const db = await createTestDatabase('postgres');
    const children: ChildService[] = [];
    onTestFinished(async () => {
      for (const child of children) await child.kill('SIGKILL');
      await db.drop();
    });
    const url = db.databaseUrl!;
    const env = { ...settings, DATABASE_URL: url };
    const start = async () => {
      const child = await startChildService(env);
      children.push(child);
      return child;
    };
    // The CLI and the server migrate one after the other (an advisory lock), whichever comes first.
    const [first, cli] = await Promise.all([
      start(),
      runCli(['keys', 'create', '--email', 'crash@example.com', '--mode', 'test'], env),
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    const key = cli.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^ek_test_/);

    const blocker = await connect(url);
    await blocker.query('begin');
    // The job claims its attempt and stores the statements in one statement, then blocks reading its industry peers
    // (the fixture's industry is C39), before it computes. Not in its assemble statement: that is one statement, and
    // one sent before the process was killed still commits once the lock is released.
    await blocker.query('lock table peer_values in access exclusive mode');
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
    await until('the job to have stored its statements and be past them', async () => {
      const { rows } = await observer.query('select step, attempts from tasks where id = $1', [taskId]);
      return rows[0]?.step === 'compute' && rows[0]?.attempts === 1 ? true : undefined;
    });
    const stored = await observer.query('select count(*)::int as n from statements where report_id = $1', [
      reportId,
    ]);
    expect(stored.rows[0].n).toBeGreaterThan(0);
    await first.kill('SIGKILL');
    await blocker.query('rollback');
    await blocker.end();
    const { rows } = await observer.query('select status from reports where id = $1', [reportId]);
    expect(rows[0].status).toBe('pending');
    return { key, reportId, taskId, observer, start };
  }

  async function readReport(service: ChildService, key: string, reportId: string) {
    const response = await fetch(`${service.url}/api/v1/developer/reports/${reportId}`, {
      headers: { 'X-API-Key': key },
    });
    return (await response.json()) as { status: string; error_message: string | null };
  }

  it('finishes a report whose server was killed mid-job, after a restart', async ({ onTestFinished }) => {
    const { key, reportId, taskId, observer, start } = await killMidJob(onTestFinished, {
      JOB_HEARTBEAT_SECONDS: '10',
      JOB_MONITOR_SECONDS: '1',
    });
    const second = await start();
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

  it('fails the report, rather than leaving it pending, when its job runs out of attempts', async ({
    onTestFinished,
  }) => {
    const { key, reportId, taskId, observer, start } = await killMidJob(onTestFinished, {
      JOB_HEARTBEAT_SECONDS: '10',
      JOB_MONITOR_SECONDS: '1',
      JOB_RETRY_LIMIT: '0',
    });
    const second = await start();
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
