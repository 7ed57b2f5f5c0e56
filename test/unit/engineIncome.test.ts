/**
 * The enterprise-overview (section 2) and income-statement (section 3.1) modules, and eps_fluctuations.
 * Golden values are derived here from the raw fixture JSON with exact BigInt rationals, written from the formulas
 * in the issue — independently of decimal.js and of the engine; risk rules are triggered on crafted reports whose
 * figures can be checked by hand.
 */
import { describe, expect, it } from 'vitest';
import { LINE_ITEMS } from '../../worker/catalogue/lineItems.ts';
import { createContext } from '../../worker/engine/context.ts';
import type { AnalysisModule } from '../../worker/engine/module.ts';
import {
  epsFluctuationsModule,
  INCOME_MODULES,
  OVERVIEW_MODULES,
} from '../../worker/engine/modules/income/index.ts';
import { longTermLiabilityModule } from '../../worker/engine/modules/longTermLiability.ts';
import { profitabilityModule } from '../../worker/engine/modules/profitability.ts';
import { revenueModule } from '../../worker/engine/modules/revenue.ts';
import { computeAnalysis } from '../../worker/engine/registry.ts';
import type { NormalisedReport } from '../../worker/types.ts';
import {
  FIXTURES,
  int,
  type Lines,
  loadFixture,
  makeReport,
  q,
  qabs,
  qadd,
  qchange,
  qcmp,
  qgrowth,
  qpct,
  qsign,
  qsub,
  qsum,
  qwan,
  type R,
  type Raw,
  r2,
  rawAccess,
  toReport,
} from '../helpers/engineFixtures.ts';

const ALL_MODULES: readonly AnalysisModule[] = [
  ...OVERVIEW_MODULES,
  ...INCOME_MODULES,
  epsFluctuationsModule,
];

function moduleOf(slug: string): AnalysisModule {
  const found = ALL_MODULES.find((m) => m.slug === slug);
  if (!found) throw new Error(`no module ${slug}`);
  return found;
}

/** One module's output as the engine delivers it (data notes and strengths moved out of risk_items). */
const run = (report: NormalisedReport, slug: string) => {
  moduleOf(slug);
  return computeAnalysis(report, [slug])[0]!;
};

// exact expectations

const qneg = (a: R): R => (a === null ? null : { n: -a.n, d: a.d });

/** One period of the raw statements. */
interface P {
  inc(key: string): R;
  bal(key: string): R;
  cf(key: string): R;
}

/** This year, and the period compared against: the previous year's statements, or the first year's own previous column. */
function periodsOf(r: Raw, y: number): { c: P; p: P } {
  // general_old submits 资产减值损失 as a positive loss; the engine works in the 2019 sign (loss negative).
  const signed = (k: string, v: R): R =>
    r.standard === 'general_old' && k === 'asset_impairment' ? qneg(v) : v;
  const c: P = { inc: (k) => signed(k, r.inc(y, k)), bal: (k) => r.end(y, k), cf: (k) => r.cf(y, k) };
  // The year's own comparatives (restated, CAS 28), a line without them read from the previous year's statement.
  const p: P = {
    inc: (k) => signed(k, r.incLast(y, k) ?? r.inc(y - 1, k)),
    bal: (k) => r.begin(y, k) ?? r.end(y - 1, k),
    cf: (k) => r.cfLast(y, k) ?? r.cf(y - 1, k),
  };
  return { c, p };
}

const orZero = (a: R): R => a ?? int(0);
/** Sum of the values present; null when none is. */
const qsumPresent = (values: readonly R[]): R => {
  const present = values.filter((v) => v !== null);
  return present.length === 0 ? null : qsum(present);
};
const positive = (a: R): boolean => a !== null && qsign(a) > 0;
const gt = (a: R, t: number) => a !== null && qcmp(a, q(String(t))) > 0;
const lt = (a: R, t: number) => a !== null && qcmp(a, q(String(t))) < 0;

const EXPENSES = ['sales_expenses', 'administrative_expenses', 'rd_expenses', 'financial_expenses'] as const;
const OCI_KEYS = LINE_ITEMS.filter((d) => d.sheet === 'income' && d.key.startsWith('oci_')).map((d) => d.key);

type Row = Record<string, R>;
type Formula = (x: P) => R;

/** Reasons of the values null for a stated reason, per expected row (rendered as `null_reasons`). */
const REASONS = new WeakMap<Row, Record<string, string>>();

/** The engine's guarded change rate of a line (tiny base / sign change), recording the reason on the row. */
function guarded(row: Row, key: string, current: R, base: R, scale: R): R {
  const { rate, reason } = qgrowth(current, base, scale);
  if (reason !== null) REASONS.set(row, { ...REASONS.get(row), [key]: reason });
  return rate;
}

const revenueScale = (x: P) => x.inc('revenue');
const assetScale = (x: P) => x.bal('total_assets');

/**
 * `key` → amount in 万元 and `key_change_rate`; with `scale` (a statement line's change rate) guarded like the
 * engine's line change rates, without it (a computed figure such as gross profit) a plain change rate.
 */
function amountAndChange(row: Row, key: string, f: Formula, c: P, p: P, scale?: (x: P) => R): void {
  row[key] = qwan(f(c));
  row[`${key}_change_rate`] =
    scale === undefined ? qchange(f(c), f(p)) : guarded(row, `${key}_change_rate`, f(c), f(p), scale(p));
}

const rev: Formula = (x) => x.inc('revenue');
const grossProfit: Formula = (x) => qsub(x.inc('revenue'), x.inc('operating_cost'));
const grossMargin: Formula = (x) => qpct(grossProfit(x), x.inc('revenue'));
const costShare: Formula = (x) =>
  qpct(x.inc('operating_cost'), qadd(x.inc('operating_cost'), x.inc('non_operating_expenses')));
const totalExpenses: Formula = (x) => qsumPresent(EXPENSES.map((k) => x.inc(k)));
const inc =
  (key: string): Formula =>
  (x) =>
    x.inc(key);

const EXPECTED: Record<string, (r: Raw, y: number) => Row> = {
  financial_benchmarks: (r, y) => {
    const { c } = periodsOf(r, y);
    const equity = r.avg(y, 'total_shareholders_equity');
    return {
      total_assets: qwan(c.bal('total_assets')),
      total_liabilities: qwan(c.bal('total_liabilities')),
      total_shareholders_equity: qwan(c.bal('total_shareholders_equity')),
      operating_revenue: qwan(rev(c)),
      net_profit: qwan(c.inc('net_profit')),
      gross_margin: grossMargin(c),
      net_margin: qpct(c.inc('net_profit'), rev(c)),
      roe: positive(equity) ? qpct(c.inc('net_profit'), equity) : null,
      roe_parent: positive(r.avg(y, 'equity_attributable_to_parent'))
        ? qpct(c.inc('net_profit_attributable_to_parent'), r.avg(y, 'equity_attributable_to_parent'))
        : null,
      roa_parent: qpct(c.inc('net_profit_attributable_to_parent'), r.avg(y, 'total_assets')),
      debt_to_asset_ratio: qpct(c.bal('total_liabilities'), c.bal('total_assets')),
    };
  },
  financial_performance_overview: (r, y) => {
    const { c, p } = periodsOf(r, y);
    const row: Row = {};
    amountAndChange(row, 'total_profit', inc('total_profit'), c, p, revenueScale);
    amountAndChange(row, 'net_increase_cash', (x) => x.cf('net_increase_cash'), c, p, revenueScale);
    amountAndChange(row, 'investment_income', inc('investment_income'), c, p, revenueScale);
    amountAndChange(row, 'operating_profit', inc('operating_profit'), c, p, revenueScale);
    return row;
  },
  reporting_period_profit: (r, y) => {
    const { c } = periodsOf(r, y);
    const [op, tp, np] = [c.inc('operating_profit'), c.inc('total_profit'), c.inc('net_profit')];
    return {
      operating_revenue: qwan(rev(c)),
      gross_profit: qwan(grossProfit(c)),
      operating_profit: qwan(op),
      total_profit: qwan(tp),
      net_profit: qwan(np),
      gross_margin: grossMargin(c),
      operating_margin: qpct(op, rev(c)),
      total_profit_margin: qpct(tp, rev(c)),
      net_margin: qpct(np, rev(c)),
      gross_to_operating_profit: qwan(qsub(op, grossProfit(c))),
      operating_to_total_profit: qwan(qsub(tp, op)),
      total_to_net_profit: qwan(qsub(np, tp)),
    };
  },
  reporting_period_expense: (r, y) => {
    const { c } = periodsOf(r, y);
    const total = totalExpenses(c);
    const row: Row = { total_period_expenses: qwan(total), period_expense_ratio: qpct(total, rev(c)) };
    for (const k of EXPENSES) {
      row[k] = qwan(c.inc(k));
      row[`${k}_share`] = positive(total) ? qpct(c.inc(k), total) : null;
    }
    return row;
  },
  reporting_period_balance_sheet: (r, y) => {
    const { c } = periodsOf(r, y);
    const b = (k: string) => c.bal(k);
    const ta = b('total_assets');
    const row: Row = {};
    for (const k of [
      'total_current_assets',
      'total_noncurrent_assets',
      'total_assets',
      'total_current_liabilities',
      'total_noncurrent_liabilities',
      'total_liabilities',
      'total_shareholders_equity',
    ]) {
      row[k] = qwan(b(k));
    }
    const assetParts = [b('total_current_assets'), b('total_noncurrent_assets')];
    const fundingParts = [
      b('total_current_liabilities'),
      b('total_noncurrent_liabilities'),
      b('total_shareholders_equity'),
    ];
    return {
      ...row,
      current_assets_share: qpct(b('total_current_assets'), ta),
      noncurrent_assets_share: qpct(b('total_noncurrent_assets'), ta),
      other_assets_share: qpct(qsub(ta, qsum(assetParts)), ta),
      current_liabilities_share: qpct(b('total_current_liabilities'), ta),
      noncurrent_liabilities_share: qpct(b('total_noncurrent_liabilities'), ta),
      equity_share: qpct(b('total_shareholders_equity'), ta),
      other_liabilities_equity_share: qpct(qsub(ta, qsum(fundingParts)), ta),
    };
  },
  cost: (r, y) => {
    const { c, p } = periodsOf(r, y);
    const [cost, noe] = [c.inc('operating_cost'), c.inc('non_operating_expenses')];
    const row: Row = {};
    const costChange = guarded(row, 'operating_cost_change_rate', cost, p.inc('operating_cost'), rev(p));
    const revenueChange = guarded(row, 'revenue_change_rate', rev(c), rev(p), rev(p));
    const noeChange = guarded(
      row,
      'non_operating_expenses_change_rate',
      noe,
      p.inc('non_operating_expenses'),
      rev(p),
    );
    return Object.assign(row, {
      operating_cost: qwan(cost),
      non_operating_expenses: qwan(noe),
      operating_cost_share: costShare(c),
      non_operating_expenses_share: qpct(noe, qadd(cost, noe)),
      operating_cost_share_change: qsub(costShare(c), costShare(p)),
      operating_cost_change_rate: costChange,
      non_operating_expenses_change_rate: noeChange,
      revenue_change_rate: revenueChange,
      cost_revenue_growth_gap: qsub(costChange, revenueChange),
    });
  },
  revenue_cost_alignment: (r, y) => {
    const { c, p } = periodsOf(r, y);
    const revenueWeight: Formula = (x) => qpct(rev(x), qadd(rev(x), x.inc('non_operating_income')));
    const difference: Formula = (x) => qsub(revenueWeight(x), costShare(x));
    const costRatio: Formula = (x) => qpct(x.inc('operating_cost'), rev(x));
    const row: Row = {};
    const revenueChange = guarded(row, 'revenue_change_rate', rev(c), rev(p), rev(p));
    const costChange = guarded(
      row,
      'operating_cost_change_rate',
      c.inc('operating_cost'),
      p.inc('operating_cost'),
      rev(p),
    );
    return Object.assign(row, {
      revenue_weight: revenueWeight(c),
      cost_weight: costShare(c),
      weight_difference: difference(c),
      weight_difference_change: qsub(difference(c), difference(p)),
      revenue_change_rate: revenueChange,
      operating_cost_change_rate: costChange,
      growth_difference: qsub(revenueChange, costChange),
      cost_to_revenue_ratio: costRatio(c),
      cost_to_revenue_ratio_change: qsub(costRatio(c), costRatio(p)),
      gross_margin: grossMargin(c),
      gross_margin_change: qsub(grossMargin(c), grossMargin(p)),
    });
  },
  expense: (r, y) => {
    const { c, p } = periodsOf(r, y);
    const ratio: Formula = (x) => qpct(totalExpenses(x), rev(x));
    const row: Row = {};
    Object.assign(row, {
      total_period_expenses: qwan(totalExpenses(c)),
      total_period_expenses_change_rate: qchange(totalExpenses(c), totalExpenses(p)),
      revenue_change_rate: guarded(row, 'revenue_change_rate', rev(c), rev(p), rev(p)),
      period_expense_ratio: ratio(c),
      period_expense_ratio_change: qsub(ratio(c), ratio(p)),
    });
    for (const k of EXPENSES) amountAndChange(row, k, inc(k), c, p, revenueScale);
    return row;
  },
  key_income_items: (r, y) => {
    const { c, p } = periodsOf(r, y);
    const row: Row = {};
    amountAndChange(row, 'gross_profit', grossProfit, c, p);
    for (const k of [...EXPENSES, 'income_tax_expense', 'operating_profit', 'net_profit']) {
      amountAndChange(row, k, inc(k), c, p, revenueScale);
    }
    return row;
  },
  operating_profit: (r, y) => {
    const { c, p } = periodsOf(r, y);
    const op = c.inc('operating_profit');
    const row: Row = {};
    amountAndChange(row, 'operating_profit', inc('operating_profit'), c, p, revenueScale);
    const items: [string, 1 | -1][] = [
      ['taxes_and_dues', -1],
      ['other_income', 1],
      ['investment_income', 1],
      ['fair_value_change', 1],
      ['credit_impairment', 1],
      ['asset_impairment', 1],
      ['asset_disposal_gain', 1],
    ];
    for (const [k, sign] of items) {
      const amount = c.inc(k);
      row[k] = qwan(amount);
      row[`${k}_effect`] = qpct(sign === 1 ? amount : qneg(amount), op === null ? null : qabs(op));
    }
    const impairment = qneg(qsumPresent([c.inc('credit_impairment'), c.inc('asset_impairment')]));
    const investment = qsumPresent([c.inc('investment_income'), c.inc('fair_value_change')]);
    row.impairment_loss_ratio = positive(op) ? qpct(impairment, op) : null;
    row.investment_dependence = positive(op) ? qpct(investment, op) : null;
    return row;
  },
  non_operating_income_analysis: (r, y) => {
    const { c, p } = periodsOf(r, y);
    const tp = c.inc('total_profit');
    const net = qsub(c.inc('non_operating_income'), c.inc('non_operating_expenses'));
    const row: Row = {
      non_operating_net: qwan(net),
      total_profit: qwan(tp),
      non_operating_net_share: qpct(net, tp === null ? null : qabs(tp)),
      non_operating_income_to_revenue: qpct(c.inc('non_operating_income'), rev(c)),
    };
    amountAndChange(row, 'non_operating_income', inc('non_operating_income'), c, p, revenueScale);
    amountAndChange(row, 'non_operating_expenses', inc('non_operating_expenses'), c, p, revenueScale);
    return row;
  },
  net_profit: (r, y) => {
    const { c, p } = periodsOf(r, y);
    const etr: Formula = (x) => qpct(x.inc('income_tax_expense'), x.inc('total_profit'));
    const row: Row = {
      total_profit: qwan(c.inc('total_profit')),
      effective_tax_rate: etr(c),
      effective_tax_rate_change: qsub(etr(c), etr(p)),
    };
    for (const k of [
      'income_tax_expense',
      'net_profit',
      'continuing_ops_net_profit',
      'discontinued_ops_net_profit',
    ]) {
      amountAndChange(row, k, inc(k), c, p, revenueScale);
    }
    return row;
  },
  growth_quality_analysis: (r, y) => {
    const { c, p } = periodsOf(r, y);
    const row: Row = {};
    const revenueChange = guarded(row, 'revenue_change_rate', rev(c), rev(p), rev(p));
    row.revenue_change_rate = revenueChange;
    for (const [k, gap] of [
      ['accounts_receivable', 'receivable_growth_gap'],
      ['inventory', 'inventory_growth_gap'],
    ] as const) {
      amountAndChange(row, k, (x) => x.bal(k), c, p, assetScale);
      row[gap] = qsub(row[`${k}_change_rate`] ?? null, revenueChange);
      const reason = REASONS.get(row)?.[`${k}_change_rate`] ?? REASONS.get(row)?.revenue_change_rate;
      if (reason) REASONS.set(row, { ...REASONS.get(row), [gap]: reason });
    }
    return row;
  },
  other_comprehensive_income: (r, y) => {
    const { c, p } = periodsOf(r, y);
    const row: Row = {};
    for (const k of [...OCI_KEYS, 'total_comprehensive_income'])
      amountAndChange(row, k, inc(k), c, p, revenueScale);
    return row;
  },
  gross_profit: (r, y) => {
    const { c } = periodsOf(r, y);
    const [tp, op] = [c.inc('total_profit'), c.inc('operating_profit')];
    const investment = orZero(c.inc('investment_income'));
    const net = qsub(orZero(c.inc('non_operating_income')), orZero(c.inc('non_operating_expenses')));
    const parts: Row = {
      operating_profit_excl_investment: qsub(op, investment),
      investment_income: investment,
      non_operating_net: net,
      other_profit_items: qsub(qsub(tp, op), net),
    };
    const row: Row = { total_profit: qwan(tp) };
    for (const [k, v] of Object.entries(parts)) {
      const part = op === null || tp === null ? null : v;
      row[k] = qwan(part);
      row[`${k}_share`] = qpct(part, tp);
    }
    return row;
  },
  eps_fluctuations: (r, y) => {
    const { c, p } = periodsOf(r, y);
    const row: Row = {};
    for (const k of ['basic_eps', 'diluted_eps']) {
      row[k] = c.inc(k);
      row[`${k}_change_rate`] = guarded(row, `${k}_change_rate`, c.inc(k), p.inc(k), null);
    }
    return row;
  },
};

/** Risk codes the rules of the issue raise on the released year, derived from the raw figures. */
function expectedRiskCodes(slug: string, r: Raw, year: number): string[] {
  const { c } = periodsOf(r, year);
  const row = EXPECTED[slug]!(r, year);
  const v = (k: string) => row[k] ?? null;
  const codes: string[] = [];
  switch (slug) {
    case 'cost':
      if (gt(v('cost_revenue_growth_gap'), 10)) codes.push('cost.cost_growth_outpaces_revenue');
      break;
    case 'revenue_cost_alignment':
      if (lt(v('gross_margin_change'), -5)) codes.push('revenue_cost_alignment.gross_margin_fall');
      break;
    case 'expense':
      for (const k of EXPENSES) {
        const material = qcmp(qpct(qabs(c.inc(k) ?? int(0)), rev(c))!, int(2)) >= 0;
        if (material && gt(v(`${k}_change_rate`), 30) && lt(v('revenue_change_rate'), 10)) {
          codes.push('expense.growth_outpaces_revenue');
        }
      }
      break;
    case 'operating_profit':
      if (gt(v('impairment_loss_ratio'), 20)) codes.push('operating_profit.impairment_loss_high');
      if (gt(v('investment_dependence'), 50)) codes.push('operating_profit.investment_dependence_high');
      break;
    case 'non_operating_income_analysis': {
      const share = v('non_operating_net_share');
      if (share !== null && gt(qabs(share), 20)) codes.push('non_operating_income_analysis.net_share_high');
      if (gt(v('non_operating_income_change_rate'), 100) && gt(v('non_operating_income_to_revenue'), 1)) {
        codes.push('non_operating_income_analysis.income_jump');
      }
      break;
    }
    case 'net_profit':
      if (lt(c.inc('net_profit'), 0)) codes.push('net_profit.net_loss');
      if (lt(v('effective_tax_rate'), 0)) codes.push('net_profit.effective_tax_rate_negative');
      if (gt(v('effective_tax_rate'), 40)) codes.push('net_profit.effective_tax_rate_high');
      break;
    case 'growth_quality_analysis': {
      const material = (k: string) => qcmp(qpct(c.bal(k) ?? int(0), c.bal('total_assets'))!, int(5)) >= 0;
      if (material('accounts_receivable') && gt(v('receivable_growth_gap'), 20))
        codes.push('growth_quality_analysis.receivable_growth_gap_high');
      if (material('inventory') && gt(v('inventory_growth_gap'), 20))
        codes.push('growth_quality_analysis.inventory_growth_gap_high');
      break;
    }
    // other_comprehensive_income and eps_fluctuations: a missing line is a data note (data_gaps), not a risk.
  }
  return codes.sort();
}

const rounded = (row: Row) => {
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(row).map(([k, v]) => [k, r2(v)]));
  const reasons = REASONS.get(row);
  if (reasons) out.null_reasons = reasons;
  return out;
};

/** sp_result without its data notes (asserted by the tests of data gaps). */
const withoutNotes = ({ data_gaps: _gaps, ...rest }: Record<string, unknown>) => rest;

describe.each(FIXTURES)('overview and income modules, golden values: %s', (name) => {
  const raw = loadFixture(name);
  const r = rawAccess(raw);
  const report = toReport(raw);
  const latest = Math.max(...r.years);

  it.each(Object.keys(EXPECTED))('%s: series, flat latest values and risk items', (slug) => {
    const rows = new Map(r.years.map((y) => [y, EXPECTED[slug]!(r, y)]));
    const series = r.years.map((y) => ({ year: y, ...rounded(rows.get(y)!) }));
    const { sp_result, risk_items } = run(report, slug);
    expect(withoutNotes(sp_result)).toEqual({ released_year: latest, ...rounded(rows.get(latest)!), series });
    expect(risk_items.map((i) => i.code).sort()).toEqual(expectedRiskCodes(slug, r, latest));
    for (const item of risk_items) expect(item.message).toContain(String(latest));
  });

  it('enterprise_profile: the submitted enterprise information and the years covered', () => {
    const info = raw.enterprise_info!;
    const { sp_result, risk_items } = run(report, 'enterprise_profile');
    expect(sp_result).toEqual({
      released_year: latest,
      enterprise_name: raw.enterprise_name,
      province: info.province,
      city: info.city,
      area: info.area,
      region: `${info.province}${info.city}${info.area}`,
      industry_sector_code: info.industry_sector_code,
      industry_sector: info.industry_sector,
      industry_division_code: info.industry_division_code,
      industry_division: info.industry_division,
      employee_count: info.employee_count,
      taxpayer_qualification: info.taxpayer_qualification,
      is_vat_taxpayer: info.is_vat_taxpayer,
      enterprise_type: info.enterprise_type,
      is_sme: info.is_sme,
      accounting_standard: raw.accounting_standard,
      accounting_standard_label: expect.stringContaining('会计准则'),
      year_start: r.years[0],
      year_end: latest,
      years: r.years,
      year_count: r.years.length,
      cash_flow_year_count: r.years.filter((y) => r.hasSheet(y, 'cash_flow')).length,
    });
    expect(risk_items).toEqual([]);
  });

  it('the overview shows the same ratios as the detailed modules', () => {
    const benchmarks = run(report, 'financial_benchmarks').sp_result;
    const profitability = profitabilityModule.compute(createContext(report)).sp_result;
    const leverage = longTermLiabilityModule.compute(createContext(report)).sp_result;
    const pick = (sp: Record<string, unknown>, keys: string[]) =>
      (sp.series as Record<string, unknown>[]).map((row) => Object.fromEntries(keys.map((k) => [k, row[k]])));
    const ratios = ['gross_margin', 'net_margin', 'roe'];
    expect(pick(benchmarks, ratios)).toEqual(pick(profitability, ratios));
    expect(pick(benchmarks, ['debt_to_asset_ratio'])).toEqual(pick(leverage, ['debt_to_asset_ratio']));
    expect(pick(run(report, 'reporting_period_profit').sp_result, ['gross_margin', 'net_margin'])).toEqual(
      pick(profitability, ['gross_margin', 'net_margin']),
    );
    const alignment = run(report, 'revenue_cost_alignment').sp_result;
    expect(pick(alignment, ['gross_margin'])).toEqual(pick(profitability, ['gross_margin']));
    const revenueSeries = (revenueModule.compute(createContext(report)).sp_result.series as Row[]).map(
      (row) => row.operating_revenue_ratio,
    );
    expect((alignment.series as Row[]).map((row) => row.revenue_weight)).toEqual(revenueSeries);
    expect(pick(alignment, ['cost_weight']).map((o) => o.cost_weight)).toEqual(
      pick(run(report, 'cost').sp_result, ['operating_cost_share']).map((o) => o.operating_cost_share),
    );
  });

  it('structure shares add up to 100 and the profit waterfall closes (within rounding)', () => {
    const near = (values: unknown[], target: number) => {
      const nums = values.filter((v): v is number => typeof v === 'number');
      expect(Math.abs(nums.reduce((a, b) => a + b, 0) - target)).toBeLessThanOrEqual(0.03);
    };
    const rows = (slug: string) => run(report, slug).sp_result.series as Record<string, number | null>[];
    for (const row of rows('reporting_period_expense')) {
      near(
        [
          row.sales_expenses_share,
          row.administrative_expenses_share,
          row.rd_expenses_share,
          row.financial_expenses_share,
        ],
        100,
      );
    }
    for (const row of rows('reporting_period_balance_sheet')) {
      near([row.current_assets_share, row.noncurrent_assets_share, row.other_assets_share], 100);
      near(
        [
          row.current_liabilities_share,
          row.noncurrent_liabilities_share,
          row.equity_share,
          row.other_liabilities_equity_share,
        ],
        100,
      );
    }
    for (const row of rows('gross_profit')) {
      near(
        [
          row.operating_profit_excl_investment_share,
          row.investment_income_share,
          row.non_operating_net_share,
          row.other_profit_items_share,
        ],
        100,
      );
    }
    for (const row of rows('reporting_period_profit')) {
      near([row.gross_profit, row.gross_to_operating_profit], row.operating_profit!);
      near([row.operating_profit, row.operating_to_total_profit], row.total_profit!);
      near([row.total_profit, row.total_to_net_profit], row.net_profit!);
    }
  });

  it('every output is JSON-safe', () => {
    const ctx = createContext(report);
    for (const module of ALL_MODULES) {
      const out = module.compute(ctx);
      expect(JSON.parse(JSON.stringify(out)), module.slug).toEqual(out);
    }
  });
});

describe('hand-checked spot values (general_new-3y, 2024)', () => {
  const report = toReport(loadFixture('general_new-3y'));
  it('matches figures worked out with a desk calculator', () => {
    // 89 257 734.67 − 51 206 986.41 = 38 050 748.26 → 3805.07 万元
    expect(run(report, 'reporting_period_profit').sp_result.gross_profit).toBe(3805.07);
    // 5 635 444.20 / 22 541 776.81 = 25.00%
    expect(run(report, 'net_profit').sp_result.effective_tax_rate).toBe(25);
    // R&D 3 645 093.95 vs 1 151 270.71: +216.61%, while revenue fell 7.24%
    expect(run(report, 'expense').sp_result).toMatchObject({
      rd_expenses_change_rate: 216.61,
      revenue_change_rate: -7.24,
    });
    expect(run(report, 'expense').risk_items).toEqual([
      {
        level: 'warning',
        code: 'expense.growth_outpaces_revenue',
        message:
          '2024年研发费用同比增长216.61%，超过30%，而营业收入变动率仅为-7.24%（低于10%），费用增长与收入增长不匹配，需关注费用管控。',
      },
    ]);
  });
});

// crafted reports

/** A healthy income statement: revenue 1 000 000, cost 600 000, operating profit 200 000, tax 25%. */
const income = (overrides: Lines = {}): Lines => ({
  revenue: '1000000.00',
  operating_cost: '600000.00',
  taxes_and_dues: '10000.00',
  sales_expenses: '100000.00',
  administrative_expenses: '80000.00',
  rd_expenses: '10000.00',
  financial_expenses: '0.00',
  operating_profit: '200000.00',
  non_operating_income: '1000.00',
  non_operating_expenses: '1000.00',
  total_profit: '200000.00',
  income_tax_expense: '50000.00',
  net_profit: '150000.00',
  ...overrides,
});

describe('risk rules on crafted reports', () => {
  it('cost growing 15 points faster than revenue, and a gross margin 8.57 points lower', () => {
    const report = makeReport({
      2023: { income: income() },
      // revenue +5%, cost +20%: gross margin 40% → 1 − 720/1050 = 31.43%
      2024: { income: income({ revenue: '1050000.00', operating_cost: '720000.00' }) },
    });
    expect(run(report, 'cost').sp_result.cost_revenue_growth_gap).toBe(15);
    expect(run(report, 'cost').risk_items).toEqual([
      {
        level: 'warning',
        code: 'cost.cost_growth_outpaces_revenue',
        message:
          '2024年营业成本变动率比营业收入变动率高15.00个百分点，超过10个百分点，成本增长明显快于收入，毛利空间受到挤压。',
      },
    ]);
    expect(run(report, 'revenue_cost_alignment').sp_result).toMatchObject({
      gross_margin: 31.43,
      gross_margin_change: -8.57,
      growth_difference: -15,
      cost_to_revenue_ratio_change: 8.57,
    });
    expect(run(report, 'revenue_cost_alignment').risk_items).toEqual([
      {
        level: 'warning',
        code: 'revenue_cost_alignment.gross_margin_fall',
        message:
          '2024年毛利率为31.43%，较2023年的40.00%下降8.57个百分点，降幅超过5个百分点，收入与成本的匹配关系恶化。',
      },
    ]);
  });

  it('a gross margin 5 points lower exactly is not a fall of more than 5 points', () => {
    // 40% → 35%: cost 650 000 on revenue 1 000 000
    const report = makeReport({
      2023: { income: income() },
      2024: { income: income({ operating_cost: '650000.00' }) },
    });
    expect(run(report, 'revenue_cost_alignment').risk_items).toEqual([]);
    expect(run(report, 'revenue_cost_alignment').sp_result.gross_margin_change).toBe(-5);
  });

  it('an expense growing over 30% while revenue grows under 10%, one item per expense', () => {
    const report = makeReport({
      2023: { income: income() },
      // revenue +5%; sales +40%, administrative +50%, R&D +20%
      2024: {
        income: income({
          revenue: '1050000.00',
          sales_expenses: '140000.00',
          administrative_expenses: '120000.00',
          rd_expenses: '12000.00',
        }),
      },
    });
    const items = run(report, 'expense').risk_items;
    expect(items.map((i) => [i.level, i.code])).toEqual([
      ['warning', 'expense.growth_outpaces_revenue'],
      ['warning', 'expense.growth_outpaces_revenue'],
    ]);
    expect(items[0]?.message).toBe(
      '2024年销售费用同比增长40.00%，超过30%，而营业收入变动率仅为5.00%（低于10%），费用增长与收入增长不匹配，需关注费用管控。',
    );
    expect(items[1]?.message).toContain('管理费用同比增长50.00%');
    // With revenue growing 10% the same expense growth is not flagged.
    const grown = makeReport({
      2023: { income: income() },
      2024: { income: income({ revenue: '1100000.00', sales_expenses: '140000.00' }) },
    });
    expect(run(grown, 'expense').risk_items).toEqual([]);
  });

  it('impairment losses over 20% and investment-type income over 50% of operating profit', () => {
    const report = makeReport({
      2023: { income: income() },
      2024: {
        income: income({
          operating_profit: '100000.00',
          credit_impairment: '-15000.00',
          asset_impairment: '-10000.00',
          investment_income: '40000.00',
          fair_value_change: '15000.00',
        }),
      },
    });
    const { sp_result, risk_items } = run(report, 'operating_profit');
    // 25 000 / 100 000 and 55 000 / 100 000
    expect(sp_result).toMatchObject({
      impairment_loss_ratio: 25,
      investment_dependence: 55,
      credit_impairment_effect: -15,
      taxes_and_dues_effect: -10,
      investment_income_effect: 40,
    });
    expect(risk_items).toEqual([
      {
        level: 'warning',
        code: 'operating_profit.impairment_loss_high',
        message:
          '2024年减值损失（信用减值与资产减值合计）相当于营业利润的25.00%，超过20%，资产质量对利润的侵蚀较大。',
      },
      {
        level: 'warning',
        code: 'operating_profit.investment_dependence_high',
        message:
          '2024年投资收益与公允价值变动收益合计占营业利润的55.00%，超过50%，营业利润对投资类收益依赖较大，主营盈利能力偏弱。',
      },
    ]);
  });

  it('an operating loss gives no ratio to operating profit, and effects keep the direction of the item', () => {
    const report = makeReport({
      2023: { income: income() },
      2024: {
        income: income({
          operating_profit: '-50000.00',
          credit_impairment: '-40000.00',
          investment_income: '10000.00',
        }),
      },
    });
    const { sp_result, risk_items } = run(report, 'operating_profit');
    // −40 000 / |−50 000| = −80%; 10 000 / 50 000 = 20%
    expect(sp_result).toMatchObject({
      impairment_loss_ratio: null,
      investment_dependence: null,
      credit_impairment_effect: -80,
      investment_income_effect: 20,
      asset_impairment_effect: null,
    });
    expect(risk_items).toEqual([]);
  });

  it('non-operating net result: warning above 20%, danger above 50% of |total profit|; a material jump', () => {
    const tiers = (net: string, totalProfit: string) =>
      run(
        makeReport({
          2023: { income: income() },
          2024: {
            income: income({
              non_operating_income: net,
              non_operating_expenses: '0.00',
              total_profit: totalProfit,
            }),
          },
        }),
        'non_operating_income_analysis',
      ).risk_items.filter((i) => i.code === 'non_operating_income_analysis.net_share_high');
    expect(tiers('30000.00', '100000.00').map((i) => i.level)).toEqual(['warning']);
    expect(tiers('60000.00', '100000.00').map((i) => i.level)).toEqual(['danger']);
    expect(tiers('20000.00', '100000.00')).toEqual([]);
    // A loss: |30 000| against |−50 000| = 60%
    expect(tiers('30000.00', '-50000.00').map((i) => i.level)).toEqual(['danger']);

    const report = makeReport({
      2023: { income: income({ non_operating_income: '20000.00' }) },
      // 20 000 → 70 000 (+250%), 7% of revenue; net 60 000 of total profit 100 000
      2024: {
        income: income({
          non_operating_income: '70000.00',
          non_operating_expenses: '10000.00',
          total_profit: '100000.00',
        }),
      },
    });
    const { sp_result, risk_items } = run(report, 'non_operating_income_analysis');
    expect(sp_result).toMatchObject({
      non_operating_net: 6,
      non_operating_net_share: 60,
      non_operating_income_change_rate: 250,
      non_operating_income_to_revenue: 7,
    });
    expect(risk_items).toEqual([
      {
        level: 'danger',
        code: 'non_operating_income_analysis.net_share_high',
        message:
          '2024年营业外收支净额为6.00万元，相当于利润总额（10.00万元）绝对值的60.00%，超过50%，利润对营业外收支依赖较大，盈利的可持续性存疑。',
      },
      {
        level: 'warning',
        code: 'non_operating_income_analysis.income_jump',
        message:
          '2024年营业外收入为7.00万元，同比增长250.00%，超过100%，且相当于营业收入的7.00%（超过1%），需关注偶发性收益的来源与可持续性。',
      },
    ]);
  });

  it('a jump of non-operating income that is immaterial against revenue is not raised', () => {
    // 1 000 → 5 000 (+400%) but 0.5% of revenue
    const report = makeReport({
      2023: { income: income() },
      2024: { income: income({ non_operating_income: '5000.00' }) },
    });
    expect(run(report, 'non_operating_income_analysis').risk_items).toEqual([]);
  });

  it('net loss: every submitted year is judged; two loss years in a row are a danger', () => {
    const loss = (prior: string, current: string) =>
      run(
        makeReport({
          2023: { income: income({ net_profit: prior }) },
          2024: { income: income({ net_profit: current }) },
        }),
        'net_profit',
      ).risk_items.filter((i) => i.code === 'net_profit.net_loss');
    // 2023 is a loss year of its own (warning: its prior year is not submitted); 2024 the second in a row.
    expect(loss('-50000.00', '-80000.00')).toEqual([
      {
        level: 'warning',
        code: 'net_profit.net_loss',
        message: '2023年净利润为-5.00万元，企业处于亏损状态。',
      },
      {
        level: 'danger',
        code: 'net_profit.net_loss',
        message: '2024年净利润为-8.00万元，企业处于亏损状态，2023年亏损5.00万元，连续两年亏损，亏损扩大。',
      },
    ]);
    expect(loss('-80000.00', '-50000.00').map((i) => [i.level, i.message])).toEqual([
      ['warning', '2023年净利润为-8.00万元，企业处于亏损状态。'],
      [
        'danger',
        '2024年净利润为-5.00万元，企业处于亏损状态，2023年亏损8.00万元，连续两年亏损，亏损收窄或持平。',
      ],
    ]);
    expect(loss('150000.00', '-50000.00').map((i) => [i.level, i.message])).toEqual([
      ['warning', '2024年净利润为-5.00万元，企业处于亏损状态，2023年净利润为15.00万元，本年转为亏损。'],
    ]);
    // A loss in the middle year of a window is a risk of that year, even when the last year is profitable.
    const middle = run(
      makeReport({
        2022: { income: income({ net_profit: '100000.00' }) },
        2023: { income: income({ net_profit: '-3000000.00' }) },
        2024: { income: income({ net_profit: '90000.00' }) },
      }),
      'net_profit',
    ).risk_items.filter((i) => i.code === 'net_profit.net_loss');
    expect(middle.map((i) => [i.level, i.message])).toEqual([
      ['warning', '2023年净利润为-300.00万元，企业处于亏损状态，2022年净利润为10.00万元，本年转为亏损。'],
    ]);
    // Break-even is no loss; the 1-yuan loss of 2023 is one (printed as 0.00万元 at the 万元 rounding).
    expect(loss('-1.00', '0.00').map((i) => i.message)).toEqual([
      '2023年净利润为0.00万元，企业处于亏损状态。',
    ]);
  });

  it("listed enterprises: the exchanges' financial risk-warning conditions, each year, cited", () => {
    const years = {
      2023: {
        income: income({ revenue: '90000000.00', total_profit: '-2000000.00', net_profit: '-2500000.00' }),
      },
      2024: {
        income: income({ revenue: '300000000.00', total_profit: '1000000.00', net_profit: '800000.00' }),
        balance: { equity_attributable_to_parent: '-5000000.00' },
      },
    };
    const warnings = (info: Record<string, string> | null) =>
      run(makeReport(years, { info }), 'net_profit').risk_items.filter(
        (i) => i.code === 'net_profit.exchange_risk_warning',
      );
    expect(warnings(null)).toEqual([]);
    expect(warnings({ enterprise_type: '非上市股份有限公司' })).toEqual([]);
    const listed = warnings({ enterprise_type: '上市公司' });
    expect(listed.map((i) => i.level)).toEqual(['danger', 'danger']);
    expect(listed[0]!.message).toBe(
      '2023年利润总额、净利润孰低者为-250.00万元（负值）且营业收入9000.00万元低于1亿元，触及沪深交易所股票上市规则的财务类退市风险警示情形（《上海证券交易所股票上市规则》（2022年1月修订）第9.3.2条、《深圳证券交易所股票上市规则》（2022年修订）第9.3.1条）。',
    );
    expect(listed[1]!.message).toMatch(/^2024年期末净资产为-500\.00万元（负值），触及/);
  });

  it('effective tax rate below 0 or above 40 is an info item', () => {
    const rate = (tax: string, totalProfit: string) =>
      run(
        makeReport({
          2023: { income: income() },
          2024: { income: income({ income_tax_expense: tax, total_profit: totalProfit }) },
        }),
        'net_profit',
      );
    const negative = rate('5000.00', '-100000.00');
    expect(negative.sp_result.effective_tax_rate).toBe(-5);
    expect(negative.risk_items).toEqual([
      {
        level: 'info',
        code: 'net_profit.effective_tax_rate_negative',
        message:
          '2024年实际所得税税率为-5.00%，低于0%，所得税费用与利润总额方向相反，需关注纳税调整或递延所得税的影响。',
      },
    ]);
    const high = rate('90000.00', '200000.00');
    expect(high.sp_result.effective_tax_rate).toBe(45);
    expect(high.risk_items.map((i) => [i.level, i.code])).toEqual([
      ['info', 'net_profit.effective_tax_rate_high'],
    ]);
    expect(high.risk_items[0]?.message).toContain('45.00%，高于40%');
    expect(rate('80000.00', '200000.00').risk_items).toEqual([]);
    expect(rate('0.00', '0.00').sp_result.effective_tax_rate).toBeNull();
  });

  it('continuing and discontinued net profit when submitted', () => {
    const report = makeReport({
      2023: {
        income: income({ continuing_ops_net_profit: '160000.00', discontinued_ops_net_profit: '-10000.00' }),
      },
      2024: {
        income: income({ continuing_ops_net_profit: '200000.00', discontinued_ops_net_profit: '-50000.00' }),
      },
    });
    expect(run(report, 'net_profit').sp_result).toMatchObject({
      continuing_ops_net_profit: 20,
      continuing_ops_net_profit_change_rate: 25,
      discontinued_ops_net_profit: -5,
      // −50 000 against |−10 000|: −400%
      discontinued_ops_net_profit_change_rate: -400,
    });
  });

  it('receivables and inventory outgrowing revenue: warning above 20 points, danger above 50', () => {
    const report = makeReport({
      2023: {
        income: income(),
        balance: { accounts_receivable: ['100000.00', '90000.00'], inventory: ['100000.00', '95000.00'] },
      },
      // revenue +10%, receivables +40% (gap 30), inventory +70% (gap 60)
      2024: {
        income: income({ revenue: '1100000.00' }),
        balance: { accounts_receivable: ['140000.00', '100000.00'], inventory: ['170000.00', '100000.00'] },
      },
    });
    const { sp_result, risk_items } = run(report, 'growth_quality_analysis');
    expect(sp_result).toMatchObject({ receivable_growth_gap: 30, inventory_growth_gap: 60 });
    expect(risk_items).toEqual([
      {
        level: 'warning',
        code: 'growth_quality_analysis.receivable_growth_gap_high',
        message:
          '2024年末应收账款增长率比营业收入增长率高30.00个百分点，超过20个百分点，收入增长可能依赖放宽信用政策，需关注回款风险与收入质量。',
      },
      {
        level: 'danger',
        code: 'growth_quality_analysis.inventory_growth_gap_high',
        message:
          '2024年末存货增长率比营业收入增长率高60.00个百分点，超过50个百分点，存货增长与销售不匹配，需关注存货积压与跌价风险。',
      },
    ]);
  });

  it('other comprehensive income: values and changes when submitted, an info item when not', () => {
    const report = makeReport({
      2023: {
        income: income({
          oci_net_of_tax: ['20000.00', null],
          oci_fx_translation_difference: '20000.00',
          total_comprehensive_income: '170000.00',
        }),
      },
      2024: {
        income: income({
          oci_net_of_tax: '-10000.00',
          oci_fx_translation_difference: '-10000.00',
          total_comprehensive_income: '140000.00',
        }),
      },
    });
    const { sp_result, risk_items } = run(report, 'other_comprehensive_income');
    expect(sp_result).toMatchObject({
      oci_net_of_tax: -1,
      // −10 000 against 20 000: the sign changed, so no percentage (n.m.) — the reason beside it
      oci_net_of_tax_change_rate: null,
      null_reasons: { oci_net_of_tax_change_rate: 'sign_change' },
      oci_fx_translation_difference: -1,
      oci_afs_fv_change: null,
      total_comprehensive_income: 14,
      total_comprehensive_income_change_rate: -17.65,
    });
    expect((sp_result.series as Row[])[0]).toMatchObject({
      oci_net_of_tax: 2,
      oci_net_of_tax_change_rate: null,
    });
    expect(risk_items).toEqual([]);

    const small = makeReport(
      { 2023: { income: income() }, 2024: { income: income() } },
      { standard: 'small_enterprise' },
    );
    // A line the standard does not have is a data note, not a risk.
    const smallOut = run(small, 'other_comprehensive_income');
    expect(smallOut.risk_items).toEqual([]);
    expect(smallOut.sp_result.data_gaps).toEqual([
      {
        code: 'other_comprehensive_income.not_available',
        gap: 'other_comprehensive_income_lines',
        message:
          '2023—2024年按小企业会计准则编制的利润表不列示其他综合收益，其他综合收益分析的各项指标为空。',
      },
    ]);
    const none = makeReport({ 2023: { income: income() }, 2024: { income: income() } });
    const noneOut = run(none, 'other_comprehensive_income');
    expect(noneOut.risk_items).toEqual([]);
    expect((noneOut.sp_result.data_gaps as { message: string }[]).map((g) => g.message)).toEqual([
      '2023—2024年的利润表未提交其他综合收益及综合收益总额项目，其他综合收益分析的各项指标为空。',
    ]);
  });

  it('EPS in yuan per share with growth rates; an info item when not submitted', () => {
    const report = makeReport({
      2023: { income: income({ basic_eps: ['0.50', '0.40'], diluted_eps: ['0.48', null] }) },
      2024: { income: income({ basic_eps: '0.60', diluted_eps: '0.57' }) },
    });
    const { sp_result, risk_items } = run(report, 'eps_fluctuations');
    expect(sp_result).toEqual({
      released_year: 2024,
      basic_eps: 0.6,
      basic_eps_change_rate: 20,
      diluted_eps: 0.57,
      diluted_eps_change_rate: 18.75,
      series: [
        {
          year: 2023,
          basic_eps: 0.5,
          basic_eps_change_rate: 25,
          diluted_eps: 0.48,
          diluted_eps_change_rate: null,
        },
        {
          year: 2024,
          basic_eps: 0.6,
          basic_eps_change_rate: 20,
          diluted_eps: 0.57,
          diluted_eps_change_rate: 18.75,
        },
      ],
    });
    expect(risk_items).toEqual([]);
    const small = makeReport(
      { 2023: { income: income() }, 2024: { income: income() } },
      { standard: 'small_enterprise' },
    );
    const smallOut = run(small, 'eps_fluctuations');
    expect(smallOut.risk_items).toEqual([]);
    expect(smallOut.sp_result.data_gaps).toEqual([
      {
        code: 'eps_fluctuations.not_available',
        gap: 'eps_lines',
        message: '2023—2024年按小企业会计准则编制的利润表不列示每股收益，每股收益分析的各项指标为空。',
      },
    ]);
    expect(
      moduleOf('eps_fluctuations')
        .fields.filter((f) => !f.key.endsWith('_change_rate'))
        .map((f) => f.unit),
    ).toEqual(['元', '元']);
  });
});

describe('edge cases', () => {
  it('zero revenue, operating profit and total profit give null ratios, never NaN or Infinity', () => {
    const zero = income({
      revenue: '0.00',
      operating_cost: '0.00',
      sales_expenses: '0.00',
      administrative_expenses: '0.00',
      rd_expenses: '0.00',
      taxes_and_dues: '0.00',
      operating_profit: '0.00',
      non_operating_income: '0.00',
      non_operating_expenses: '0.00',
      total_profit: '0.00',
      income_tax_expense: '0.00',
      net_profit: '0.00',
    });
    const report = makeReport({ 2023: { income: zero }, 2024: { income: zero } });
    const sp = (slug: string) => run(report, slug).sp_result;
    expect(sp('reporting_period_profit')).toMatchObject({
      gross_margin: null,
      operating_margin: null,
      net_margin: null,
    });
    expect(sp('reporting_period_expense')).toMatchObject({
      total_period_expenses: 0,
      sales_expenses_share: null,
      period_expense_ratio: null,
    });
    expect(sp('cost')).toMatchObject({
      operating_cost_share: null,
      operating_cost_change_rate: null,
      cost_revenue_growth_gap: null,
    });
    expect(sp('net_profit')).toMatchObject({ effective_tax_rate: null, net_profit_change_rate: null });
    expect(sp('gross_profit')).toMatchObject({
      total_profit: 0,
      investment_income_share: null,
      other_profit_items_share: null,
    });
    expect(sp('non_operating_income_analysis')).toMatchObject({
      non_operating_net_share: null,
      non_operating_income_to_revenue: null,
    });
    expect(sp('operating_profit')).toMatchObject({
      taxes_and_dues_effect: null,
      impairment_loss_ratio: null,
    });
    for (const module of ALL_MODULES) {
      const out = module.compute(createContext(report));
      expect(JSON.parse(JSON.stringify(out)), module.slug).toEqual(out);
      if (!['other_comprehensive_income', 'eps_fluctuations'].includes(module.slug)) {
        expect(out.risk_items, module.slug).toEqual([]);
      }
    }
  });

  it('net interest income larger than the other expenses: no shares of a non-positive total', () => {
    const report = makeReport({
      2024: {
        income: income({
          sales_expenses: '10000.00',
          administrative_expenses: '10000.00',
          rd_expenses: '0.00',
          financial_expenses: '-30000.00',
        }),
      },
    });
    expect(run(report, 'reporting_period_expense').sp_result).toMatchObject({
      total_period_expenses: -1,
      financial_expenses: -3,
      sales_expenses_share: null,
      financial_expenses_share: null,
      period_expense_ratio: -1,
    });
  });

  it('missing lines: absent expenses count as zero in the total, their shares are null', () => {
    const report = makeReport({
      2024: {
        income: { revenue: '500000.00', sales_expenses: '30000.00', administrative_expenses: '10000.00' },
      },
    });
    expect(run(report, 'reporting_period_expense').sp_result).toMatchObject({
      total_period_expenses: 4,
      sales_expenses_share: 75,
      administrative_expenses_share: 25,
      rd_expenses_share: null,
      financial_expenses_share: null,
      period_expense_ratio: 8,
    });
    expect(run(report, 'cost').sp_result).toMatchObject({ operating_cost: null, operating_cost_share: null });
    expect(run(report, 'gross_profit').sp_result).toMatchObject({
      operating_profit_excl_investment: null,
      total_profit: null,
    });
    // A report without any expense line has no total rather than a zero one.
    const bare = makeReport({ 2024: { income: { revenue: '500000.00' } } });
    expect(run(bare, 'reporting_period_expense').sp_result).toMatchObject({
      total_period_expenses: null,
      period_expense_ratio: null,
    });
  });

  it('the first submitted year is compared with its own previous column', () => {
    const report = makeReport({
      2023: {
        income: income({ revenue: ['1000000.00', '800000.00'], operating_cost: ['600000.00', '560000.00'] }),
      },
      2024: { income: income({ revenue: ['1100000.00', '999999.00'] }) },
    });
    const series = run(report, 'revenue_cost_alignment').sp_result.series as Row[];
    // 2023 against its last_year_amount: revenue +25%, cost +7.14%; gross margin 30% → 40%
    expect(series[0]).toMatchObject({
      revenue_change_rate: 25,
      operating_cost_change_rate: 7.14,
      gross_margin_change: 10,
    });
    // 2024 against the submitted 2023 statement, not the restated 999 999 column
    expect(series[1]).toMatchObject({ revenue_change_rate: 10 });
  });

  it('no cash-flow sheet: the net cash flow is null, the other trends are computed', () => {
    const report = makeReport({
      2023: { income: income(), cash_flow: { net_increase_cash: '50000.00' } },
      2024: { income: income({ total_profit: '240000.00' }) },
    });
    const { sp_result } = run(report, 'financial_performance_overview');
    expect(sp_result).toMatchObject({
      net_increase_cash: null,
      net_increase_cash_change_rate: null,
      total_profit: 24,
      total_profit_change_rate: 20,
    });
    expect((sp_result.series as Row[])[0]).toMatchObject({ net_increase_cash: 5 });
  });

  it('a loss year: total-profit shares keep adding up to 100 and the remainder shows inconsistent figures', () => {
    const report = makeReport({
      2024: {
        income: {
          operating_profit: '-80000.00',
          investment_income: '20000.00',
          non_operating_income: '0.00',
          non_operating_expenses: '10000.00',
          // −80 000 − 10 000 = −90 000; the statement says −100 000
          total_profit: '-100000.00',
        },
      },
    });
    expect(run(report, 'gross_profit').sp_result).toMatchObject({
      operating_profit_excl_investment: -10,
      operating_profit_excl_investment_share: 100,
      investment_income_share: -20,
      non_operating_net_share: 10,
      other_profit_items: -1,
      other_profit_items_share: 10,
    });
  });

  it('balance-sheet totals that do not add up leave a remainder share', () => {
    const report = makeReport({
      2024: {
        balance: {
          total_current_assets: '600000.00',
          total_noncurrent_assets: '300000.00',
          total_assets: '1000000.00',
          total_current_liabilities: '200000.00',
          total_noncurrent_liabilities: '100000.00',
          total_liabilities: '300000.00',
          total_shareholders_equity: '700000.00',
        },
      },
    });
    expect(run(report, 'reporting_period_balance_sheet').sp_result).toMatchObject({
      current_assets_share: 60,
      noncurrent_assets_share: 30,
      other_assets_share: 10,
      equity_share: 70,
      other_liabilities_equity_share: 0,
    });
  });

  it('enterprise_profile without enterprise information, and with blank or partial fields', () => {
    const bare = run(makeReport({ 2023: {}, 2024: {} }), 'enterprise_profile').sp_result;
    expect(bare).toMatchObject({
      enterprise_name: '测试企业',
      province: null,
      region: null,
      employee_count: null,
      is_vat_taxpayer: null,
      is_sme: null,
      accounting_standard_label: '企业会计准则（一般企业财务报表格式·新）',
      years: [2023, 2024],
      year_count: 2,
      cash_flow_year_count: 0,
    });
    const partial = run(
      makeReport(
        { 2024: {} },
        { info: { province: ' 江苏省 ', city: '', area: null, is_sme: 0, employee_count: ' 45 ' } },
      ),
      'enterprise_profile',
    ).sp_result;
    expect(partial).toMatchObject({
      province: '江苏省',
      city: null,
      region: '江苏省',
      is_sme: 0,
      employee_count: '45',
    });
  });

  it('a report with no statements at all: every module answers with nulls and throws nothing', () => {
    const ctx = createContext(makeReport({ 2024: {} }));
    for (const module of ALL_MODULES) {
      const { sp_result } = module.compute(ctx);
      expect(sp_result.released_year, module.slug).toBe(2024);
      if (module.kind === 'indicator') {
        expect(Object.keys(sp_result).sort(), module.slug).toEqual(
          ['released_year', 'series', ...module.fields.map((f) => f.key)].sort(),
        );
        for (const f of module.fields) expect(sp_result[f.key], `${module.slug}.${f.key}`).toBeNull();
      }
    }
  });
});

describe('catalogue metadata of these modules', () => {
  it('presentation order and sections follow the spec', () => {
    expect(OVERVIEW_MODULES.map((m) => m.slug)).toEqual([
      'enterprise_profile',
      'financial_benchmarks',
      'financial_performance_overview',
      'reporting_period_profit',
      'reporting_period_expense',
      'reporting_period_balance_sheet',
    ]);
    expect(INCOME_MODULES.map((m) => m.slug)).toEqual([
      'cost',
      'revenue_cost_alignment',
      'expense',
      'key_income_items',
      'operating_profit',
      'non_operating_income_analysis',
      'net_profit',
      'growth_quality_analysis',
      'other_comprehensive_income',
      'gross_profit',
    ]);
    for (const m of OVERVIEW_MODULES) expect(m.section).toBe('enterprise_overview');
    for (const m of INCOME_MODULES) expect(m.section).toBe('income_statement_analysis');
    expect(epsFluctuationsModule.section).toBe('comprehensive_analysis');
  });

  it('labels, documented fields and coded rules', () => {
    const codes = new Set<string>();
    for (const module of ALL_MODULES) {
      expect(module.label).toMatch(/[\u4e00-\u9fff]/);
      expect(module.description).toMatch(/[\u4e00-\u9fff]/);
      expect(module.fields.length).toBeGreaterThan(0);
      expect(new Set(module.fields.map((f) => f.key)).size).toBe(module.fields.length);
      for (const field of module.fields) {
        expect(field.label, `${module.slug}.${field.key}`).toMatch(/[\u4e00-\u9fff]/);
        expect(field.formula.length).toBeGreaterThan(0);
        expect(field.inputs.length).toBeGreaterThan(0);
      }
      for (const rule of module.riskRules) {
        expect(rule.code.startsWith(`${module.slug}.`), rule.code).toBe(true);
        expect(codes.has(rule.code), rule.code).toBe(false);
        codes.add(rule.code);
        expect(rule.tiers.length).toBeGreaterThan(0);
        expect(rule.description).toMatch(/[\u4e00-\u9fff]/);
        expect(rule.message).toMatch(/[\u4e00-\u9fff]/);
        // Rules are data: no functions leak into the catalogue.
        expect(
          Object.values(rule).some((v) => typeof v === 'function'),
          rule.code,
        ).toBe(false);
      }
    }
  });
});
