import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import type { EnterpriseInfo } from '../../../worker/types.ts';
import { Account } from './account.entity.ts';
import { API_KEY_MODES } from './apiKey.entity.ts';

/**
 * An enterprise as one account sees it in one mode (test data never mixes with live data).
 * `reportCount` hands out version numbers: submitting increments it in the same statement that finds
 * the row, so concurrent submissions for one enterprise get distinct, gap-free versions.
 */
export const Enterprise = defineEntity({
  name: 'Enterprise',
  tableName: 'enterprises',
  uniques: [{ properties: ['account', 'mode', 'name'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    mode: p.enum(API_KEY_MODES),
    name: p.string().length(200),
    /** The latest enterprise_info submitted for it. */
    info: p.json<EnterpriseInfo>().nullable(),
    reportCount: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()),
  },
});
export type IEnterprise = InferEntity<typeof Enterprise>;
