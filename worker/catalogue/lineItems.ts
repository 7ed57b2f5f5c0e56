/**
 * Catalogue of the accepted `item_name` keys: one entry per line of the official statement formats
 * (一般企业 new format 财会〔2019〕6号 附件2, old format 附件1, 小企业会计准则 会小企01–03表), with the sheet, the
 * statement section (`group`), the Chinese line name and the standards whose format has the line.
 * Keys named by the API spec are used as spelled there; the other keys follow the reference notes.
 *
 * Sign convention of the normalised report (the 2019 general_new one): lines under 加： whose losses are entered
 * with a minus sign (投资收益, 公允价值变动收益, 信用减值损失, 资产减值损失, ...) are `sign: 'signed'` and are ADDED in
 * operating profit. A line whose submitted sign differs in some standard lists that standard in `deductionIn`
 * and the normaliser negates it (only `asset_impairment` in general_old, where the format lists it as a
 * deduction with a loss positive).
 */

import type { AccountingStandard, SheetType } from '../types.ts';
import { ACCOUNTING_STANDARDS } from '../types.ts';

/**
 * Statement sections per sheet. Detail lines of a section sum (deduction lines subtracted) to the line(s) of
 * the matching `*_total` group, so an engine can cross-check subtotals:
 * - balance: current_assets → current_assets_total, noncurrent_assets → noncurrent_assets_total, both totals →
 *   asset_total; likewise for liabilities; equity (incl. minority interests) → equity_total, with
 *   equity_parent_total the consolidated subtotal before minority interests; liability_total + equity_total →
 *   liabilities_and_equity_total.
 * - income: the profit chain is not a plain sum: operating profit = revenue − cost − expense + other_gains;
 *   total profit = operating profit + non_operating (expenses subtracted); net profit = total profit − tax.
 *   `profit` holds those subtotals and 综合收益总额. net_profit_by_continuity and net_profit_by_owner are two
 *   partitions of net profit; oci lines sum to their oci_category line, the categories to oci_total.
 * - cash_flow: *_in → *_in_total, *_out → *_out_total, in − out → *_net; the three nets + fx_effect → total
 *   (net increase of cash); cash_balance holds the opening and closing balances.
 * - `breakdown` (every sheet): 其中 lines already included in their `parent`; never add them to a group sum.
 */
export const LINE_ITEM_GROUPS = {
  balance: [
    'current_assets',
    'current_assets_total',
    'noncurrent_assets',
    'noncurrent_assets_total',
    'asset_total',
    'current_liabilities',
    'current_liabilities_total',
    'noncurrent_liabilities',
    'noncurrent_liabilities_total',
    'liability_total',
    'equity',
    'equity_parent_total',
    'equity_total',
    'liabilities_and_equity_total',
    'breakdown',
  ],
  income: [
    'revenue',
    'cost',
    'expense',
    'other_gains',
    'non_operating',
    'tax',
    'profit',
    'net_profit_by_continuity',
    'net_profit_by_owner',
    'oci_category',
    'oci',
    'oci_total',
    'eps',
    'breakdown',
  ],
  cash_flow: [
    'operating_in',
    'operating_in_total',
    'operating_out',
    'operating_out_total',
    'operating_net',
    'investing_in',
    'investing_in_total',
    'investing_out',
    'investing_out_total',
    'investing_net',
    'financing_in',
    'financing_in_total',
    'financing_out',
    'financing_out_total',
    'financing_net',
    'fx_effect',
    'total',
    'cash_balance',
    'breakdown',
  ],
} as const satisfies Record<SheetType, readonly string[]>;

export type LineItemGroup = (typeof LINE_ITEM_GROUPS)[SheetType][number];

export interface LineItemDef {
  key: string;
  sheet: SheetType;
  group: LineItemGroup;
  /** Line name as printed on the official statement (the general-enterprise wording when standards differ). */
  nameZh: string;
  standards: readonly AccountingStandard[];
  /**
   * How a loss/deduction is signed, when it matters. 'deduction': listed under 减：, a positive amount reduces
   * the subtotal. 'signed': listed under 加： with losses entered negative; added as it stands.
   */
  sign?: 'deduction' | 'signed';
  /** Standards whose format submits this line with the opposite sign; the normaliser negates it there. */
  deductionIn?: readonly AccountingStandard[];
  /** For `breakdown` and oci lines: the key of the line that already includes this one. */
  parent?: string;
  note?: string;
}

const ALL = ACCOUNTING_STANDARDS;
const GENERAL = Object.freeze(['general_new', 'general_old'] as const);
const NEW = Object.freeze(['general_new'] as const);
const OLD = Object.freeze(['general_old'] as const);
const SMALL = Object.freeze(['small_enterprise'] as const);

type Entry = Omit<LineItemDef, 'sheet'>;

// 资产负债表 (会企01表 / 会小企01表), assets, liabilities, equity.
const BALANCE: readonly Entry[] = [
  { key: 'cash_and_equivalents', group: 'current_assets', nameZh: '货币资金', standards: ALL },
  {
    key: 'financial_assets_held_for_trading',
    group: 'current_assets',
    nameZh: '交易性金融资产',
    standards: GENERAL,
    note: 'general_old: 以公允价值计量且其变动计入当期损益的金融资产',
  },
  { key: 'short_term_investments', group: 'current_assets', nameZh: '短期投资', standards: SMALL },
  { key: 'derivative_financial_assets', group: 'current_assets', nameZh: '衍生金融资产', standards: GENERAL },
  { key: 'notes_receivable', group: 'current_assets', nameZh: '应收票据', standards: ALL },
  { key: 'accounts_receivable', group: 'current_assets', nameZh: '应收账款', standards: ALL },
  { key: 'receivables_financing', group: 'current_assets', nameZh: '应收款项融资', standards: NEW },
  {
    key: 'prepayments',
    group: 'current_assets',
    nameZh: '预付款项',
    standards: ALL,
    note: 'small_enterprise: 预付账款',
  },
  { key: 'dividends_receivable', group: 'current_assets', nameZh: '应收股利', standards: SMALL },
  { key: 'interest_receivable', group: 'current_assets', nameZh: '应收利息', standards: SMALL },
  {
    key: 'other_receivables',
    group: 'current_assets',
    nameZh: '其他应收款',
    standards: ALL,
    note: 'general formats include 应收利息 and 应收股利 here',
  },
  { key: 'inventory', group: 'current_assets', nameZh: '存货', standards: ALL },
  { key: 'raw_materials', group: 'breakdown', nameZh: '原材料', standards: SMALL, parent: 'inventory' },
  { key: 'work_in_process', group: 'breakdown', nameZh: '在产品', standards: SMALL, parent: 'inventory' },
  { key: 'finished_goods', group: 'breakdown', nameZh: '库存商品', standards: SMALL, parent: 'inventory' },
  {
    key: 'turnover_materials',
    group: 'breakdown',
    nameZh: '周转材料',
    standards: SMALL,
    parent: 'inventory',
  },
  { key: 'contract_assets', group: 'current_assets', nameZh: '合同资产', standards: NEW },
  { key: 'held_for_sale_assets', group: 'current_assets', nameZh: '持有待售资产', standards: GENERAL },
  {
    key: 'non_current_assets_due_within_1y',
    group: 'current_assets',
    nameZh: '一年内到期的非流动资产',
    standards: GENERAL,
  },
  { key: 'other_current_assets', group: 'current_assets', nameZh: '其他流动资产', standards: ALL },
  { key: 'total_current_assets', group: 'current_assets_total', nameZh: '流动资产合计', standards: ALL },
  { key: 'debt_investments', group: 'noncurrent_assets', nameZh: '债权投资', standards: NEW },
  {
    key: 'available_for_sale_financial_assets',
    group: 'noncurrent_assets',
    nameZh: '可供出售金融资产',
    standards: OLD,
  },
  { key: 'other_debt_investments', group: 'noncurrent_assets', nameZh: '其他债权投资', standards: NEW },
  {
    key: 'held_to_maturity_investments',
    group: 'noncurrent_assets',
    nameZh: '持有至到期投资',
    standards: OLD,
  },
  { key: 'long_term_bond_investments', group: 'noncurrent_assets', nameZh: '长期债券投资', standards: SMALL },
  { key: 'long_term_receivables', group: 'noncurrent_assets', nameZh: '长期应收款', standards: GENERAL },
  { key: 'long_term_equity_investments', group: 'noncurrent_assets', nameZh: '长期股权投资', standards: ALL },
  {
    key: 'other_equity_instrument_investments',
    group: 'noncurrent_assets',
    nameZh: '其他权益工具投资',
    standards: NEW,
  },
  {
    key: 'other_non_current_financial_assets',
    group: 'noncurrent_assets',
    nameZh: '其他非流动金融资产',
    standards: NEW,
  },
  { key: 'investment_property', group: 'noncurrent_assets', nameZh: '投资性房地产', standards: GENERAL },
  {
    key: 'fixed_assets_original_cost',
    group: 'breakdown',
    nameZh: '固定资产原价',
    standards: SMALL,
    parent: 'fixed_assets_net',
  },
  {
    key: 'accumulated_depreciation',
    group: 'breakdown',
    nameZh: '累计折旧',
    standards: SMALL,
    sign: 'deduction',
    parent: 'fixed_assets_net',
    note: '减：累计折旧; 固定资产账面价值 = 固定资产原价 − 累计折旧',
  },
  {
    key: 'fixed_assets_net',
    group: 'noncurrent_assets',
    nameZh: '固定资产',
    standards: ALL,
    note: 'small_enterprise: 固定资产账面价值; general formats include 固定资产清理',
  },
  {
    key: 'construction_in_progress',
    group: 'noncurrent_assets',
    nameZh: '在建工程',
    standards: ALL,
    note: 'general formats include 工程物资',
  },
  { key: 'construction_materials', group: 'noncurrent_assets', nameZh: '工程物资', standards: SMALL },
  {
    key: 'fixed_assets_in_liquidation',
    group: 'noncurrent_assets',
    nameZh: '固定资产清理',
    standards: SMALL,
  },
  {
    key: 'productive_biological_assets',
    group: 'noncurrent_assets',
    nameZh: '生产性生物资产',
    standards: ALL,
  },
  { key: 'oil_and_gas_assets', group: 'noncurrent_assets', nameZh: '油气资产', standards: GENERAL },
  { key: 'right_of_use_assets', group: 'noncurrent_assets', nameZh: '使用权资产', standards: NEW },
  { key: 'intangible_assets', group: 'noncurrent_assets', nameZh: '无形资产', standards: ALL },
  { key: 'development_expenditure', group: 'noncurrent_assets', nameZh: '开发支出', standards: ALL },
  { key: 'goodwill', group: 'noncurrent_assets', nameZh: '商誉', standards: GENERAL },
  { key: 'long_term_deferred_expenses', group: 'noncurrent_assets', nameZh: '长期待摊费用', standards: ALL },
  { key: 'deferred_tax_assets', group: 'noncurrent_assets', nameZh: '递延所得税资产', standards: GENERAL },
  { key: 'other_non_current_assets', group: 'noncurrent_assets', nameZh: '其他非流动资产', standards: ALL },
  {
    key: 'total_noncurrent_assets',
    group: 'noncurrent_assets_total',
    nameZh: '非流动资产合计',
    standards: ALL,
  },
  { key: 'total_assets', group: 'asset_total', nameZh: '资产总计', standards: ALL },

  { key: 'short_term_borrowings', group: 'current_liabilities', nameZh: '短期借款', standards: ALL },
  {
    key: 'financial_liabilities_held_for_trading',
    group: 'current_liabilities',
    nameZh: '交易性金融负债',
    standards: GENERAL,
    note: 'general_old: 以公允价值计量且其变动计入当期损益的金融负债',
  },
  {
    key: 'derivative_financial_liabilities',
    group: 'current_liabilities',
    nameZh: '衍生金融负债',
    standards: GENERAL,
  },
  { key: 'notes_payable', group: 'current_liabilities', nameZh: '应付票据', standards: ALL },
  { key: 'accounts_payable', group: 'current_liabilities', nameZh: '应付账款', standards: ALL },
  {
    key: 'advance_receipts',
    group: 'current_liabilities',
    nameZh: '预收款项',
    standards: ALL,
    note: 'small_enterprise: 预收账款',
  },
  { key: 'contract_liabilities', group: 'current_liabilities', nameZh: '合同负债', standards: NEW },
  { key: 'employee_benefits_payable', group: 'current_liabilities', nameZh: '应付职工薪酬', standards: ALL },
  { key: 'taxes_payable', group: 'current_liabilities', nameZh: '应交税费', standards: ALL },
  { key: 'interest_payable', group: 'current_liabilities', nameZh: '应付利息', standards: SMALL },
  { key: 'profit_payable', group: 'current_liabilities', nameZh: '应付利润', standards: SMALL },
  {
    key: 'other_payables',
    group: 'current_liabilities',
    nameZh: '其他应付款',
    standards: ALL,
    note: 'general formats include 应付利息 and 应付股利 here',
  },
  {
    key: 'held_for_sale_liabilities',
    group: 'current_liabilities',
    nameZh: '持有待售负债',
    standards: GENERAL,
  },
  {
    key: 'non_current_liabilities_due_within_1y',
    group: 'current_liabilities',
    nameZh: '一年内到期的非流动负债',
    standards: GENERAL,
  },
  { key: 'other_current_liabilities', group: 'current_liabilities', nameZh: '其他流动负债', standards: ALL },
  {
    key: 'total_current_liabilities',
    group: 'current_liabilities_total',
    nameZh: '流动负债合计',
    standards: ALL,
  },
  { key: 'long_term_borrowings', group: 'noncurrent_liabilities', nameZh: '长期借款', standards: ALL },
  { key: 'bonds_payable', group: 'noncurrent_liabilities', nameZh: '应付债券', standards: GENERAL },
  { key: 'lease_liabilities', group: 'noncurrent_liabilities', nameZh: '租赁负债', standards: NEW },
  { key: 'long_term_payables', group: 'noncurrent_liabilities', nameZh: '长期应付款', standards: ALL },
  { key: 'provisions', group: 'noncurrent_liabilities', nameZh: '预计负债', standards: GENERAL },
  { key: 'deferred_income', group: 'noncurrent_liabilities', nameZh: '递延收益', standards: ALL },
  {
    key: 'deferred_tax_liabilities',
    group: 'noncurrent_liabilities',
    nameZh: '递延所得税负债',
    standards: GENERAL,
  },
  {
    key: 'other_non_current_liabilities',
    group: 'noncurrent_liabilities',
    nameZh: '其他非流动负债',
    standards: ALL,
  },
  {
    key: 'total_noncurrent_liabilities',
    group: 'noncurrent_liabilities_total',
    nameZh: '非流动负债合计',
    standards: ALL,
  },
  { key: 'total_liabilities', group: 'liability_total', nameZh: '负债合计', standards: ALL },

  { key: 'paid_in_capital', group: 'equity', nameZh: '实收资本（或股本）', standards: ALL },
  { key: 'other_equity_instruments', group: 'equity', nameZh: '其他权益工具', standards: GENERAL },
  { key: 'capital_reserve', group: 'equity', nameZh: '资本公积', standards: ALL },
  { key: 'treasury_stock', group: 'equity', nameZh: '库存股', standards: GENERAL, sign: 'deduction' },
  {
    key: 'other_comprehensive_income_reserve',
    group: 'equity',
    nameZh: '其他综合收益',
    standards: GENERAL,
    note: 'the balance-sheet reserve; the income statement line is oci_net_of_tax',
  },
  { key: 'special_reserve', group: 'equity', nameZh: '专项储备', standards: GENERAL },
  { key: 'surplus_reserve', group: 'equity', nameZh: '盈余公积', standards: ALL },
  { key: 'retained_earnings', group: 'equity', nameZh: '未分配利润', standards: ALL },
  {
    key: 'equity_attributable_to_parent',
    group: 'equity_parent_total',
    nameZh: '归属于母公司所有者权益合计',
    standards: GENERAL,
    note: 'consolidated statements only',
  },
  {
    key: 'minority_interests',
    group: 'equity',
    nameZh: '少数股东权益',
    standards: GENERAL,
    note: 'consolidated statements only',
  },
  {
    key: 'total_shareholders_equity',
    group: 'equity_total',
    nameZh: '所有者权益（或股东权益）合计',
    standards: ALL,
  },
  {
    key: 'total_liabilities_and_equity',
    group: 'liabilities_and_equity_total',
    nameZh: '负债和所有者权益（或股东权益）总计',
    standards: ALL,
  },
];

// 利润表 (会企02表 / 会小企02表), top to bottom in the 2019 new-format order.
const INCOME: readonly Entry[] = [
  { key: 'revenue', group: 'revenue', nameZh: '营业收入', standards: ALL },
  { key: 'operating_cost', group: 'cost', nameZh: '营业成本', standards: ALL, sign: 'deduction' },
  {
    key: 'taxes_and_dues',
    group: 'cost',
    nameZh: '税金及附加',
    standards: ALL,
    sign: 'deduction',
    note: 'small_enterprise 2011 text: 营业税金及附加',
  },
  {
    key: 'consumption_tax',
    group: 'breakdown',
    nameZh: '消费税',
    standards: SMALL,
    parent: 'taxes_and_dues',
  },
  { key: 'business_tax', group: 'breakdown', nameZh: '营业税', standards: SMALL, parent: 'taxes_and_dues' },
  {
    key: 'urban_maintenance_tax',
    group: 'breakdown',
    nameZh: '城市维护建设税',
    standards: SMALL,
    parent: 'taxes_and_dues',
  },
  { key: 'resource_tax', group: 'breakdown', nameZh: '资源税', standards: SMALL, parent: 'taxes_and_dues' },
  {
    key: 'land_appreciation_tax',
    group: 'breakdown',
    nameZh: '土地增值税',
    standards: SMALL,
    parent: 'taxes_and_dues',
  },
  {
    key: 'land_property_vehicle_stamp_taxes',
    group: 'breakdown',
    nameZh: '城镇土地使用税、房产税、车船税、印花税',
    standards: SMALL,
    parent: 'taxes_and_dues',
  },
  {
    key: 'education_surcharge_and_fees',
    group: 'breakdown',
    nameZh: '教育费附加、矿产资源补偿费、排污费',
    standards: SMALL,
    parent: 'taxes_and_dues',
  },
  { key: 'sales_expenses', group: 'expense', nameZh: '销售费用', standards: ALL, sign: 'deduction' },
  {
    key: 'repair_expenses',
    group: 'breakdown',
    nameZh: '商品维修费',
    standards: SMALL,
    parent: 'sales_expenses',
  },
  {
    key: 'advertising_expenses',
    group: 'breakdown',
    nameZh: '广告费和业务宣传费',
    standards: SMALL,
    parent: 'sales_expenses',
  },
  { key: 'administrative_expenses', group: 'expense', nameZh: '管理费用', standards: ALL, sign: 'deduction' },
  {
    key: 'organisation_expenses',
    group: 'breakdown',
    nameZh: '开办费',
    standards: SMALL,
    parent: 'administrative_expenses',
  },
  {
    key: 'entertainment_expenses',
    group: 'breakdown',
    nameZh: '业务招待费',
    standards: SMALL,
    parent: 'administrative_expenses',
  },
  {
    key: 'research_expenses',
    group: 'breakdown',
    nameZh: '研究费用',
    standards: SMALL,
    parent: 'administrative_expenses',
    note: 'small enterprises report research costs inside 管理费用, not as a separate rd_expenses line',
  },
  { key: 'rd_expenses', group: 'expense', nameZh: '研发费用', standards: GENERAL, sign: 'deduction' },
  { key: 'financial_expenses', group: 'expense', nameZh: '财务费用', standards: ALL, sign: 'deduction' },
  {
    key: 'interest_expense',
    group: 'breakdown',
    nameZh: '利息费用',
    standards: ALL,
    parent: 'financial_expenses',
    note: 'small_enterprise: 利息费用（收入以“-”号填列）',
  },
  {
    key: 'interest_income',
    group: 'breakdown',
    nameZh: '利息收入',
    standards: ALL,
    parent: 'financial_expenses',
    note: 'reduces 财务费用; the small-enterprise format has no row for it but clients send it as a detail',
  },
  { key: 'other_income', group: 'other_gains', nameZh: '其他收益', standards: GENERAL, sign: 'signed' },
  { key: 'investment_income', group: 'other_gains', nameZh: '投资收益', standards: ALL, sign: 'signed' },
  {
    key: 'investment_income_from_associates_jv',
    group: 'breakdown',
    nameZh: '对联营企业和合营企业的投资收益',
    standards: GENERAL,
    parent: 'investment_income',
  },
  {
    key: 'derecognition_gain_amortised_cost_fa',
    group: 'breakdown',
    nameZh: '以摊余成本计量的金融资产终止确认收益',
    standards: NEW,
    parent: 'investment_income',
  },
  {
    key: 'net_exposure_hedging_gain',
    group: 'other_gains',
    nameZh: '净敞口套期收益',
    standards: NEW,
    sign: 'signed',
  },
  {
    key: 'fair_value_change',
    group: 'other_gains',
    nameZh: '公允价值变动收益',
    standards: GENERAL,
    sign: 'signed',
  },
  {
    key: 'credit_impairment',
    group: 'other_gains',
    nameZh: '信用减值损失',
    standards: NEW,
    sign: 'signed',
    note: '损失以“-”号填列: a loss is negative and is added in operating profit',
  },
  {
    key: 'asset_impairment',
    group: 'other_gains',
    nameZh: '资产减值损失',
    standards: GENERAL,
    sign: 'signed',
    deductionIn: OLD,
    note:
      'general_new: 损失以“-”号填列, added in operating profit. general_old lists it under 减： after 财务费用 with a ' +
      'loss positive; the normaliser negates it so that every normalised report uses the general_new sign',
  },
  {
    key: 'asset_disposal_gain',
    group: 'other_gains',
    nameZh: '资产处置收益',
    standards: GENERAL,
    sign: 'signed',
  },
  { key: 'operating_profit', group: 'profit', nameZh: '营业利润', standards: ALL },
  { key: 'non_operating_income', group: 'non_operating', nameZh: '营业外收入', standards: ALL },
  {
    key: 'government_grants',
    group: 'breakdown',
    nameZh: '政府补助',
    standards: SMALL,
    parent: 'non_operating_income',
  },
  {
    key: 'non_operating_expenses',
    group: 'non_operating',
    nameZh: '营业外支出',
    standards: ALL,
    sign: 'deduction',
  },
  {
    key: 'bad_debt_losses',
    group: 'breakdown',
    nameZh: '坏账损失',
    standards: SMALL,
    parent: 'non_operating_expenses',
  },
  {
    key: 'uncollectible_long_term_bond_investment_losses',
    group: 'breakdown',
    nameZh: '无法收回的长期债券投资损失',
    standards: SMALL,
    parent: 'non_operating_expenses',
  },
  {
    key: 'uncollectible_long_term_equity_investment_losses',
    group: 'breakdown',
    nameZh: '无法收回的长期股权投资损失',
    standards: SMALL,
    parent: 'non_operating_expenses',
  },
  {
    key: 'force_majeure_losses',
    group: 'breakdown',
    nameZh: '自然灾害等不可抗力因素造成的损失',
    standards: SMALL,
    parent: 'non_operating_expenses',
  },
  {
    key: 'tax_late_payment_fines',
    group: 'breakdown',
    nameZh: '税收滞纳金',
    standards: SMALL,
    parent: 'non_operating_expenses',
  },
  { key: 'total_profit', group: 'profit', nameZh: '利润总额', standards: ALL },
  { key: 'income_tax_expense', group: 'tax', nameZh: '所得税费用', standards: ALL, sign: 'deduction' },
  { key: 'net_profit', group: 'profit', nameZh: '净利润', standards: ALL },
  {
    key: 'continuing_ops_net_profit',
    group: 'net_profit_by_continuity',
    nameZh: '持续经营净利润',
    standards: GENERAL,
    parent: 'net_profit',
  },
  {
    key: 'discontinued_ops_net_profit',
    group: 'net_profit_by_continuity',
    nameZh: '终止经营净利润',
    standards: GENERAL,
    parent: 'net_profit',
  },
  {
    key: 'net_profit_attributable_to_parent',
    group: 'net_profit_by_owner',
    nameZh: '归属于母公司股东的净利润',
    standards: GENERAL,
    parent: 'net_profit',
    note: 'consolidated statements only',
  },
  {
    key: 'minority_interest_income',
    group: 'net_profit_by_owner',
    nameZh: '少数股东损益',
    standards: GENERAL,
    parent: 'net_profit',
    note: 'consolidated statements only',
  },
  { key: 'oci_net_of_tax', group: 'oci_total', nameZh: '其他综合收益的税后净额', standards: GENERAL },
  {
    key: 'oci_not_reclassifiable',
    group: 'oci_category',
    nameZh: '不能重分类进损益的其他综合收益',
    standards: GENERAL,
    parent: 'oci_net_of_tax',
  },
  {
    key: 'oci_defined_benefit_remeasurement',
    group: 'oci',
    nameZh: '重新计量设定受益计划变动额',
    standards: GENERAL,
    parent: 'oci_not_reclassifiable',
  },
  {
    key: 'oci_equity_method_not_reclassifiable',
    group: 'oci',
    nameZh: '权益法下不能转损益的其他综合收益',
    standards: GENERAL,
    parent: 'oci_not_reclassifiable',
  },
  {
    key: 'oci_other_equity_investments_fv_change',
    group: 'oci',
    nameZh: '其他权益工具投资公允价值变动',
    standards: NEW,
    parent: 'oci_not_reclassifiable',
  },
  {
    key: 'oci_own_credit_risk_fv_change',
    group: 'oci',
    nameZh: '企业自身信用风险公允价值变动',
    standards: NEW,
    parent: 'oci_not_reclassifiable',
  },
  {
    key: 'oci_reclassifiable',
    group: 'oci_category',
    nameZh: '将重分类进损益的其他综合收益',
    standards: GENERAL,
    parent: 'oci_net_of_tax',
  },
  {
    key: 'oci_equity_method_reclassifiable',
    group: 'oci',
    nameZh: '权益法下可转损益的其他综合收益',
    standards: GENERAL,
    parent: 'oci_reclassifiable',
  },
  {
    key: 'oci_other_debt_investments_fv_change',
    group: 'oci',
    nameZh: '其他债权投资公允价值变动',
    standards: NEW,
    parent: 'oci_reclassifiable',
  },
  {
    key: 'oci_financial_assets_reclassified',
    group: 'oci',
    nameZh: '金融资产重分类计入其他综合收益的金额',
    standards: NEW,
    parent: 'oci_reclassifiable',
  },
  {
    key: 'oci_other_debt_investments_credit_impairment',
    group: 'oci',
    nameZh: '其他债权投资信用减值准备',
    standards: NEW,
    parent: 'oci_reclassifiable',
  },
  {
    key: 'oci_afs_fv_change',
    group: 'oci',
    nameZh: '可供出售金融资产公允价值变动损益',
    standards: OLD,
    parent: 'oci_reclassifiable',
  },
  {
    key: 'oci_htm_reclassified_to_afs',
    group: 'oci',
    nameZh: '持有至到期投资重分类为可供出售金融资产损益',
    standards: OLD,
    parent: 'oci_reclassifiable',
  },
  {
    key: 'oci_cash_flow_hedge',
    group: 'oci',
    nameZh: '现金流量套期储备',
    standards: GENERAL,
    parent: 'oci_reclassifiable',
    note: 'general_old: 现金流量套期损益的有效部分',
  },
  {
    key: 'oci_fx_translation_difference',
    group: 'oci',
    nameZh: '外币财务报表折算差额',
    standards: GENERAL,
    parent: 'oci_reclassifiable',
  },
  { key: 'total_comprehensive_income', group: 'profit', nameZh: '综合收益总额', standards: GENERAL },
  { key: 'basic_eps', group: 'eps', nameZh: '基本每股收益', standards: GENERAL, note: 'yuan per share' },
  { key: 'diluted_eps', group: 'eps', nameZh: '稀释每股收益', standards: GENERAL, note: 'yuan per share' },
];

/** Finance-company operating lines of a consolidated cash flow statement (general standards). */
function finance(group: 'operating_in' | 'operating_out', lines: readonly [string, string][]): Entry[] {
  return lines.map(([key, nameZh]) => ({
    key,
    group,
    nameZh,
    standards: GENERAL,
    note: '合并报表含金融类子公司（如财务公司）时列示',
  }));
}

// 现金流量表 (会企03表 / 会小企03表), direct method, top to bottom.
const CASH_FLOW: readonly Entry[] = [
  {
    key: 'sales_cash',
    group: 'operating_in',
    nameZh: '销售商品、提供劳务收到的现金',
    standards: ALL,
    note: 'small_enterprise: 销售产成品、商品、提供劳务收到的现金',
  },
  { key: 'tax_refund', group: 'operating_in', nameZh: '收到的税费返还', standards: GENERAL },
  // Finance-company lines of a consolidated statement (e.g. a group with a 财务公司): part of the operating
  // subtotals, so a statement carrying them adds up only with them.
  ...finance('operating_in', [
    ['customer_deposits_net_increase', '客户存款和同业存放款项净增加额'],
    ['central_bank_borrowings_net_increase', '向中央银行借款净增加额'],
    ['placements_from_banks_net_increase', '拆入资金净增加额'],
    ['repurchase_funds_net_increase', '回购业务资金净增加额'],
    ['interest_fee_commission_received', '收取利息、手续费及佣金的现金'],
  ]),
  { key: 'other_op_cash_in', group: 'operating_in', nameZh: '收到其他与经营活动有关的现金', standards: ALL },
  {
    key: 'op_cash_in_total',
    group: 'operating_in_total',
    nameZh: '经营活动现金流入小计',
    standards: GENERAL,
  },
  {
    key: 'purchase_cash',
    group: 'operating_out',
    nameZh: '购买商品、接受劳务支付的现金',
    standards: ALL,
    note: 'small_enterprise: 购买原材料、商品、接受劳务支付的现金',
  },
  {
    key: 'salary_paid',
    group: 'operating_out',
    nameZh: '支付给职工以及为职工支付的现金',
    standards: ALL,
    note: 'small_enterprise: 支付的职工薪酬',
  },
  {
    key: 'tax_paid',
    group: 'operating_out',
    nameZh: '支付的各项税费',
    standards: ALL,
    note: 'small_enterprise: 支付的税费',
  },
  ...finance('operating_out', [
    ['customer_loans_net_increase', '客户贷款及垫款净增加额'],
    ['central_bank_deposits_net_increase', '存放中央银行和同业款项净增加额'],
    ['placements_with_banks_net_increase', '拆出资金净增加额'],
    ['interest_fee_commission_paid', '支付利息、手续费及佣金的现金'],
  ]),
  {
    key: 'other_op_cash_out',
    group: 'operating_out',
    nameZh: '支付其他与经营活动有关的现金',
    standards: ALL,
  },
  {
    key: 'op_cash_out_total',
    group: 'operating_out_total',
    nameZh: '经营活动现金流出小计',
    standards: GENERAL,
  },
  { key: 'net_cf_operating', group: 'operating_net', nameZh: '经营活动产生的现金流量净额', standards: ALL },
  {
    key: 'invest_proceeds',
    group: 'investing_in',
    nameZh: '收回投资收到的现金',
    standards: ALL,
    note: 'small_enterprise: 收回短期投资、长期债券投资和长期股权投资收到的现金',
  },
  { key: 'invest_income', group: 'investing_in', nameZh: '取得投资收益收到的现金', standards: ALL },
  {
    key: 'asset_disposal',
    group: 'investing_in',
    nameZh: '处置固定资产、无形资产和其他长期资产收回的现金净额',
    standards: ALL,
  },
  {
    key: 'subsidiaries_disposal_cash',
    group: 'investing_in',
    nameZh: '处置子公司及其他营业单位收到的现金净额',
    standards: GENERAL,
  },
  {
    key: 'other_invest_cash_in',
    group: 'investing_in',
    nameZh: '收到其他与投资活动有关的现金',
    standards: GENERAL,
  },
  {
    key: 'invest_cash_in_total',
    group: 'investing_in_total',
    nameZh: '投资活动现金流入小计',
    standards: GENERAL,
  },
  {
    key: 'asset_purchase',
    group: 'investing_out',
    nameZh: '购建固定资产、无形资产和其他长期资产支付的现金',
    standards: ALL,
  },
  {
    key: 'invest_payments',
    group: 'investing_out',
    nameZh: '投资支付的现金',
    standards: ALL,
    note: 'small_enterprise: 短期投资、长期债券投资和长期股权投资支付的现金',
  },
  {
    key: 'subsidiaries_acquisition_cash',
    group: 'investing_out',
    nameZh: '取得子公司及其他营业单位支付的现金净额',
    standards: GENERAL,
  },
  {
    key: 'other_invest_cash_out',
    group: 'investing_out',
    nameZh: '支付其他与投资活动有关的现金',
    standards: GENERAL,
  },
  {
    key: 'invest_cash_out_total',
    group: 'investing_out_total',
    nameZh: '投资活动现金流出小计',
    standards: GENERAL,
  },
  { key: 'net_cf_investing', group: 'investing_net', nameZh: '投资活动产生的现金流量净额', standards: ALL },
  {
    key: 'capital_received',
    group: 'financing_in',
    nameZh: '吸收投资收到的现金',
    standards: ALL,
    note: 'small_enterprise: 吸收投资者投资收到的现金',
  },
  { key: 'borrowings_received', group: 'financing_in', nameZh: '取得借款收到的现金', standards: ALL },
  {
    key: 'bonds_issued_cash',
    group: 'financing_in',
    nameZh: '发行债券收到的现金',
    standards: GENERAL,
    note: '上市公司现金流量表格式列示（2007年起）；一般企业财务报表格式并入取得借款收到的现金或不单列',
  },
  {
    key: 'other_finance_cash_in',
    group: 'financing_in',
    nameZh: '收到其他与筹资活动有关的现金',
    standards: GENERAL,
  },
  {
    key: 'finance_cash_in_total',
    group: 'financing_in_total',
    nameZh: '筹资活动现金流入小计',
    standards: GENERAL,
  },
  {
    key: 'debt_repayment',
    group: 'financing_out',
    nameZh: '偿还债务支付的现金',
    standards: ALL,
    note: 'small_enterprise: 偿还借款本金支付的现金',
  },
  {
    key: 'dividends_interest_paid',
    group: 'financing_out',
    nameZh: '分配股利、利润或偿付利息支付的现金',
    standards: GENERAL,
    note: 'small_enterprise splits it into interest_paid and dividends_paid',
  },
  { key: 'interest_paid', group: 'financing_out', nameZh: '偿还借款利息支付的现金', standards: SMALL },
  { key: 'dividends_paid', group: 'financing_out', nameZh: '分配利润支付的现金', standards: SMALL },
  {
    key: 'other_finance_cash_out',
    group: 'financing_out',
    nameZh: '支付其他与筹资活动有关的现金',
    standards: GENERAL,
  },
  {
    key: 'finance_cash_out_total',
    group: 'financing_out_total',
    nameZh: '筹资活动现金流出小计',
    standards: GENERAL,
  },
  { key: 'net_cf_financing', group: 'financing_net', nameZh: '筹资活动产生的现金流量净额', standards: ALL },
  {
    key: 'fx_effect_on_cash',
    group: 'fx_effect',
    nameZh: '汇率变动对现金及现金等价物的影响',
    standards: GENERAL,
  },
  {
    key: 'net_increase_cash',
    group: 'total',
    nameZh: '现金及现金等价物净增加额',
    standards: ALL,
    note: 'small_enterprise: 现金净增加额',
  },
  {
    key: 'cash_beginning',
    group: 'cash_balance',
    nameZh: '期初现金及现金等价物余额',
    standards: ALL,
    note: 'small_enterprise: 期初现金余额',
  },
  {
    key: 'cash_ending',
    group: 'cash_balance',
    nameZh: '期末现金及现金等价物余额',
    standards: ALL,
    note: 'small_enterprise: 期末现金余额',
  },
];

function onSheet(sheet: SheetType, entries: readonly Entry[]): LineItemDef[] {
  return entries.map((entry) => Object.freeze({ ...entry, sheet }));
}

/** Every accepted line, frozen, in statement order: balance sheet, income statement, cash flow statement. */
export const LINE_ITEMS: readonly LineItemDef[] = Object.freeze([
  ...onSheet('balance', BALANCE),
  ...onSheet('income', INCOME),
  ...onSheet('cash_flow', CASH_FLOW),
]);

/** Sheet → key → entry: nested maps keep the lookup free of string building (the engine looks names up often). */
const BY_SHEET_AND_KEY = new Map<SheetType, Map<string, LineItemDef>>();
for (const def of LINE_ITEMS) {
  let byKey = BY_SHEET_AND_KEY.get(def.sheet);
  if (!byKey) {
    byKey = new Map();
    BY_SHEET_AND_KEY.set(def.sheet, byKey);
  }
  byKey.set(def.key, def);
}

/** The catalogue entry of `key` on `sheet`, whatever the standard; undefined for an unknown key. */
export function findLineItem(sheet: SheetType, key: string): LineItemDef | undefined {
  return BY_SHEET_AND_KEY.get(sheet)?.get(key);
}

const BY_SHEET_AND_STANDARD = new Map<string, readonly LineItemDef[]>();

/** The lines of `sheet` that the format of `standard` has, in statement order (a fresh array). */
export function lineItemsFor(sheet: SheetType, standard: AccountingStandard): LineItemDef[] {
  const cacheKey = `${sheet}:${standard}`;
  let lines = BY_SHEET_AND_STANDARD.get(cacheKey);
  if (!lines) {
    lines = LINE_ITEMS.filter((def) => def.sheet === sheet && def.standards.includes(standard));
    BY_SHEET_AND_STANDARD.set(cacheKey, lines);
  }
  return [...lines];
}

/**
 * Other names real files print for a line: the small-enterprise and old-format wordings (the `note`s above),
 * consolidated-statement wordings, 2011 texts and what accounting software and annual reports write. The
 * import matcher (server/import/matchLines.ts) normalises both sides the same way (prefixes such as 一、（一）
 * 加： 减： 其中：, △ *, width, spaces, parenthesised remarks), so an alias is listed once, without them.
 */
const ALIASES: Record<SheetType, Record<string, readonly string[]>> = {
  balance: {
    cash_and_equivalents: ['现金及银行存款'],
    financial_assets_held_for_trading: ['以公允价值计量且其变动计入当期损益的金融资产'],
    prepayments: ['预付账款'],
    other_receivables: ['其他应收款合计'],
    inventory: ['存货合计'],
    fixed_assets_net: ['固定资产账面价值', '固定资产净额', '固定资产净值'],
    long_term_deferred_expenses: ['长期待摊费用合计'],
    financial_liabilities_held_for_trading: ['以公允价值计量且其变动计入当期损益的金融负债'],
    advance_receipts: ['预收账款'],
    other_payables: ['其他应付款合计'],
    paid_in_capital: ['实收资本', '股本'],
    equity_attributable_to_parent: ['归属于母公司股东权益合计', '归属于母公司所有者权益'],
    total_shareholders_equity: ['所有者权益合计', '股东权益合计'],
    total_liabilities_and_equity: ['负债和所有者权益总计', '负债和股东权益总计', '负债及所有者权益总计'],
  },
  income: {
    taxes_and_dues: ['营业税金及附加'],
    sales_expenses: ['营业费用'],
    interest_expense: ['利息支出'],
    fair_value_change: ['公允价值变动损益', '公允价值变动净收益'],
    credit_impairment: ['信用减值损失'],
    asset_disposal_gain: ['资产处置损益'],
    total_profit: ['亏损总额', '利润总额'],
    net_profit: ['净亏损'],
    net_profit_attributable_to_parent: ['归属于母公司所有者的净利润', '归属于母公司的净利润'],
    oci_net_of_tax: ['其他综合收益'],
    oci_cash_flow_hedge: ['现金流量套期损益的有效部分'],
  },
  cash_flow: {
    sales_cash: ['销售产成品、商品、提供劳务收到的现金'],
    purchase_cash: ['购买原材料、商品、接受劳务支付的现金'],
    salary_paid: ['支付的职工薪酬'],
    tax_paid: ['支付的税费'],
    invest_proceeds: ['收回短期投资、长期债券投资和长期股权投资收到的现金'],
    asset_disposal: ['处置固定资产、无形资产和其他非流动资产收回的现金净额'],
    asset_purchase: ['购建固定资产、无形资产和其他非流动资产支付的现金'],
    invest_payments: ['短期投资、长期债券投资和长期股权投资支付的现金'],
    capital_received: ['吸收投资者投资收到的现金'],
    debt_repayment: ['偿还借款本金支付的现金'],
    net_increase_cash: ['现金净增加额'],
    cash_beginning: ['期初现金余额'],
    cash_ending: ['期末现金余额'],
  },
};

/**
 * Combined or heading lines that stand for a line only when the sheet has no line of that name itself:
 * 应收票据及应收账款 (the 2018 format merged the two; kept under accounts_receivable, which then includes the
 * notes), 营业总收入 (a consolidated heading; equals 营业收入 when there is no finance business).
 */
const FALLBACK_ALIASES: Record<SheetType, Record<string, readonly string[]>> = {
  balance: {
    accounts_receivable: ['应收票据及应收账款'],
    accounts_payable: ['应付票据及应付账款'],
  },
  income: { revenue: ['营业总收入'] },
  cash_flow: {},
};

/**
 * Section headings and subtotals printed on the forms (or by consolidated statements) that have no key: a row
 * with one of these labels is reported as a heading, never as an unknown line.
 */
export const STATEMENT_HEADINGS: Record<SheetType, readonly string[]> = {
  balance: [
    '资产',
    '流动资产',
    '非流动资产',
    '负债和所有者权益',
    '负债和股东权益',
    '负债',
    '流动负债',
    '非流动负债',
    '所有者权益',
    '股东权益',
    '其中',
    '项目',
  ],
  income: ['营业总成本', '每股收益', '其中', '项目', '按经营持续性分类', '按所有权归属分类'],
  cash_flow: [
    '经营活动产生的现金流量',
    '投资活动产生的现金流量',
    '筹资活动产生的现金流量',
    '其中',
    '项目',
    '补充资料',
  ],
};

/** Other names of `key` on `sheet` (see ALIASES); the official name is `nameZh`. */
export function lineItemAliases(sheet: SheetType, key: string): readonly string[] {
  return ALIASES[sheet][key] ?? [];
}

/** Names that stand for `key` only when the sheet has no line matching it otherwise (see FALLBACK_ALIASES). */
export function lineItemFallbackAliases(sheet: SheetType, key: string): readonly string[] {
  return FALLBACK_ALIASES[sheet][key] ?? [];
}

/** The official form of each statement per standard: 会企01–03表 (general) and 会小企01–03表 (small). */
export const STATEMENT_FORMS: Record<SheetType, { title: string; general: string; small: string }> = {
  balance: { title: '资产负债表', general: '会企01表', small: '会小企01表' },
  income: { title: '利润表', general: '会企02表', small: '会小企02表' },
  cash_flow: { title: '现金流量表', general: '会企03表', small: '会小企03表' },
};

/**
 * Lines the catalogue accepts for a standard that its official form has no row for (clients send them as
 * details): they get no 行次 and are left out of templates.
 */
const OFF_FORM: Partial<Record<AccountingStandard, Partial<Record<SheetType, readonly string[]>>>> = {
  small_enterprise: { income: ['interest_income'] },
};

/**
 * Forms whose printed order differs from the catalogue's (the catalogue follows the 2019 general_new order):
 * 会小企03表 lists investment payments before purchases of long-term assets and borrowings before capital; the
 * old general format lists 资产减值损失 as a deduction right after 财务费用.
 */
const FORM_ORDER: Partial<Record<AccountingStandard, Partial<Record<SheetType, readonly string[]>>>> = {
  small_enterprise: {
    cash_flow: [
      'sales_cash',
      'other_op_cash_in',
      'purchase_cash',
      'salary_paid',
      'tax_paid',
      'other_op_cash_out',
      'net_cf_operating',
      'invest_proceeds',
      'invest_income',
      'asset_disposal',
      'invest_payments',
      'asset_purchase',
      'net_cf_investing',
      'borrowings_received',
      'capital_received',
      'debt_repayment',
      'interest_paid',
      'dividends_paid',
      'net_cf_financing',
      'net_increase_cash',
      'cash_beginning',
      'cash_ending',
    ],
  },
};

export interface FormLine {
  /** 行次: the row number on the form (会小企 forms: the official numbers; 会企 forms: the printed order). */
  lineNo: number;
  def: LineItemDef;
}

const FORM_LINES = new Map<string, readonly FormLine[]>();

/** The rows of the official form of `sheet` under `standard`, in printed order, each with its 行次. */
export function formLines(sheet: SheetType, standard: AccountingStandard): readonly FormLine[] {
  const cacheKey = `${sheet}:${standard}`;
  let lines = FORM_LINES.get(cacheKey);
  if (!lines) {
    const off = OFF_FORM[standard]?.[sheet] ?? [];
    const order = FORM_ORDER[standard]?.[sheet];
    let defs = lineItemsFor(sheet, standard).filter((def) => !off.includes(def.key));
    if (order) defs = order.map((key) => findLineItem(sheet, key)).filter((def) => def !== undefined);
    if (standard === 'general_old' && sheet === 'income') {
      // 资产减值损失 sits after 财务费用's 其中 lines in the old format.
      const impairment = defs.find((def) => def.key === 'asset_impairment');
      defs = defs.filter((def) => def !== impairment);
      const after = defs.findIndex((def) => def.key === 'interest_income');
      if (impairment) defs.splice(after + 1, 0, impairment);
    }
    lines = Object.freeze(defs.map((def, index) => ({ lineNo: index + 1, def })));
    FORM_LINES.set(cacheKey, lines);
  }
  return lines;
}
