/**
 * Enterprise: the enterprise a report belongs to (per account and mode), with the latest enterprise_info
 * submitted for it; `Report.enterprise` loads it in batches.
 */
import type { EnterpriseInfo } from '../../../worker/types.ts';
import { NotFoundError } from '../../errors.ts';
import { presentEnterprise } from '../../presenters/reportPresenter.ts';
import { builder } from '../builder.ts';
import { ReportRef } from './report.ts';

type PresentedEnterprise = ReturnType<typeof presentEnterprise>;

export const EnterpriseInfoRef = builder.objectRef<EnterpriseInfo>('EnterpriseInfo').implement({
  description: 'enterprise_info as submitted (the spec names the fields; each may be null).',
  fields: (t) => ({
    province: t.exposeString('province', { nullable: true }),
    city: t.exposeString('city', { nullable: true }),
    area: t.exposeString('area', { nullable: true }),
    industrySectorCode: t.exposeString('industry_sector_code', { nullable: true }),
    industrySector: t.exposeString('industry_sector', { nullable: true }),
    industryDivisionCode: t.exposeString('industry_division_code', { nullable: true }),
    industryDivision: t.exposeString('industry_division', { nullable: true }),
    employeeCount: t.exposeString('employee_count', { nullable: true }),
    taxpayerQualification: t.exposeString('taxpayer_qualification', { nullable: true }),
    isVatTaxpayer: t.exposeInt('is_vat_taxpayer', {
      nullable: true,
      description: '1: general VAT taxpayer.',
    }),
    enterpriseType: t.exposeString('enterprise_type', { nullable: true }),
    isSme: t.exposeInt('is_sme', { nullable: true, description: '1: small or micro enterprise.' }),
  }),
});

export const EnterpriseRef = builder.objectRef<PresentedEnterprise>('Enterprise').implement({
  description: 'An enterprise as one account sees it in one mode; its reports are numbered by versionNo.',
  fields: (t) => ({
    id: t.exposeID('enterprise_id'),
    name: t.exposeString('name'),
    info: t.expose('info', {
      type: EnterpriseInfoRef,
      nullable: true,
      description: 'The latest enterprise_info submitted for it; null when no submission had one.',
    }),
    reportCount: t.exposeInt('report_count', {
      description: 'Reports submitted for it (its latest versionNo).',
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (enterprise) => enterprise.created_at! }),
    updatedAt: t.field({ type: 'DateTime', resolve: (enterprise) => enterprise.updated_at! }),
  }),
});

builder.objectField(ReportRef, 'enterprise', (t) =>
  t.field({
    type: EnterpriseRef,
    resolve: async (report, _args, ctx) => {
      const enterprise = await ctx.loaders.enterprise.load(report.enterprise_id);
      if (!enterprise) throw new NotFoundError('enterprise', report.enterprise_id);
      return presentEnterprise(enterprise);
    },
  }),
);
