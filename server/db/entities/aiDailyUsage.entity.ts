import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Account } from './account.entity.ts';

/**
 * Model tokens an account used on one UTC day (AI_DAILY_TOKEN_BUDGET is checked against it). One row per
 * account and day, added to by one upsert per model call (server/ai/usage.ts).
 */
export const AiDailyUsage = defineEntity({
  name: 'AiDailyUsage',
  tableName: 'ai_daily_usage',
  properties: {
    account: () => p.manyToOne(Account).primary().deleteRule('cascade'),
    day: p.date().primary(),
    tokens: p.bigint('number').default(0),
  },
});
export type IAiDailyUsage = InferEntity<typeof AiDailyUsage>;
