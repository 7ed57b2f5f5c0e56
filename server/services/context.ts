import type { Logger } from 'pino';
import type { AnalysisPool } from '../../worker/pool.ts';
import type { AiRuntime } from '../ai/interpretations.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { DeliveryWorker } from '../webhooks/delivery.ts';
import type { ReadCache } from './readCache.ts';

/** What service functions need from the running process; built once in main.ts (or a test). */
export interface ServiceContext {
  config: Config;
  db: Database;
  queue: JobQueue;
  pool: AnalysisPool;
  logger: Logger;
  /** The model client (null when none is configured) and the limiter on model calls. */
  ai: AiRuntime;
  /** Verified keys, finished reports' ETags and benchmark sets, invalidated by NOTIFY (readCache.ts); absent: every read looks up. */
  readCache?: ReadCache;
  /** This process's webhook delivery worker, which takes the report events its jobs record (absent: none runs here). */
  deliveries?: Pick<DeliveryWorker, 'reserveHandOff' | 'adoptHandOff'>;
}
