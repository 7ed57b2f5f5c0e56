import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import type { EnterpriseInfo } from '../../../worker/types.ts';
import { ACCOUNTING_STANDARDS } from '../../../worker/types.ts';
import type { AiUsage } from '../../ai/types.ts';
import { Account } from './account.entity.ts';
import { API_KEY_MODES } from './apiKey.entity.ts';
import { Enterprise } from './enterprise.entity.ts';

export const REPORT_STATUSES = ['pending', 'success', 'failed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export interface StoredWarning {
  code: string;
  path: string;
  message: string;
}

export const Report = defineEntity({
  name: 'Report',
  tableName: 'reports',
  uniques: [{ properties: ['enterprise', 'versionNo'] }],
  indexes: [{ properties: ['account', 'mode', 'createdAt'] }, { properties: ['status', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    mode: p.enum(API_KEY_MODES),
    enterprise: () => p.manyToOne(Enterprise).deleteRule('cascade').index(),
    versionNo: p.integer(),
    /** The enterprise name as submitted (匿名企业 when none was given). */
    name: p.string().length(200),
    accountingStandard: p.enum(ACCOUNTING_STANDARDS),
    yearStart: p.integer(),
    yearEnd: p.integer(),
    aiAutoAnalysis: p.boolean(),
    /** enterprise_info as submitted with this report (the enterprise row keeps only the latest). */
    enterpriseInfo: p.json<EnterpriseInfo>().nullable(),
    validationWarnings: p.json<StoredWarning[]>(),
    status: p.enum(REPORT_STATUSES).default('pending'),
    errorMessage: p.text().nullable(),
    shareToken: p.string().length(64).nullable().unique(),
    shareIsPublic: p.boolean().default(true),
    shareExpiresAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()),
    completedAt: p.datetime().nullable(),
    /** Model token use and fallbacks of the AI step, over the job and on-demand runs; null until one ran. */
    aiUsage: p.json<AiUsage>().nullable(),
  },
});
export type IReport = InferEntity<typeof Report>;
