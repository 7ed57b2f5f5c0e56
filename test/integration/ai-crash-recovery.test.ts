/**
 * No double spend: a server killed with SIGKILL after a report's AI step but before its assembly is retried by
 * the next server without calling the model again — the AI texts were stored on the task when step 3 ended,
 * and the retry reuses them (and counts their usage once). Real `node server/main.ts` processes on PostgreSQL
 * and a local OpenAI-compatible server over real HTTP; the job is held before assembly by a lock on
 * analysis_results taken from another connection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { REPORT_SLUGS } from '../../worker/engine/registry.ts';
import { connect, createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { type FakeOpenAi, okAll, startFakeOpenAi } from '../helpers/fakeOpenAi.ts';
import { type ChildService, runCli, startChildService, until } from '../helpers/process.ts';
import { fixture } from '../helpers/service.ts';

const CALLS = Math.ceil(REPORT_SLUGS.length / 6);

describe('AI step crash recovery', { timeout: 240_000 }, () => {
  let db: TestDatabase | undefined;
  let fake: FakeOpenAi | undefined;
  const children: ChildService[] = [];

  afterEach(async () => {
    for (const child of children.splice(0)) await child.kill('SIGKILL');
    await fake?.close();
    await db?.drop();
    db = undefined;
  });

  it('reuses the stored AI texts when the attempt dies between the AI step and assembly', async () => {
    fake = await startFakeOpenAi(okAll);
    db = await createTestDatabase('postgres');
    const url = db.databaseUrl!;
    const env = {
      DATABASE_URL: url,
      JOB_HEARTBEAT_SECONDS: '10',
      JOB_MONITOR_SECONDS: '1',
      OPENAI_BASE_URL: fake.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      AI_MODEL: 'fake-model',
      AI_BATCH_SIZE: '6',
    };
    // The server and the CLI migrate one after the other (an advisory lock), whichever comes first.
    const [first, cli] = await Promise.all([
      startChildService(env).then((child) => {
        children.push(child);
        return child;
      }),
      runCli(['keys', 'create', '--email', 'ai-crash@example.com', '--mode', 'live'], env),
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    const key = cli.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^ek_live_/);

    // Assembly writes analysis_results: holding this lock holds the job right after its AI step.
    const blocker = await connect(url);
    await blocker.query('begin');
    await blocker.query('lock table analysis_results in access exclusive mode');
    const response = await fetch(`${first.url}/api/v1/developer/reports/financial`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
      body: JSON.stringify({ ...fixture('general_new-3y'), ai_auto_analysis: 1 }),
    });
    expect(response.status).toBe(202);
    const { report_id: reportId, task_id: taskId } = (await response.json()) as {
      report_id: string;
      task_id: string;
    };

    const observer = await connect(url);
    await until('the AI texts to be stored', async () => {
      const { rows } = await observer.query(
        'select ai_result is not null as stored from tasks where id = $1',
        [taskId],
      );
      return rows[0]?.stored ? true : undefined;
    });
    expect(fake.requests).toHaveLength(CALLS);
    await first.kill('SIGKILL');
    await blocker.query('rollback');
    await blocker.end();
    expect(
      (await observer.query('select status from reports where id = $1', [reportId])).rows[0].status,
    ).toBe('pending');

    const second = await startChildService(env);
    children.push(second);
    const report = await until('the report to leave pending', async () => {
      const read = await fetch(`${second.url}/api/v1/developer/reports/${reportId}`, {
        headers: { 'X-API-Key': key },
      });
      const body = (await read.json()) as { status: string; ai_usage: Record<string, unknown> | null };
      return body.status === 'pending' ? undefined : body;
    });
    expect(report.status).toBe('success');
    // The model was paid once: the retry asked it nothing, and the usage counts the one run.
    expect(fake.requests).toHaveLength(CALLS);
    expect(report.ai_usage).toMatchObject({ runs: 1, calls: CALLS, model_items: REPORT_SLUGS.length });
    const { rows } = await observer.query('select status, attempts, ai_result from tasks where id = $1', [
      taskId,
    ]);
    expect(rows[0]).toEqual({ status: 'success', attempts: 2, ai_result: null });
    const analysis = await fetch(`${second.url}/api/v1/developer/reports/${reportId}/analysis`, {
      headers: { 'X-API-Key': key },
    });
    const items = ((await analysis.json()) as { items: Array<{ ai_source: string; ai_content: string }> })
      .items;
    expect(items).toHaveLength(REPORT_SLUGS.length);
    for (const item of items) {
      expect(item.ai_source).toBe('model');
      expect(item.ai_content).toContain('模型解读');
    }
    await observer.end();
  });
});
