/**
 * Operations endpoints, served by every role (a worker serves only these):
 * - `/healthz`: the process is alive and its event loop turns (liveness: restart it when this fails);
 * - `/readyz`: it can do its work — database reachable, migrations applied, queue reachable, not shutting down
 *   (readiness: send it traffic only while this is 200; it turns 503 the moment a shutdown starts);
 * - `/metrics`: Prometheus text from the one registry, with the queue depth and pool use read at scrape time;
 *   behind `Authorization: Bearer $METRICS_TOKEN` when that is set.
 */
import { timingSafeEqual } from 'node:crypto';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import { jobQueueDepth, poolQueueSize, poolUtilisation, registry } from '../observability/metrics.ts';
import type { ServiceContext } from '../services/context.ts';
import { sendProblem } from './problem.ts';

/** Whether the process has begun to shut down; runtime.ts owns the answer. */
export type ShutdownProbe = () => boolean;

const CHECK_TIMEOUT_MS = 2000;

async function check(run: () => Promise<unknown>): Promise<'ok' | 'failed'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      run(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
      }),
    ]);
    return 'ok';
  } catch {
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}

function tokenMatches(expected: string, header: string | undefined): boolean {
  const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1];
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** 503 problem+json with the checks as an extension member (RFC 9457 allows them). */
function notReady(ctx: Context, detail: string, checks: Record<string, string>): void {
  const problem = {
    type: '/problems/service_unavailable',
    title: 'Service unavailable',
    status: 503,
    detail,
    code: 'service_unavailable',
    instance: ctx.path,
    checks,
  };
  sendProblem(ctx, problem);
}

export function opsRoutes(services: ServiceContext, shuttingDown: ShutdownProbe): Router {
  const router = new Router();

  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok', database: services.db.kind };
  });

  router.get('/readyz', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    if (shuttingDown()) {
      notReady(ctx, 'The process is shutting down.', { shutdown: 'in_progress' });
      return;
    }
    const [database, migrations, queue] = await Promise.all([
      check(() => services.db.orm.em.fork().getConnection().execute('select 1')),
      check(async () => {
        const pending = await services.db.orm.migrator.getPending();
        if (pending.length > 0) throw new Error('migrations pending');
      }),
      check(() => services.queue.ping()),
    ]);
    const checks = { database, migrations, queue, shutdown: 'no' };
    if (database === 'ok' && migrations === 'ok' && queue === 'ok') {
      ctx.body = { status: 'ready', checks };
      return;
    }
    const failed = Object.entries({ database, migrations, queue })
      .filter(([, v]) => v !== 'ok')
      .map(([k]) => k);
    notReady(ctx, `Not ready: ${failed.join(', ')} failed.`, checks);
  });

  router.get('/metrics', async (ctx) => {
    const token = services.config.metricsToken;
    if (token && !tokenMatches(token, ctx.get('Authorization') || undefined)) {
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      sendProblem(ctx, {
        type: '/problems/unauthenticated',
        title: 'Unauthenticated',
        status: 401,
        detail: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.',
        code: 'unauthenticated',
        instance: ctx.path,
      });
      return;
    }
    // Gauges read at scrape time: queue counts (pg-boss's, refreshed by its supervisor) and the pool's use.
    const depth = await services.queue.depth().catch(() => []);
    jobQueueDepth.reset();
    for (const { queue, state, count } of depth) jobQueueDepth.set({ queue, state }, count);
    const pool = services.pool.stats();
    poolUtilisation.set(pool.utilisation);
    poolQueueSize.set(pool.queueSize);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  });

  return router;
}
