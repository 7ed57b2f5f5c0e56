/**
 * Webhook delivery across real processes (`node server/main.ts` as ROLE=api and ROLE=worker on one PostgreSQL),
 * an attacker account and a victim account, receivers on loopback: one account's backlog to slow receivers does
 * not delay another account's event, and a worker stopped mid-attempt hands it back to be re-sent within
 * seconds, once.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { type ChildService, runCli, startChildService, until } from '../helpers/process.ts';
import { fixture } from '../helpers/service.ts';

interface Arrival {
  path: string;
  at: number;
  body: { type: string; data: { report_id?: string } };
}

/** Records every request; `/slow…` answers after 1.5 s, `/hold` leaves its first request unanswered. */
class Receiver {
  readonly arrivals: Arrival[] = [];
  readonly held: ServerResponse[] = [];
  server!: Server;
  url = '';
  async start() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url!;
        this.arrivals.push({ path, at: Date.now(), body: JSON.parse(Buffer.concat(chunks).toString()) });
        if (path.startsWith('/slow')) setTimeout(() => res.end('ok'), 1500);
        else if (path === '/hold' && this.at('/hold').length === 1) this.held.push(res);
        else res.end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  at(path: string) {
    return this.arrivals.filter((a) => a.path === path);
  }
  stop() {
    this.server.closeAllConnections();
    this.server.close();
  }
}

describe('webhooks across processes', { timeout: 180_000 }, () => {
  let db: TestDatabase | undefined;
  const children: ChildService[] = [];
  const clients: pg.Client[] = [];
  const receiver = new Receiver();

  afterEach(async () => {
    for (const child of children.splice(0)) await child.kill('SIGKILL');
    for (const client of clients.splice(0)) await client.end().catch(() => undefined);
    receiver.stop();
    await db?.drop();
    db = undefined;
  });

  async function setUp(extra: Record<string, string> = {}) {
    db = await createTestDatabase('postgres');
    await receiver.start();
    const env = {
      DATABASE_URL: db.databaseUrl!,
      WEBHOOK_ALLOW_PRIVATE: '1',
      POOL_THREADS: '1',
      ...extra,
    };
    const observer = await connect(db.databaseUrl!);
    clients.push(observer);
    const api = await start({ ...env, ROLE: 'api' });
    return { env, observer, api };
  }

  async function start(env: Record<string, string>) {
    const child = await startChildService(env);
    children.push(child);
    return child;
  }

  async function newKey(env: Record<string, string>, who: string) {
    const email = `${who}-${randomUUID()}@example.com`;
    const cli = await runCli(['keys', 'create', '--email', email, '--mode', 'test'], env);
    expect(cli.code, cli.stderr).toBe(0);
    return cli.stdout.trim().split('\n').at(-1)!;
  }

  async function call(service: ChildService, key: string, method: string, path: string, body?: unknown) {
    const response = await fetch(`${service.url}/api/v1/developer${path}`, {
      method,
      headers: { 'X-API-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return {
      status: response.status,
      body: (await response.json().catch(() => null)) as Record<string, string>,
    };
  }

  async function endpoint(service: ChildService, key: string, path: string) {
    const created = await call(service, key, 'POST', '/webhook-endpoints', { url: `${receiver.url}${path}` });
    expect(created.status).toBe(201);
    return created.body.id!;
  }

  it("an attacker's backlog to slow receivers does not delay a victim's report event", async () => {
    const { env, observer, api } = await setUp({
      WEBHOOK_TEST_EVENTS_PER_MINUTE: '1000',
      WEBHOOK_MAX_PENDING_DELIVERIES: '1000',
      RATE_LIMIT_SUBMISSIONS_PER_SECOND: '1000',
      RATE_LIMIT_SUBMISSIONS_BURST: '2000',
    });
    const [, attacker, victim] = await Promise.all([
      start({ ...env, ROLE: 'worker' }),
      newKey(env, 'attacker'),
      newKey(env, 'victim'),
    ]);
    await endpoint(api, victim, '/victim');
    const slow = await Promise.all([1, 2, 3, 4].map((i) => endpoint(api, attacker, `/slow/${i}`)));
    // 120 events answering in 1.5 s each: 45 s of work at 4 at once (the attacker's cap) — longer than the
    // victim's analysis takes even on a loaded machine, so the backlog is still there when its event is queued.
    for (let i = 0; i < 120; i++) {
      const sent = await call(api, attacker, 'POST', `/webhook-endpoints/${slow[i % 4]}/test`);
      expect(sent.status).toBe(202);
    }
    await until('the attacker’s first attempts', async () =>
      receiver.arrivals.filter((a) => a.path.startsWith('/slow')).length >= 4 ? true : undefined,
    );
    const submitted = await call(api, victim, 'POST', '/reports/financial', fixture('general_new-3y'));
    expect(submitted.status).toBe(202);
    const arrival = await until(
      'the victim’s report.succeeded',
      async () => receiver.at('/victim').find((a) => a.body.data.report_id === submitted.body.report_id),
      60_000,
    );
    const { rows } = await observer.query('select completed_at from reports where id = $1', [
      submitted.body.report_id,
    ]);
    const delay = arrival.at - new Date(rows[0].completed_at).getTime();
    const attackerDone = receiver.arrivals.filter((a) => a.path.startsWith('/slow')).length;
    console.info(
      `victim's event ${delay} ms after completed_at; attacker's events sent by then: ${attackerDone}/120`,
    );
    expect(delay).toBeLessThan(3000);
    expect(attackerDone).toBeLessThan(120);
    // The attacker's attempts never ran more than 4 at once (the per-account cap, counted by the database from the
    // leases its attempts hold).
    const { rows: active } = await observer.query(
      `select count(*)::int as n
         from webhook_deliveries d
         join webhook_endpoints e on e.id = d.endpoint_id
        where d.attempt_started_at > now() - interval '30 seconds' and e.url like '%/slow/%'`,
    );
    expect(active[0].n).toBeLessThanOrEqual(4);
  });

  it('a worker stopped mid-attempt hands the delivery back: re-sent within seconds by another, once', async () => {
    const { env, observer, api } = await setUp();
    // The second worker starts first and is paused (SIGSTOP), so the attempt lands on the first one and the
    // second is ready the moment the first is stopped (starting it then could outlast the 10 s deadline).
    const [second, key] = await Promise.all([start({ ...env, ROLE: 'worker' }), newKey(env, 'owner')]);
    second.child.kill('SIGSTOP');
    const first = await start({ ...env, ROLE: 'worker', SHUTDOWN_GRACE_SECONDS: '2' });
    const id = await endpoint(api, key, '/hold');
    const sent = await call(api, key, 'POST', `/webhook-endpoints/${id}/test`);
    expect(sent.status).toBe(202);
    await until('the first attempt', async () => (receiver.at('/hold').length === 1 ? true : undefined));
    second.child.kill('SIGCONT');
    const stopped = Date.now();
    await first.kill('SIGTERM');
    const again = await until('the re-sent attempt', async () => receiver.at('/hold')[1], 20_000);
    console.info(`re-sent ${again.at - stopped} ms after SIGTERM`);
    expect(again.at - stopped).toBeLessThan(5000);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(receiver.at('/hold')).toHaveLength(2);
    const { rows } = await observer.query(
      'select attempt_no, status_code, error from webhook_attempts where delivery_id = $1 order by attempt_no',
      [sent.body.id],
    );
    expect(rows).toEqual([
      { attempt_no: 1, status_code: null, error: 'interrupted: the worker shut down' },
      { attempt_no: 2, status_code: 200, error: null },
    ]);
    await second.kill('SIGTERM');
  });
});
