/**
 * The housekeeping job: a durable pg-boss job that deletes idempotency keys past their 24 hours, then queues
 * its own next run an hour later. The queue's `short` policy admits one queued job, so however many
 * processes start (each sends one at start-up), one run is queued at a time; a run that fails is retried.
 */

import type { ServiceContext } from '../services/context.ts';
import { expireIdempotencyKeys } from '../services/idempotency.ts';

export const HOUSEKEEPING_QUEUE = 'housekeeping';
export const HOUSEKEEPING_INTERVAL_SECONDS = 3600;

export async function startHousekeeping(ctx: ServiceContext): Promise<void> {
  const { boss } = ctx.queue;
  await boss.createQueue(HOUSEKEEPING_QUEUE, { policy: 'short', retryLimit: 3, retryDelay: 60 });
  await boss.work(HOUSEKEEPING_QUEUE, { pollingIntervalSeconds: 30 }, async () => {
    const expired = await runHousekeeping(ctx);
    if (expired > 0) ctx.logger.info({ expired }, 'expired idempotency keys deleted');
    await boss.send(HOUSEKEEPING_QUEUE, {}, { startAfter: HOUSEKEEPING_INTERVAL_SECONDS });
  });
  await boss.send(HOUSEKEEPING_QUEUE, {});
}

/** One housekeeping pass; returns how many idempotency keys it deleted. */
export async function runHousekeeping(ctx: ServiceContext, now = new Date()): Promise<number> {
  return expireIdempotencyKeys(ctx, now);
}
