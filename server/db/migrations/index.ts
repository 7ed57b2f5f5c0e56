import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121050955 } from './Migration20261121050955.ts';
import { Migration20261121060231 } from './Migration20261121060231.ts';
import { Migration20261121060500_sessions } from './Migration20261121060500_sessions.ts';
import { Migration20261121080000_json_documents } from './Migration20261121080000_json_documents.ts';
import { Migration20261123200000_ai_spend } from './Migration20261123200000_ai_spend.ts';
import { Migration20261123200000_idempotency_keys } from './Migration20261123200000_idempotency_keys.ts';
import { Migration20261123200000_rate_limits } from './Migration20261123200000_rate_limits.ts';
import { Migration20261123210000_webhooks } from './Migration20261123210000_webhooks.ts';
import { Migration20261125180000_webhook_fairness } from './Migration20261125180000_webhook_fairness.ts';
import { Migration20261125190000_benchmarks } from './Migration20261125190000_benchmarks.ts';
import { Migration20261125190000_password_changed_at } from './Migration20261125190000_password_changed_at.ts';
import { Migration20261128210000_read_cache } from './Migration20261128210000_read_cache.ts';
import { Migration20261128220000_idempotency_report_fk } from './Migration20261128220000_idempotency_report_fk.ts';
import { Migration20261129000000_idempotency_key_taken } from './Migration20261129000000_idempotency_key_taken.ts';
import { Migration20261129010000_benchmark_sets_notify } from './Migration20261129010000_benchmark_sets_notify.ts';
import { Migration20261129140000_webhook_delivery_queue } from './Migration20261129140000_webhook_delivery_queue.ts';

/** Every migration, in order. A new one is generated with `npm run migration:create` and listed here. */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121050955', class: Migration20261121050955 },
  { name: 'Migration20261121060231', class: Migration20261121060231 },
  { name: 'Migration20261121060500_sessions', class: Migration20261121060500_sessions },
  { name: 'Migration20261121080000_json_documents', class: Migration20261121080000_json_documents },
  { name: 'Migration20261123200000_ai_spend', class: Migration20261123200000_ai_spend },
  { name: 'Migration20261123200000_rate_limits', class: Migration20261123200000_rate_limits },
  { name: 'Migration20261123200000_idempotency_keys', class: Migration20261123200000_idempotency_keys },
  { name: 'Migration20261123210000_webhooks', class: Migration20261123210000_webhooks },
  { name: 'Migration20261125180000_webhook_fairness', class: Migration20261125180000_webhook_fairness },
  { name: 'Migration20261125190000_benchmarks', class: Migration20261125190000_benchmarks },
  {
    name: 'Migration20261125190000_password_changed_at',
    class: Migration20261125190000_password_changed_at,
  },
  { name: 'Migration20261128210000_read_cache', class: Migration20261128210000_read_cache },
  {
    name: 'Migration20261128220000_idempotency_report_fk',
    class: Migration20261128220000_idempotency_report_fk,
  },
  {
    name: 'Migration20261129000000_idempotency_key_taken',
    class: Migration20261129000000_idempotency_key_taken,
  },
  {
    name: 'Migration20261129010000_benchmark_sets_notify',
    class: Migration20261129010000_benchmark_sets_notify,
  },
  {
    name: 'Migration20261129140000_webhook_delivery_queue',
    class: Migration20261129140000_webhook_delivery_queue,
  },
];
