/**
 * 资产明细结构: every asset line submitted (the catalogue's current and non-current asset lines, subtotals
 * excluded) as an amount and a share of total assets, plus the `other_assets` remainder so the shares sum to 100.
 */
import type { RiskItem } from '../../../types.ts';
import type { ReportContext } from '../../context.ts';
import { format2, type Num, num, round2, round2Wan, sum } from '../../decimal.ts';
import type { AnalysisModule, RiskRuleDoc } from '../../module.ts';
import {
  catalogueKeys,
  currentReader,
  presentKeys,
  refs,
  riskItem,
  roundStructureRow,
  type StructureRow,
  seriesLayout,
  shareOf,
  structureRows,
  wanText,
} from './shared.ts';

const ASSET_LINES = catalogueKeys('balance', ['current_assets', 'noncurrent_assets']);
const REMAINDER = { key: 'other_assets', label: '其他资产（差额）' };

/**
 * Trade receivables (notes and accounts receivable, receivables financing — notes reclassified under the new
 * financial-instrument standard — and contract assets, the conditional receivables of the new revenue standard)
 * plus inventory: the working capital tied up in customers and stock (cf. SASAC's 两金).
 */
const RECEIVABLE_AND_INVENTORY_LINES = [
  'notes_receivable',
  'accounts_receivable',
  'receivables_financing',
  'contract_assets',
  'inventory',
] as const;

export const SINGLE_ASSET_CONCENTRATION_RULE: RiskRuleDoc = {
  code: 'detailed_total_asset_structure.single_asset_concentration',
  tiers: [{ level: 'info', threshold: 40 }],
  description: '除货币资金外，单一资产项目占资产总计的比重高于40%（每个项目一条）。',
  message:
    '{year}年末{item}为{amount}，占资产总计的{share}%，高于{threshold}%，资产集中于单一项目，需关注该项资产的质量与变现能力。',
};

export const RECEIVABLES_INVENTORY_RULE: RiskRuleDoc = {
  code: 'detailed_total_asset_structure.receivables_inventory_high',
  tiers: [{ level: 'warning', threshold: 50 }],
  description: '应收票据、应收账款、应收款项融资、合同资产与存货合计占资产总计的比重高于50%。',
  message:
    '{year}年末应收款项（含应收票据、应收款项融资、合同资产）与存货合计为{amount}，占资产总计的{share}%，高于{threshold}%，资金大量被客户和库存占用，需关注回款与存货积压风险。',
};

interface YearResult {
  base: Num;
  rows: StructureRow[];
  receivablesAndInventory: Num;
}

function computeYear(ctx: ReportContext, year: number, keys: readonly string[]): YearResult {
  const read = currentReader(ctx, year, 'balance');
  const { base, rows } = structureRows(read, 'balance', keys, 'total_assets', REMAINDER);
  const parts = RECEIVABLE_AND_INVENTORY_LINES.map(read);
  const receivablesAndInventory = parts.every((v) => v === null) ? null : sum(parts, { missingAsZero: true });
  return { base, rows, receivablesAndInventory };
}

function risks(year: number, r: YearResult): RiskItem[] {
  const items: RiskItem[] = [];
  const single = SINGLE_ASSET_CONCENTRATION_RULE.tiers[0]!;
  for (const row of r.rows) {
    if (row.key === 'cash_and_equivalents' || row.key === REMAINDER.key) continue;
    if (row.amount === null || row.share === null || !row.share.greaterThan(num(single.threshold))) continue;
    items.push(
      riskItem(SINGLE_ASSET_CONCENTRATION_RULE, single.level, {
        year: String(year),
        item: row.label,
        amount: wanText(row.amount),
        share: format2(row.share),
        threshold: String(single.threshold),
      }),
    );
  }
  const tier = RECEIVABLES_INVENTORY_RULE.tiers[0]!;
  const share = shareOf(r.receivablesAndInventory, r.base);
  if (r.receivablesAndInventory && share?.greaterThan(num(tier.threshold))) {
    items.push(
      riskItem(RECEIVABLES_INVENTORY_RULE, tier.level, {
        year: String(year),
        amount: wanText(r.receivablesAndInventory),
        share: format2(share),
        threshold: String(tier.threshold),
      }),
    );
  }
  return items;
}

export const detailedTotalAssetStructureModule: AnalysisModule = {
  slug: 'detailed_total_asset_structure',
  label: '资产明细结构',
  section: 'balance_sheet_analysis',
  description:
    '各年末每个资产项目（流动与非流动资产明细，不含合计行）的金额及占资产总计的比重；明细合计与资产总计的差额列为“其他资产（差额）”，占比合计为100。',
  kind: 'indicator',
  fields: [
    {
      key: 'total_assets',
      label: '资产总计',
      unit: '万元',
      formula: '年末资产总计 ÷ 10000',
      inputs: ['balance.total_assets'],
    },
    {
      key: 'receivables_and_inventory',
      label: '应收款项与存货合计',
      unit: '万元',
      formula: '(年末应收票据 + 应收账款 + 应收款项融资 + 合同资产 + 存货) ÷ 10000',
      inputs: refs('balance', RECEIVABLE_AND_INVENTORY_LINES),
      note: '缺失的行按零计；五行均缺失时为空。',
    },
    {
      key: 'receivables_and_inventory_share',
      label: '应收款项与存货占资产总计比重',
      unit: '%',
      formula: '应收款项与存货合计 ÷ 年末资产总计 × 100',
      inputs: refs('balance', [...RECEIVABLE_AND_INVENTORY_LINES, 'total_assets']),
      note: '资产总计缺失、为零或为负时为空。',
    },
    {
      key: 'items[].amount',
      label: '资产项目金额',
      unit: '万元',
      formula: '年末余额 ÷ 10000；其他资产（差额）= (资产总计 − 所列明细项目合计) ÷ 10000',
      inputs: refs('balance', [...ASSET_LINES, 'total_assets']),
      note: '列出任一提交年度出现过的资产明细行（按报表顺序），各年列表一致；某年缺失的行金额为空、不计入合计。items 同时出现在最新年度与 series 每个年度中。',
    },
    {
      key: 'items[].share',
      label: '占资产总计比重',
      unit: '%',
      formula: '项目年末余额 ÷ 年末资产总计 × 100',
      inputs: refs('balance', [...ASSET_LINES, 'total_assets']),
      note: '含差额项，各项占比合计为100；资产总计缺失、为零或为负时为空。',
    },
  ],
  riskRules: [SINGLE_ASSET_CONCENTRATION_RULE, RECEIVABLES_INVENTORY_RULE],
  compute(ctx) {
    const keys = presentKeys(ctx, 'balance', ASSET_LINES);
    const results = new Map(ctx.years.map((year) => [year, computeYear(ctx, year, keys)]));
    const sp_result = seriesLayout(ctx, (year) => {
      const r = results.get(year)!;
      return {
        total_assets: round2Wan(r.base),
        receivables_and_inventory: round2Wan(r.receivablesAndInventory),
        receivables_and_inventory_share: round2(shareOf(r.receivablesAndInventory, r.base)),
        items: r.rows.map(roundStructureRow),
      };
    });
    return { sp_result, risk_items: risks(ctx.latestYear, results.get(ctx.latestYear)!) };
  },
};
