/**
 * The built-in writer: composes an item's interpretation from its own computed figures, deterministically and
 * without I/O. It writes when no model is configured, for test-mode reports, and whenever the model fails,
 * so its text has to stand on its own: the latest year's figures with the catalogue's labels and units, the
 * direction and size of change against the prior year (from `series` or the item's change keys), the
 * item's risk items, and what to check next.
 *
 * Item kinds: indicator items (flat latest-year keys + series), list items (`items[]`: structure shares or
 * line changes), check items (`summary` + `mismatches[]`), the enterprise profile, and core_risk_insight,
 * which gets the report's overall assessment from the risk counts, the top risks and the headline figures.
 */
import type { CatalogueField } from '../../worker/catalogue/analysisCatalogue.ts';
import { CORE_RISK_SLUG, type CoreRiskEntry, type CoreRiskGroup } from '../../worker/engine/coreRisk.ts';
import { INDUSTRY_BENCHMARK_SLUG } from '../../worker/engine/industryBenchmark.ts';
import type { AnalysisOutput, RiskItem, RiskLevel } from '../../worker/types.ts';
import { writeIndustryBenchmark } from '../benchmarks/interpretation.ts';
import { catalogueItem } from './catalogue.ts';
import { clause, formatFigure, LEVEL_NAMES, pointChangePhrase, rateChangePhrase, round2 } from './format.ts';
import type { StructuredInterpretation } from './types.ts';

/** What to check next, per item: the step a finance reader takes whatever the figures are. */
const CHECK_ADVICE: Readonly<Record<string, string>> = {
  enterprise_profile:
    '核对企业名称、所属行业及代码、纳税人资质与营业执照和税务登记信息是否一致，行业信息决定对标口径',
  financial_benchmarks: '将毛利率、净资产收益率和资产负债率与同行业平均水平对比，判断企业在行业中的位置',
  financial_performance_overview: '对照利润总额与现金净流量的变动方向，确认利润增长是否有相应的现金流入支撑',
  reporting_period_profit: '逐层核对毛利润到净利润之间的调整额，重点看期间费用、减值损失和所得税费用的构成',
  reporting_period_expense: '抽查占比最大的费用明细账，确认费用归集口径一致，没有跨期或资本化处理异常',
  reporting_period_balance_sheet:
    '核对流动资产与流动负债的期限匹配，关注非流动资产占比变化背后的投资或购建活动',
  revenue: '核对收入确认政策与主要客户合同、发票和回款记录，确认营业外收入的来源是否可持续',
  cost: '取得营业成本明细，核对成本结转与收入确认是否配比，关注原材料价格和产能利用率的变化',
  revenue_cost_alignment: '分产品或业务线核对收入与成本的配比关系，拆分毛利率变动中的价格因素与成本因素',
  expense: '按费用类别核查大额变动的明细和审批依据，区分一次性支出与经常性支出',
  key_income_items: '对变动幅度较大的利润项目逐项追溯原因，区分经营性变化与一次性损益',
  operating_profit:
    '核查减值准备的计提依据以及投资收益、公允价值变动的来源，评估营业利润对非经常性项目的依赖',
  non_operating_income_analysis: '取得营业外收支明细，核实政府补助、罚没、资产报废等大额项目的性质和可持续性',
  net_profit: '核对所得税费用与利润总额的勾稽关系，解释实际税率与法定税率的差异（税收优惠、递延所得税等）',
  growth_quality_analysis: '分析应收账款账龄和存货库龄结构，核实收入增长是否伴随信用政策放宽或存货积压',
  other_comprehensive_income: '核对其他综合收益各明细项目的来源，以及与所有者权益变动表的一致性',
  gross_profit: '区分利润总额中经常性经营利润与投资收益、营业外收支的贡献，评估利润来源的稳定性',
  overview_total_asset_structure: '结合行业特点判断流动资产与非流动资产的配置是否合理，查明结构变化的原因',
  detailed_total_asset_structure: '对占比最高的资产项目进行盘点或函证，关注应收款项与存货的可回收性',
  total_assets_change_rate: '对增减额最大的资产项目追查对应的购建、处置或经营活动，确认变动有合同或凭证支持',
  total_liabilities_change_rate: '核查新增借款的合同条款、期限和担保，关注负债增速与资产增速是否匹配',
  liability_structure_overview: '编制债务到期表，确认短期债务的偿还来源，评估再融资压力',
  current_liabilities_structure: '核查应付账款和短期借款的到期分布与供应商信用期，关注是否存在逾期',
  noncurrent_liabilities_structure:
    '核对长期借款合同的利率、期限和限制性条款，关注一年内到期部分是否已重分类',
  shareholder_equity_change_rate: '核对所有者权益变动与利润分配、增资、资本公积转增等事项的决议文件',
  shareholder_equity_structure: '关注未分配利润占比和分红政策，核实实收资本是否足额到位',
  operating_activities: '将经营活动现金流量净额与净利润逐项调节，关注应收、存货和应付变动对现金流的影响',
  investing_activities: '核查资本性支出对应的项目立项和验收情况，评估投资回报与资金来源',
  financing_activities: '核对借款取得与偿还的明细，判断企业是否依赖外部融资维持经营',
  operational_efficiency: '对周转天数变化较大的应收账款、存货和应付账款，分析账龄结构与信用政策的变化',
  eps_fluctuations: '核对每股收益的计算口径（加权平均股数、稀释性潜在普通股）',
  short_term_liability: '编制未来12个月的现金收支预测，确认短期偿债的资金来源和可动用的授信额度',
  long_term_liability: '核查有息负债的规模、利率和到期结构，测算利息保障倍数对利润下滑的敏感性',
  shareholder_equity: '关注资本保值增值情况和未分配利润变动，核实利润分配是否符合规定',
  business_input_profitability: '将总资产报酬率、成本费用利润率与行业标准值对比，找出得分较低指标的改进空间',
  profitability: '用杜邦分析分解净资产收益率，识别盈利能力变化来自利润率、周转率还是财务杠杆',
  distress_signals: '逐项查看Altman Z、Beneish M和Piotroski F的组成指标，核实变化较大的指标背后的业务原因',
  income_statement: '对不一致的项目取得上年审定报表，确认差异来自追溯调整、会计差错更正还是录入错误',
  balance_sheet: '对年初余额与上年年末余额不一致的项目，核对期初调整事项，或重新核对录入的数据',
  cash_flow: '对相邻年度金额不一致的现金流量项目，核对本年报表比较数据的来源',
  comparative: '将现金净增加额与货币资金变动逐年调节，关注受限资金、现金等价物口径等差异因素',
  statement_arithmetic: '对合计数与明细不符的报表项目，核查是否有未提交的明细行或录入错误',
};
const GENERIC_ADVICE = '结合明细账和原始凭证核实本项主要数字的准确性';

/**
 * Items whose catalogue order does not lead with what matters: these keys are written first (the generic
 * choice — the first amounts and the first ratios in catalogue order — would pick the components).
 */
const HEADLINE_KEYS: Readonly<Record<string, readonly string[]>> = {
  distress_signals: ['altman_headline_score', 'beneish_m', 'piotroski_f'],
  operating_profit: [
    'operating_profit',
    'investment_income',
    'credit_impairment',
    'asset_impairment',
    'impairment_loss_ratio',
    'investment_dependence',
  ],
  business_input_profitability: [
    'overall_score',
    'total_asset_return',
    'cost_expense_profit_margin',
    'earnings_cash_coverage',
    'revenue_per_employee',
  ],
  other_comprehensive_income: ['oci_net_of_tax', 'total_comprehensive_income'],
  // Days read more directly than turnover rates for receivables, inventory and payables.
  operational_efficiency: [
    'total_asset_turnover',
    'receivable_turnover_days',
    'inventory_turnover_days',
    'payable_turnover_days',
  ],
};

/** Scores the catalogue files under a ratio unit, written as the plain scores they are. */
const DISPLAY_UNITS: Readonly<Record<string, string>> = {
  altman_headline_score: '',
  beneish_m: '',
  piotroski_f: '分',
  overall_score: '分',
};

const MAX_AMOUNTS = 5;
const MAX_RATIOS = 4;
const MAX_STEPS = 4;
/** A change at least this large (in %) is called out as the item's notable movement. */
const NOTABLE_CHANGE = 30;
/** Count keys of check items: the check's own summary sentence already states them. */
const CHECK_COUNT_KEYS = new Set(['checked_year_pairs', 'checked_pairs', 'checked_years', 'mismatch_count']);
const ZONE_NAMES: Readonly<Record<string, string>> = { safe: '安全区', grey: '灰色区', distress: '困境区' };
const SEVERITY: Readonly<Record<RiskLevel, number>> = { danger: 2, warning: 1, info: 0 };

type Row = Record<string, unknown>;

/** A risk item that only says the statements lack what the item needs. */
const isMissingData = (risk: RiskItem): boolean =>
  /(not_available|not_submitted|cash_flow_missing)$/.test(risk.code ?? '');

const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value : null);

/** `a`, `a和b`, `a、b和c`. */
function list(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join('、')}和${parts.at(-1)}`;
}

function sentence(parts: readonly string[]): string {
  return parts.length ? `${parts.join('；')}。` : '';
}

function bySeverity(items: readonly RiskItem[]): RiskItem[] {
  return [...items].sort((a, b) => SEVERITY[b.level] - SEVERITY[a.level]);
}

/** `1条警告`, `2条危险、1条提示`. */
function levelCounts(items: readonly { level: RiskLevel }[]): string {
  return (['danger', 'warning', 'info'] as const)
    .map((level) => [level, items.filter((i) => i.level === level).length] as const)
    .filter(([, count]) => count > 0)
    .map(([level, count]) => `${count}条${LEVEL_NAMES[level]}`)
    .join('、');
}

/** A field's label without a unit in brackets (`人均营业收入（万元/人）` → label `人均营业收入`, unit `万元/人`). */
function labelAndUnit(field: CatalogueField): { label: string; unit: string } {
  const match = /^(.*)（([^（）]*\/[^（）]*)）$/.exec(field.label);
  if (match) return { label: match[1]!, unit: match[2]! };
  return { label: field.label, unit: DISPLAY_UNITS[field.key] ?? field.unit };
}

/** The figures of one computed item, read the way the writer needs them. */
class ItemView {
  readonly slug: string;
  readonly label: string;
  readonly sp: Row;
  readonly year: number | null;
  readonly priorYear: number | null;
  readonly prior: Row | null;
  readonly fields: CatalogueField[];
  readonly companions: Set<string>;
  readonly ruleRiskCount: number;

  constructor(item: AnalysisOutput, labelOf: (slug: string) => string) {
    this.slug = item.slug;
    const entry = catalogueItem(item.slug);
    this.label = entry?.label ?? labelOf(item.slug);
    this.sp = item.sp_result;
    this.year = num(this.sp.released_year);
    const series = Array.isArray(this.sp.series) ? (this.sp.series as Row[]) : [];
    const earlier = series.filter((row) => this.year !== null && (num(row.year) ?? Infinity) < this.year);
    this.prior = earlier.at(-1) ?? null;
    this.priorYear = this.prior ? num(this.prior.year) : this.year !== null ? this.year - 1 : null;
    this.fields = (entry?.fields ?? []).filter((f) => !f.key.includes('['));
    const keys = new Set(this.fields.map((f) => f.key));
    this.companions = new Set(
      this.fields
        .map((f) => f.key)
        .filter((key) =>
          ['_change_rate', '_change_amount', '_change'].some(
            (suffix) => key.endsWith(suffix) && keys.has(key.slice(0, -suffix.length)),
          ),
        ),
    );
    this.ruleRiskCount = entry?.risk_rules.length ?? 0;
  }

  get yearText(): string {
    return this.year === null ? '最新年度' : `${this.year}年`;
  }

  value(key: string): number | null {
    return num(this.sp[key]);
  }

  priorValue(key: string): number | null {
    return this.prior ? num(this.prior[key]) : null;
  }

  /** Change rate (%) of an amount against the prior year: the item's own `_change_rate`, else from series. */
  rate(key: string): number | null {
    const own = this.value(`${key}_change_rate`);
    if (own !== null) return own;
    const current = this.value(key);
    const before = this.priorValue(key);
    if (current === null || before === null || before === 0) return null;
    return round2(((current - before) / Math.abs(before)) * 100);
  }

  /** Change in percentage points of a % field: the item's own `_change`, else from series. */
  points(key: string): number | null {
    const own = this.value(`${key}_change`);
    if (own !== null) return own;
    const current = this.value(key);
    const before = this.priorValue(key);
    return current === null || before === null ? null : round2(current - before);
  }

  /** Fields worth a sentence: the slug's headline keys, else every field that is not another's change. */
  headline(): CatalogueField[] {
    const preferred = HEADLINE_KEYS[this.slug];
    const candidates = preferred
      ? preferred.flatMap((key) => this.fields.filter((f) => f.key === key))
      : this.fields.filter((f) => !this.companions.has(f.key) && !CHECK_COUNT_KEYS.has(f.key));
    // A zero balancing line (其他…（差额）) says only that the subtotals add up.
    return candidates.filter((f) => {
      const value = this.value(f.key);
      return value !== null && !(value === 0 && f.key.startsWith('other_'));
    });
  }

  /** The largest change among the item's amounts and change rates, when it is notable. */
  notableChange(): { subject: string; rate: number } | null {
    let best: { subject: string; rate: number } | null = null;
    for (const field of this.fields) {
      let rate: number | null = null;
      let subject = field.label;
      if (field.unit === '万元' && !this.companions.has(field.key)) {
        // A rate is only a fair summary between two positive amounts (a loss or a sign change reads wrongly).
        const before = this.priorValue(field.key);
        const current = this.value(field.key);
        if (before !== null && before > 0 && current !== null && current >= 0) rate = this.rate(field.key);
      } else if (/_(change|growth)_rate$/.test(field.key) && !this.companions.has(field.key)) {
        rate = this.value(field.key);
        subject = field.label.replace(/(变动率|增长率|增减率)$/, '');
      }
      if (
        rate !== null &&
        Math.abs(rate) >= NOTABLE_CHANGE &&
        (!best || Math.abs(rate) > Math.abs(best.rate))
      )
        best = { subject, rate };
    }
    return best;
  }
}

function describeField(view: ItemView, field: CatalogueField): string {
  const { label, unit } = labelAndUnit(field);
  const value = view.value(field.key)!;
  let text = `${label}为${formatFigure(value, unit)}`;
  const prior = view.priorYear;
  const before = view.priorValue(field.key);
  if (prior !== null && unit === '万元') {
    if (before !== null && before !== 0 && value !== 0 && before < 0 !== value < 0) {
      text += `，由${prior}年的${formatFigure(before, unit)}转为${value < 0 ? '负值' : '正值'}`;
    } else if (before !== null && before < 0 && value < 0) {
      // Two losses (or two net outflows): compare their size, not the signed values.
      const change = round2(((Math.abs(value) - Math.abs(before)) / Math.abs(before)) * 100);
      text +=
        change === 0
          ? `，与${prior}年持平`
          : `，绝对值较${prior}年${change > 0 ? '扩大' : '缩小'}${formatFigure(Math.abs(change), '%')}`;
    } else {
      const rate = view.rate(field.key);
      if (rate !== null) text += `，${rateChangePhrase(rate, prior)}`;
    }
  } else if (prior !== null && unit === '%' && !/_(change|growth)_rate$/.test(field.key)) {
    const points = view.points(field.key);
    if (points !== null) text += `，${pointChangePhrase(points, prior)}`;
  } else if (prior !== null && ['倍', '次', '天', '元', '分', ''].includes(unit) && before !== null) {
    text += `（${prior}年为${formatFigure(before, unit)}）`;
  }
  const zone = field.key.endsWith('_score') ? str(view.sp[field.key.replace(/_score$/, '_zone')]) : null;
  if (zone) text += `，处于${ZONE_NAMES[zone] ?? zone}`;
  return text;
}

/** The latest year's headline figures: one sentence of amounts, one of ratios and other measures. */
function figureSentences(view: ItemView): string[] {
  const fields = view.headline();
  const amounts = fields.filter((f) => f.unit === '万元').slice(0, MAX_AMOUNTS);
  const others = fields.filter((f) => f.unit !== '万元').slice(0, MAX_RATIOS);
  const sentences: string[] = [];
  for (const group of [amounts, others]) {
    if (!group.length) continue;
    const parts = group.map((field) => describeField(view, field));
    if (!sentences.length) parts[0] = `${view.yearText}${parts[0]}`;
    sentences.push(sentence(parts));
  }
  return sentences;
}

/** `items[]` of structure and change items: the largest shares, or the largest movements. */
function listSentence(view: ItemView): string | null {
  const rows = (Array.isArray(view.sp.items) ? (view.sp.items as Row[]) : []).filter(
    (row) => str(row.label) && !String(row.key ?? '').startsWith('total_'),
  );
  if (!rows.length) return null;
  if (rows.some((row) => num(row.share) !== null)) {
    const top = rows
      .filter((row) => (num(row.share) ?? 0) > 0)
      .sort((a, b) => num(b.share)! - num(a.share)!)
      .slice(0, 3);
    if (!top.length) return null;
    const parts = top.map((row) => {
      const amount = num(row.amount);
      return `${row.label}（${formatFigure(num(row.share)!, '%')}${amount === null ? '' : `，${formatFigure(amount, '万元')}`}）`;
    });
    let text = `从构成看，占比最高的是${list(parts)}`;
    const first = top[0]!;
    const priorRows = view.prior && Array.isArray(view.prior.items) ? (view.prior.items as Row[]) : [];
    const before = num(priorRows.find((row) => row.key === first.key)?.share);
    if (before !== null && view.priorYear !== null)
      text += `；${first.label}占比${pointChangePhrase(round2(num(first.share)! - before), view.priorYear)}`;
    return `${text}。`;
  }
  const moved = rows
    .filter((row) => (num(row.change_amount) ?? 0) !== 0)
    .sort((a, b) => Math.abs(num(b.change_amount)!) - Math.abs(num(a.change_amount)!))
    .slice(0, 3);
  if (!moved.length) return null;
  const parts = moved.map((row) => {
    const change = num(row.change_amount)!;
    const rate = num(row.change_rate);
    const rateText =
      rate === null ? '' : `，${rate >= 0 ? '增长' : '下降'}${formatFigure(Math.abs(rate), '%')}`;
    return `${row.label}（${change > 0 ? '增加' : '减少'}${formatFigure(Math.abs(change), '万元')}${rateText}）`;
  });
  return `从变动看，增减额最大的是${list(parts)}。`;
}

interface Mismatch {
  year: number | null;
  label: string;
  difference: number | null;
  unit: string;
  text: string;
}

/** `mismatches[]` of check items, described with the catalogue's labels for their keys. */
function mismatches(view: ItemView): Mismatch[] {
  const rows = Array.isArray(view.sp.mismatches) ? (view.sp.mismatches as Row[]) : [];
  const docs = (catalogueItem(view.slug)?.fields ?? [])
    .filter((f) => f.key.startsWith('mismatches[].'))
    .map((f) => ({ ...f, key: f.key.slice('mismatches[].'.length) }));
  return rows.map((row) => {
    const unit = str(row.unit) ?? '万元';
    const year = num(row.year);
    const label = `${str(row.sheet_label) ?? ''}“${str(row.item_label) ?? str(row.item) ?? '项目'}”`;
    const values = docs
      .filter((doc) => doc.key !== 'difference' && num(row[doc.key]) !== null)
      .map((doc) => `${doc.label}${formatFigure(num(row[doc.key])!, unit)}`);
    const difference = num(row.difference);
    const diffText = difference === null ? '' : `，差额${formatFigure(difference, unit)}`;
    return {
      year,
      label,
      difference,
      unit,
      text: `${year === null ? '' : `${year}年`}${label}${values.length ? `：${values.join('，')}` : ''}${diffText}`,
    };
  });
}

function riskFocus(view: ItemView, risks: readonly RiskItem[]): string {
  if (risks.length) {
    const sorted = bySeverity(risks);
    const shown = sorted.slice(0, 2).map((risk) => clause(risk.message));
    const more = sorted.length > shown.length ? `等，共${sorted.length}条` : '';
    return `本项识别出${levelCounts(sorted)}：${shown.join('；')}${more}。`;
  }
  const base =
    view.ruleRiskCount > 0
      ? `按本项${view.ruleRiskCount}条风险规则检查，${view.yearText}未触发风险提示`
      : '本项不设风险规则，未产生风险提示';
  const notable = view.notableChange();
  if (!notable) return `${base}。`;
  const direction = notable.rate > 0 ? '增长' : '下降';
  return `${base}；但${notable.subject}${direction}${formatFigure(Math.abs(notable.rate), '%')}，变动较大，宜结合业务背景判断其影响。`;
}

/** The first clause of a risk message (`2024年研发费用同比增长216.61%`): what the check step is about. */
function subjectOf(message: string): string {
  return clause(message.split(/[，,；;]/)[0] ?? message);
}

function nextSteps(view: ItemView, risks: readonly RiskItem[], found: readonly Mismatch[]): string[] {
  const steps: string[] = [];
  for (const m of found.slice(0, 2)) {
    const diff = m.difference === null ? '' : `（差额${formatFigure(m.difference, m.unit)}）`;
    steps.push(
      `优先核对${m.year === null ? '' : `${m.year}年`}${m.label}${diff}，必要时更正数据后重新提交报告`,
    );
  }
  for (const risk of bySeverity(risks).filter((r) => r.level !== 'info' && !r.code?.endsWith('_mismatch'))) {
    if (steps.length >= 2) break;
    steps.push(`针对“${subjectOf(risk.message)}”，取得相关明细账和原始凭证核实数据，并查明成因`);
  }
  const notable = view.notableChange();
  if (notable && steps.length < 3 && !steps.some((step) => step.includes(notable.subject))) {
    const direction = notable.rate > 0 ? '增长' : '下降';
    steps.push(
      `了解${notable.subject}${direction}${formatFigure(Math.abs(notable.rate), '%')}的原因，判断其是否可持续`,
    );
  }
  const gaps = view.sp.data_gaps;
  if (risks.some(isMissingData) || (Array.isArray(gaps) && gaps.length > 0))
    steps.push('补充提交缺少的报表或报表项目后重新提交报告，以完成本项分析');
  steps.push(CHECK_ADVICE[view.slug] ?? GENERIC_ADVICE);
  return [...new Set(steps)].slice(0, MAX_STEPS);
}

function writeItem(item: AnalysisOutput, labelOf: (slug: string) => string): StructuredInterpretation {
  const view = new ItemView(item, labelOf);
  const risks = item.risk_items.filter((risk) => risk.source !== 'model');
  const found = mismatches(view);
  const parts: string[] = [];
  const checkSummary = str(view.sp.summary);
  if (checkSummary) {
    parts.push(`截至${view.yearText}，${clause(checkSummary)}。`);
    if (found.length) {
      const shown = found.slice(0, 3).map((m) => m.text);
      parts.push(
        `不一致的项目${found.length > 3 ? `（前3项，共${found.length}项）` : ''}：${shown.join('；')}。`,
      );
    }
  }
  parts.push(...figureSentences(view));
  const listed = listSentence(view);
  if (listed) parts.push(listed);
  const notable = view.notableChange();
  if (notable && !parts.some((p) => p.includes(notable.subject))) {
    const direction = notable.rate > 0 ? '增长' : '下降';
    parts.push(
      `各项中变动幅度最大的是${notable.subject}，${direction}${formatFigure(Math.abs(notable.rate), '%')}。`,
    );
  }
  // Data notes (not risks) say what is missing: quoted so the reader knows why the figures are empty.
  const gapNotes = Array.isArray(view.sp.data_gaps)
    ? (view.sp.data_gaps as { message?: unknown }[]).map((g) => str(g.message)).filter((m) => m !== null)
    : [];
  if (!parts.length)
    parts.push(
      gapNotes.length
        ? `数据说明：${gapNotes.map(clause).join('；')}。`
        : `${view.yearText}${view.label}所需的报表数据不足，各项指标均为空，无法据此作出判断。`,
    );
  return {
    summary: parts.join(''),
    risk_focus: riskFocus(view, risks),
    next_steps: nextSteps(view, risks, found),
    risk_items: [],
  };
}

function writeProfile(item: AnalysisOutput): StructuredInterpretation {
  const sp = item.sp_result;
  const name = str(sp.enterprise_name) ?? '该企业';
  const facts: string[] = [];
  const region = str(sp.region);
  if (region) facts.push(`位于${region}`);
  const sector = str(sp.industry_sector);
  const division = str(sp.industry_division);
  if (sector || division)
    facts.push(
      `所属行业为${[sector, division].filter(Boolean).join('·')}${str(sp.industry_division_code) ? `（${sp.industry_division_code}）` : ''}`,
    );
  const employees = str(sp.employee_count);
  if (employees) facts.push(`从业人数${employees}人`);
  const taxpayer = str(sp.taxpayer_qualification);
  if (taxpayer) facts.push(`纳税人资质为${taxpayer}`);
  const type = str(sp.enterprise_type);
  if (type) facts.push(`企业类型为${type}${sp.is_sme === 1 ? '（小微企业）' : ''}`);
  const years = num(sp.year_count);
  const cashYears = num(sp.cash_flow_year_count);
  const start = num(sp.year_start);
  const end = num(sp.year_end) ?? num(sp.released_year);
  const standard = str(sp.accounting_standard_label) ?? str(sp.accounting_standard);
  let coverage = `报表${standard ? `采用${standard}，` : ''}覆盖${start ?? ''}${start !== null ? '—' : ''}${end ?? ''}年`;
  if (years !== null) coverage += `共${formatFigure(years, '个')}年度`;
  if (cashYears === 0) coverage += '，均未提交现金流量表';
  else if (cashYears !== null) coverage += `，其中${formatFigure(cashYears, '个')}年度提交了现金流量表`;
  const summary = `${name}${facts.length ? facts.join('，') : '未提供地区、行业等基本信息'}。${coverage}。`;

  const missing = [
    ['地区', region],
    ['所属行业', sector ?? division],
    ['从业人数', employees],
    ['纳税人资质', taxpayer],
  ]
    .filter(([, value]) => !value)
    .map(([label]) => label!);
  const gaps: string[] = [];
  if (years !== null && cashYears !== null && cashYears < years)
    gaps.push(`有${formatFigure(years - cashYears, '个')}年度未提交现金流量表，现金流相关分析不完整`);
  if (missing.length) gaps.push(`未提供${missing.join('、')}，行业对标和人均指标的精度受限`);
  const riskFocusText = gaps.length
    ? `${gaps.join('；')}。`
    : '基本信息完整，报表覆盖的年度均提交了现金流量表，可支持完整的多期分析。';
  const steps = [CHECK_ADVICE.enterprise_profile!];
  if (years !== null && cashYears !== null && cashYears < years)
    steps.push('补充提交缺少年度的现金流量表后重新提交报告');
  if (missing.length) steps.push(`补充${missing.join('、')}等企业信息，以便按行业标准值对标`);
  return { summary, risk_focus: riskFocusText, next_steps: steps, risk_items: [] };
}

function writeCoreRisk(
  item: AnalysisOutput,
  reportItems: readonly AnalysisOutput[],
  labelOf: (slug: string) => string,
): StructuredInterpretation {
  const sp = item.sp_result;
  const year = num(sp.released_year);
  const yearText = year === null ? '最新年度' : `${year}年`;
  const total = num(sp.total_count) ?? 0;
  const danger = num(sp.danger_count) ?? 0;
  const warning = num(sp.warning_count) ?? 0;
  const info = num(sp.info_count) ?? 0;
  const groups = Array.isArray(sp.modules) ? (sp.modules as CoreRiskGroup[]) : [];
  const withRisks = groups.filter((g) => g.total_count > 0);
  const top = Array.isArray(sp.top_risks) ? (sp.top_risks as CoreRiskEntry[]) : [];
  const highest = str(sp.highest_level);

  const parts: string[] = [];
  parts.push(
    total > 0
      ? `截至${yearText}，${groups.length}个分析项共识别出${formatFigure(total, '条')}风险提示（危险${formatFigure(danger, '条')}、警告${formatFigure(warning, '条')}、提示${formatFigure(info, '条')}），分布在${formatFigure(withRisks.length, '个')}分析项中，最高等级为${LEVEL_NAMES[highest ?? ''] ?? highest}。`
      : `截至${yearText}，${groups.length}个分析项均未触发风险规则，风险提示为${formatFigure(0, '条')}。`,
  );

  const verdict = sp.verdict as VerdictView | undefined;
  if (verdict?.grade && typeof verdict.score === 'number') parts.push(verdictSentence(verdict));

  const benchmarks = reportItems.find((o) => o.slug === 'financial_benchmarks');
  if (benchmarks) {
    const view = new ItemView(benchmarks, labelOf);
    const headline = ['operating_revenue', 'net_profit', 'debt_to_asset_ratio', 'roe']
      .flatMap((key) => view.fields.filter((f) => f.key === key))
      .filter((f) => view.value(f.key) !== null)
      .map((f) => describeField(view, f));
    if (headline.length) parts.push(`核心指标方面，${view.yearText}${headline.join('；')}。`);
  }

  const severe = (level: RiskLevel) =>
    list(
      withRisks
        .filter((g) => g.risk_items.some((r) => r.level === level))
        .map((g) => g.label)
        .slice(0, 3),
    );
  if (verdict?.grade && typeof verdict.score === 'number')
    parts.push(overallByGrade(verdict, danger, warning, severe));
  else if (danger > 0)
    parts.push(
      `总体判断：存在${formatFigure(danger, '条')}危险级风险，集中在${severe('danger')}，财务风险较高，应优先核实处理。`,
    );
  else if (warning > 0)
    parts.push(
      `总体判断：未发现危险级风险，但有${formatFigure(warning, '条')}警告需要跟踪，涉及${severe('warning')}，整体风险处于需关注水平。`,
    );
  else
    parts.push(
      `总体判断：规则检查未发现警告及以上级别的风险${info > 0 ? `，${formatFigure(info, '条')}提示多为数据缺失或说明性信息` : ''}，整体财务状况未见明显异常。`,
    );

  const focus = top.slice(0, 3).map((entry, i) => `${'①②③'[i]}【${entry.label}】${clause(entry.message)}`);
  const riskFocusText = focus.length
    ? `最需关注的是：${focus.join('；')}。`
    : '各分析项均未触发风险规则，暂无需要优先处理的风险事项。';

  // Modules whose only risks say that data is missing have nothing to review; the step below covers them.
  const ranked = withRisks
    .map((g) => ({ g, findings: g.risk_items.filter((r) => !isMissingData(r)) }))
    .filter(({ findings }) => findings.length > 0)
    .map(({ g, findings }) => ({ g, worst: Math.max(...findings.map((r) => SEVERITY[r.level])) }))
    .sort((a, b) => b.worst - a.worst);
  const steps = ranked
    .slice(0, 3)
    .map(({ g }) => `复核${g.label}：${CHECK_ADVICE[g.slug] ?? GENERIC_ADVICE}`);
  const gaps = Array.isArray(sp.data_gaps) ? (sp.data_gaps as { code: string }[]) : [];
  if (gaps.some((g) => g.code === 'cash_flow_statement'))
    steps.push('补充提交缺少年度的现金流量表后重新提交报告，使现金流分析和报表勾稽核对完整');
  steps.push('将毛利率、净资产收益率、资产负债率等核心指标与同行业平均水平对比，确认企业所处位置');
  return {
    summary: parts.join(''),
    risk_focus: riskFocusText,
    next_steps: steps.slice(0, MAX_STEPS),
    risk_items: [],
  };
}

/** What the writer reads of core_risk_insight's verdict (worker/engine/verdict.ts). */
interface VerdictView {
  grade?: string;
  label?: string;
  score?: number;
  provisional?: boolean;
  status?: string | null;
  provisional_reasons?: { code: string; message: string }[];
  drivers?: { reason?: string; effect?: number }[];
  coverage?: { weight_share?: number };
}

/** The grade, its score and coverage, and the two drivers that moved it most, each with its reason. */
function verdictSentence(verdict: VerdictView): string {
  const coverage = verdict.coverage?.weight_share;
  const coverageText =
    typeof coverage === 'number' && coverage < 100
      ? `（评分覆盖评分卡${formatFigure(coverage, '%')}的权重）`
      : '';
  const reasons = (verdict.drivers ?? [])
    .slice(0, 2)
    .map((d) => d.reason)
    .filter((r): r is string => typeof r === 'string');
  return `评分卡综合评分为${formatFigure(verdict.score!, '分')}${coverageText}，评级${verdict.grade}（${verdict.label}）${reasons.length ? `，主要因素：${reasons.join('；')}` : ''}。`;
}

/**
 * The overall judgement, in the grade's words: the text never calls an A "需关注" nor an E "未见异常". A
 * provisional verdict says so first, naming why.
 */
function overallByGrade(
  verdict: VerdictView,
  danger: number,
  warning: number,
  severe: (level: RiskLevel) => string,
): string {
  const provisional = verdict.provisional
    ? `${(verdict.provisional_reasons ?? []).map((r) => r.message.replace(/[。；\s]+$/, '')).join('；') || (verdict.status ?? '')}。`
    : '';
  const open =
    danger > 0
      ? `另有${formatFigure(danger, '条')}危险级风险（${severe('danger')}）需逐条核实`
      : warning > 0
        ? `另有${formatFigure(warning, '条')}警告（${severe('warning')}）需跟踪`
        : '';
  const byGrade: Record<string, string> = {
    A: `总体判断：评级${verdict.grade}（${verdict.label}），偿债、盈利与现金指标总体健康${open ? `；${open}，但不改变总体判断` : ''}。`,
    B: `总体判断：评级${verdict.grade}（${verdict.label}），财务状况总体稳健${open ? `；${open}` : ''}。`,
    C: `总体判断：评级${verdict.grade}（${verdict.label}），部分指标处于平均值以下，需持续关注${open ? `；${open}` : ''}。`,
    D: `总体判断：评级${verdict.grade}（${verdict.label}），多项指标偏弱，财务风险较高${open ? `；${open}` : ''}，应优先核实处理。`,
    E: `总体判断：评级${verdict.grade}（${verdict.label}），财务风险高${open ? `；${open}` : ''}，应优先核实处理。`,
  };
  return provisional + (byGrade[verdict.grade ?? ''] ?? byGrade.C!);
}

/**
 * Writes the interpretation of one item. `reportItems` is the whole report (core_risk_insight quotes the
 * headline figures of financial_benchmarks); `labelOf` names slugs the catalogue does not know.
 * Model-proposed risk items on the item are ignored: the built-in writer speaks for the rules only.
 */
export function writeBuiltinInterpretation(
  item: AnalysisOutput,
  reportItems: readonly AnalysisOutput[] = [],
  labelOf: (slug: string) => string = (slug) => slug,
): StructuredInterpretation {
  if (item.slug === CORE_RISK_SLUG) return writeCoreRisk(item, reportItems, labelOf);
  if (item.slug === 'enterprise_profile') return writeProfile(item);
  if (item.slug === INDUSTRY_BENCHMARK_SLUG) return writeIndustryBenchmark(item);
  return writeItem(item, labelOf);
}
