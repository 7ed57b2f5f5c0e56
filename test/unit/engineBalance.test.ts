/**
 * The balance-sheet (3.2), cash-flow (3.3) and equity / input-output (4) modules.
 *
 * Golden tests derive every expected value from the raw fixture JSON with exact BigInt rationals (test helpers),
 * independently of decimal.js and of the engine's helpers; crafted reports use amounts whose results are worked
 * out by hand in the comments. Every risk rule is triggered at least once (checked at the end of the file).
 */
import { describe, expect, it } from 'vitest';
import { LINE_ITEMS, type LineItemGroup } from '../../worker/catalogue/lineItems.ts';
import { createContext } from '../../worker/engine/context.ts';
import { num } from '../../worker/engine/decimal.ts';
import type { AnalysisModule } from '../../worker/engine/module.ts';
import { bandScore } from '../../worker/engine/modules/balance/businessInputProfitability.ts';
import {
  BALANCE_MODULES,
  CASH_FLOW_MODULES,
  COMPREHENSIVE_MODULES,
} from '../../worker/engine/modules/balance/index.ts';
import { longTermLiabilityModule } from '../../worker/engine/modules/longTermLiability.ts';
import type { AnalysisOutput, NormalisedReport, SheetType } from '../../worker/types.ts';
import {
  makeReport as buildReport,
  FIXTURES,
  int,
  type Lines,
  loadFixture,
  type Q,
  qadd,
  qcmp,
  qdiv,
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
  type YearInput,
} from '../helpers/engineFixtures.ts';

const MODULES: readonly AnalysisModule[] = [
  ...BALANCE_MODULES,
  ...CASH_FLOW_MODULES,
  ...COMPREHENSIVE_MODULES,
];
const BY_SLUG = new Map(MODULES.map((m) => [m.slug, m]));

/** Every risk code raised anywhere in this file; the last test checks each documented rule was triggered. */
const RAISED = new Set<string>();

function analyse(report: NormalisedReport, slug: string): AnalysisOutput {
  const module = BY_SLUG.get(slug);
  if (!module) throw new Error(`no module ${slug}`);
  const { sp_result, risk_items } = module.compute(createContext(report));
  for (const item of risk_items) if (item.code) RAISED.add(item.code);
  return { slug, sp_result, risk_items };
}

// expected values as nested plain data with exact rationals at the leaves

type Exp = R | number | string | Exp[] | { [key: string]: Exp };

const isQ = (v: unknown): v is Q => typeof v === 'object' && v !== null && typeof (v as Q).n === 'bigint';

function roundDeep(v: Exp): unknown {
  if (v === null || typeof v === 'number' || typeof v === 'string') return v;
  if (isQ(v)) return r2(v);
  if (Array.isArray(v)) return v.map(roundDeep);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, roundDeep(x)]));
}

type Row = Record<string, Exp>;

const gt = (x: R, t: number | string) => x !== null && qcmp(x, qn(t)) > 0;
const lt = (x: R, t: number | string) => x !== null && qcmp(x, qn(t)) < 0;
function qn(t: number | string): Q {
  const s = String(t);
  const neg = s.startsWith('-');
  const [i, f = ''] = (neg ? s.slice(1) : s).split('.');
  const n = BigInt(`${i}${f}`);
  return { n: neg ? -n : n, d: 10n ** BigInt(f.length) };
}
/** a / base × 100 over a positive base only. */
const qshare = (a: R, base: R): R => (base !== null && qsign(base) > 0 ? qpct(a, base) : null);

/** Catalogue lines of some balance-sheet groups (the catalogue is input data, not engine code). */
const group = (sheet: SheetType, groups: readonly LineItemGroup[]) =>
  LINE_ITEMS.filter((d) => d.sheet === sheet && groups.includes(d.group)).map((d) => d.key);
const labelOf = (sheet: SheetType, key: string) =>
  LINE_ITEMS.find((d) => d.sheet === sheet && d.key === key)?.nameZh ?? key;

function expectations(r: Raw) {
  const first = r.years[0]!;
  const latest = r.years.at(-1)!;
  const present = (keys: string[]) =>
    keys.filter((k) => r.years.some((y) => r.keys(y, 'balance').includes(k)));
  /** Prior-period balance: previous year's ending, or the first year's own beginning balance. */
  /** Prior-period balance: the year's own (restated) beginning balance, else the previous year's ending. */
  const pb = (y: number, k: string) => r.begin(y, k) ?? (y === first ? null : r.end(y - 1, k));
  const pcf = (y: number, k: string) => r.cfLast(y, k) ?? (y === first ? null : r.cf(y - 1, k));
  /** The engine's guarded change rate of a balance line (tiny base / sign change) and its reason. */
  const growth = (y: number, k: string) => qgrowth(r.end(y, k), pb(y, k), pb(y, 'total_assets'));
  const grate = (y: number, k: string) => growth(y, k).rate;
  /** `{ null_reasons: { [key]: reason } }` for the keys whose guarded rate is null for a reason, else `{}`. */
  const reasonsOf = (entries: [key: string, y: number, k: string][]): Row => {
    const reasons: Record<string, Exp> = {};
    for (const [key, y, k] of entries) {
      const reason = growth(y, k).reason;
      if (reason) reasons[key] = reason;
    }
    return Object.keys(reasons).length > 0 ? { null_reasons: reasons } : {};
  };

  const structure = (y: number, keys: string[], base: string, remainder: [string, string]) => {
    const b = r.end(y, base);
    const items: Exp[] = keys.map((k) => ({
      key: k,
      label: labelOf('balance', k),
      amount: qwan(r.end(y, k)),
      share: qshare(r.end(y, k), b),
    }));
    const rest = qsub(b, qsum(keys.map((k) => r.end(y, k) ?? int(0))));
    items.push({ key: remainder[0], label: remainder[1], amount: qwan(rest), share: qshare(rest, b) });
    return items;
  };
  const changes = (y: number, keys: string[]) =>
    keys.map((k) => ({
      key: k,
      label: labelOf('balance', k),
      amount: qwan(r.end(y, k)),
      previous_amount: qwan(pb(y, k)),
      change_amount: qwan(qsub(r.end(y, k), pb(y, k))),
      change_rate: grate(y, k),
      ...reasonsOf([['change_rate', y, k]]),
    }));
  const split = (y: number, base: string, parts: [string, string][], rest: string): Row => {
    const b = r.end(y, base);
    const other = qsub(b, qsum(parts.map(([, line]) => r.end(y, line))));
    const row: Row = { [base]: qwan(b), [rest]: qwan(other), [`${rest}_share`]: qshare(other, b) };
    for (const [key, line] of parts) {
      row[key] = qwan(r.end(y, line));
      row[`${key}_share`] = qshare(r.end(y, line), b);
    }
    return row;
  };
  const flows = (get: (k: string) => R, inTotal: string, outTotal: string, net: string) => {
    const inflow = get(inTotal);
    const outflow = get(outTotal);
    return { inflow, outflow, net: get(net) ?? qsub(inflow, outflow) };
  };
  const flowRow = (y: number, keys: [string, string, string]): Row => {
    const c = flows((k) => r.cf(y, k), ...keys);
    const p = flows((k) => pcf(y, k), ...keys);
    // Guarded like every change rate: scale = the prior period's revenue (materiality.ts priorScale).
    const scale = r.incLast(y, 'revenue') ?? (y === first ? null : r.inc(y - 1, 'revenue'));
    const g = {
      cash_inflow_change_rate: qgrowth(c.inflow, p.inflow, scale),
      cash_outflow_change_rate: qgrowth(c.outflow, p.outflow, scale),
      net_cash_flow_change_rate: qgrowth(c.net, p.net, scale),
    };
    const reasons = Object.fromEntries(
      Object.entries(g)
        .filter(([, v]) => v.reason !== null)
        .map(([k, v]) => [k, v.reason]),
    );
    return {
      cash_inflow: qwan(c.inflow),
      cash_outflow: qwan(c.outflow),
      net_cash_flow: qwan(c.net),
      cash_inflow_change_rate: g.cash_inflow_change_rate.rate,
      cash_outflow_change_rate: g.cash_outflow_change_rate.rate,
      net_cash_flow_change_rate: g.net_cash_flow_change_rate.rate,
      ...(Object.keys(reasons).length > 0 ? { null_reasons: reasons } : {}),
    };
  };
  const zero = int(0);
  const atLeastZero = (v: R) => (v !== null && qsign(v) > 0 ? v : zero);
  const adjustedEquity = (y: number, eq: Q): R => {
    const mixed = r.cf(y, 'dividends_interest_paid');
    const distributions =
      r.cf(y, 'dividends_paid') ??
      (mixed === null ? zero : atLeastZero(qsub(mixed, r.inc(y, 'interest_expense') ?? zero)));
    const treasury = r.end(y, 'treasury_stock');
    const buyback = treasury === null ? zero : atLeastZero(qsub(treasury, pb(y, 'treasury_stock') ?? zero));
    return qsub(qadd(qadd(eq, distributions), buyback), r.cf(y, 'capital_received') ?? zero);
  };
  const OP: [string, string, string] = ['op_cash_in_total', 'op_cash_out_total', 'net_cf_operating'];
  const netOp = (y: number) => flows((k) => r.cf(y, k), ...OP).net;
  const cashPerProfit = (y: number) => {
    const np = r.inc(y, 'net_profit');
    return np !== null && qsign(np) > 0 ? qdiv(netOp(y), np) : null;
  };

  const ASSET_DETAIL = present(group('balance', ['current_assets', 'noncurrent_assets']));
  const ASSET_ALL = present(
    group('balance', [
      'current_assets',
      'current_assets_total',
      'noncurrent_assets',
      'noncurrent_assets_total',
      'asset_total',
    ]),
  );
  const LIAB_ALL = present(
    group('balance', [
      'current_liabilities',
      'current_liabilities_total',
      'noncurrent_liabilities',
      'noncurrent_liabilities_total',
      'liability_total',
    ]),
  );
  const RI = [
    'notes_receivable',
    'accounts_receivable',
    'receivables_financing',
    'contract_assets',
    'inventory',
  ];
  const EQ4 = ['paid_in_capital', 'capital_reserve', 'surplus_reserve', 'retained_earnings'];

  // 国资委 标准值 (全行业, reference notes §3b), re-typed here: 优秀/良好/平均/较低/较差.
  const STD: Record<string, string[]> = {
    tar: ['7.7', '5.9', '3.4', '1.1', '-3.3'],
    cepm: ['11.9', '8.3', '4.6', '0.1', '-12.4'],
    ecc: ['8.1', '5.2', '1.5', '0.4', '-3.8'],
  };
  const qmul25 = (a: R): R => (a ? { n: a.n * 25n, d: a.d } : null);
  const score = (v: R, stds: string[]): R => {
    if (v === null) return null;
    const s = stds.map(qn);
    if (qcmp(v, s[0]!) >= 0) return int(100);
    for (let i = 0; i < 4; i++) {
      if (qcmp(v, s[i + 1]!) >= 0) {
        const within = qdiv(qsub(v, s[i + 1]!), qsub(s[i]!, s[i + 1]!));
        return qadd(qmul25(within), int(75 - 25 * i));
      }
    }
    return int(0);
  };

  const rows: Record<string, (y: number) => Row> = {
    overview_total_asset_structure: (y) =>
      split(
        y,
        'total_assets',
        [
          ['current_assets', 'total_current_assets'],
          ['noncurrent_assets', 'total_noncurrent_assets'],
        ],
        'other_assets',
      ),
    detailed_total_asset_structure: (y) => {
      const ri = qsum(RI.map((k) => r.end(y, k) ?? int(0)));
      return {
        total_assets: qwan(r.end(y, 'total_assets')),
        receivables_and_inventory: qwan(ri),
        receivables_and_inventory_share: qshare(ri, r.end(y, 'total_assets')),
        items: structure(y, ASSET_DETAIL, 'total_assets', ['other_assets', '其他资产（差额）']),
      };
    },
    total_assets_change_rate: (y) => ({
      total_assets: qwan(r.end(y, 'total_assets')),
      total_assets_change_amount: qwan(qsub(r.end(y, 'total_assets'), pb(y, 'total_assets'))),
      total_assets_change_rate: grate(y, 'total_assets'),
      items: changes(y, ASSET_ALL),
    }),
    total_liabilities_change_rate: (y) => ({
      total_liabilities: qwan(r.end(y, 'total_liabilities')),
      total_liabilities_change_amount: qwan(qsub(r.end(y, 'total_liabilities'), pb(y, 'total_liabilities'))),
      total_liabilities_change_rate: grate(y, 'total_liabilities'),
      total_assets_change_rate: grate(y, 'total_assets'),
      short_term_borrowings_change_rate: grate(y, 'short_term_borrowings'),
      items: changes(y, LIAB_ALL),
    }),
    liability_structure_overview: (y) =>
      split(
        y,
        'total_liabilities',
        [
          ['current_liabilities', 'total_current_liabilities'],
          ['noncurrent_liabilities', 'total_noncurrent_liabilities'],
        ],
        'other_liabilities',
      ),
    current_liabilities_structure: (y) => ({
      total_current_liabilities: qwan(r.end(y, 'total_current_liabilities')),
      items: structure(y, present(group('balance', ['current_liabilities'])), 'total_current_liabilities', [
        'other_current_liability_items',
        '其他流动负债项目（差额）',
      ]),
    }),
    noncurrent_liabilities_structure: (y) => ({
      total_noncurrent_liabilities: qwan(r.end(y, 'total_noncurrent_liabilities')),
      items: structure(
        y,
        present(group('balance', ['noncurrent_liabilities'])),
        'total_noncurrent_liabilities',
        ['other_noncurrent_liability_items', '其他非流动负债项目（差额）'],
      ),
    }),
    shareholder_equity_change_rate: (y) => {
      const row: Row = {};
      for (const k of [...EQ4, 'total_shareholders_equity']) {
        row[k] = qwan(r.end(y, k));
        row[`${k}_change_amount`] = qwan(qsub(r.end(y, k), pb(y, k)));
        row[`${k}_change_rate`] = grate(y, k);
      }
      return {
        ...row,
        ...reasonsOf(
          [...EQ4, 'total_shareholders_equity'].map((k): [string, number, string] => [
            `${k}_change_rate`,
            y,
            k,
          ]),
        ),
      };
    },
    shareholder_equity_structure: (y) => {
      const eq = r.end(y, 'total_shareholders_equity');
      const other = qsub(eq, qsum(EQ4.map((k) => r.end(y, k) ?? int(0))));
      const row: Row = {
        total_shareholders_equity: qwan(eq),
        other_equity: qwan(other),
        other_equity_share: qshare(other, eq),
      };
      for (const k of EQ4) {
        row[k] = qwan(r.end(y, k));
        row[`${k}_share`] = qshare(r.end(y, k), eq);
      }
      return row;
    },
    operating_activities: (y) => ({
      ...flowRow(y, OP),
      sales_cash: qwan(r.cf(y, 'sales_cash')),
      purchase_cash: qwan(r.cf(y, 'purchase_cash')),
      salary_paid: qwan(r.cf(y, 'salary_paid')),
      tax_paid: qwan(r.cf(y, 'tax_paid')),
      sales_cash_to_revenue: qpct(r.cf(y, 'sales_cash'), r.inc(y, 'revenue')),
      net_cash_to_net_profit: cashPerProfit(y),
    }),
    investing_activities: (y) => ({
      ...flowRow(y, ['invest_cash_in_total', 'invest_cash_out_total', 'net_cf_investing']),
      capex: qwan(r.cf(y, 'asset_purchase')),
      capex_to_revenue: qpct(r.cf(y, 'asset_purchase'), r.inc(y, 'revenue')),
    }),
    financing_activities: (y) => ({
      ...flowRow(y, ['finance_cash_in_total', 'finance_cash_out_total', 'net_cf_financing']),
      borrowings_received: qwan(r.cf(y, 'borrowings_received')),
      debt_repayment: qwan(r.cf(y, 'debt_repayment')),
      net_borrowing: qwan(qsub(r.cf(y, 'borrowings_received'), r.cf(y, 'debt_repayment'))),
      net_operating_cash_flow: qwan(netOp(y)),
    }),
    shareholder_equity: (y) => {
      const eq = r.end(y, 'total_shareholders_equity');
      const beginEq = r.begin(y, 'total_shareholders_equity');
      return {
        equity_ratio: qpct(eq, r.end(y, 'total_assets')),
        long_term_debt_to_equity_ratio: qpct(r.end(y, 'total_noncurrent_liabilities'), eq),
        retained_earnings_growth_rate: grate(y, 'retained_earnings'),
        ...reasonsOf([['retained_earnings_growth_rate', y, 'retained_earnings']]),
        // 客观增减因素: + distributions (dividends_paid, else dividends_interest_paid − interest_expense, ≥ 0)
        // + the rise of treasury stock − capital paid in; a missing line counts as 0.
        capital_preservation_ratio:
          beginEq !== null && qsign(beginEq) > 0 && eq !== null ? qpct(adjustedEquity(y, eq), beginEq) : null,
        total_shareholders_equity: qwan(eq),
      };
    },
    business_input_profitability: (y) => {
      const tp = r.inc(y, 'total_profit');
      const tar = qpct(qadd(tp, r.inc(y, 'interest_expense') ?? int(0)), r.avg(y, 'total_assets'));
      const costs = qsum([
        r.inc(y, 'operating_cost'),
        ...[
          'taxes_and_dues',
          'sales_expenses',
          'administrative_expenses',
          'rd_expenses',
          'financial_expenses',
        ].map((k) => r.inc(y, k) ?? int(0)),
      ]);
      const cepm = qpct(tp, costs);
      const ecc = cashPerProfit(y);
      const scores = [score(tar, STD.tar!), score(cepm, STD.cepm!), score(ecc, STD.ecc!)];
      const valid = scores.filter((s): s is Q => s !== null);
      return {
        total_asset_return: tar,
        cost_expense_profit_margin: cepm,
        // Every fixture's enterprise_info says 320 employees; the headcount is used for the latest year only.
        revenue_per_employee: y === latest ? qdiv(qwan(r.inc(y, 'revenue')), int(320)) : null,
        earnings_cash_coverage: ecc,
        total_asset_return_score: scores[0]!,
        cost_expense_profit_margin_score: scores[1]!,
        earnings_cash_coverage_score: scores[2]!,
        overall_score: valid.length === 0 ? null : qdiv(qsum(valid), int(valid.length)),
      };
    },
  };

  /** Risk codes of the latest year from the thresholds of the brief, in the module's order. */
  const risks: Record<string, () => string[]> = {
    overview_total_asset_structure: () => [],
    detailed_total_asset_structure: () => {
      const ta = r.end(latest, 'total_assets');
      const codes = ASSET_DETAIL.filter(
        (k) => k !== 'cash_and_equivalents' && gt(qshare(r.end(latest, k), ta), 40),
      ).map(() => 'detailed_total_asset_structure.single_asset_concentration');
      const ri = qsum(RI.map((k) => r.end(latest, k) ?? int(0)));
      if (gt(qshare(ri, ta), 50)) codes.push('detailed_total_asset_structure.receivables_inventory_high');
      return codes;
    },
    total_assets_change_rate: () => {
      const codes: string[] = [];
      if (lt(grate(latest, 'total_assets'), -20)) {
        codes.push('total_assets_change_rate.total_assets_decline');
      }
      for (const k of ASSET_DETAIL) {
        const rate = grate(latest, k);
        if (rate === null) continue;
        const abs = qsign(rate) < 0 ? qsub(int(0), rate) : rate;
        const major =
          gt(qshare(r.end(latest, k), r.end(latest, 'total_assets')), 10) ||
          gt(qshare(pb(latest, k), pb(latest, 'total_assets')), 10);
        if (gt(abs, 50) && major) codes.push('total_assets_change_rate.major_line_change');
      }
      return codes;
    },
    total_liabilities_change_rate: () => {
      const codes: string[] = [];
      const l = grate(latest, 'total_liabilities');
      const a = grate(latest, 'total_assets');
      if (gt(l, 30) && lt(a, 10)) codes.push('total_liabilities_change_rate.liabilities_outpace_assets');
      const material = !lt(qshare(r.end(latest, 'short_term_borrowings'), r.end(latest, 'total_assets')), 5);
      if (material && gt(grate(latest, 'short_term_borrowings'), 50)) {
        codes.push('total_liabilities_change_rate.short_term_borrowings_surge');
      }
      return codes;
    },
    liability_structure_overview: () =>
      gt(qshare(r.end(latest, 'total_current_liabilities'), r.end(latest, 'total_liabilities')), 90)
        ? ['liability_structure_overview.current_share_high']
        : [],
    current_liabilities_structure: () => [],
    noncurrent_liabilities_structure: () => [],
    // A fall in equity is judged once, by capital preservation; negative equity once, by long_term_liability.
    shareholder_equity_change_rate: () =>
      lt(r.end(latest, 'retained_earnings'), 0)
        ? ['shareholder_equity_change_rate.retained_earnings_negative']
        : [],
    shareholder_equity_structure: () => [],
    operating_activities: () => {
      const codes: string[] = [];
      if (r.years.some((y) => !r.hasSheet(y, 'cash_flow')))
        codes.push('operating_activities.cash_flow_missing');
      if (lt(netOp(latest), 0)) codes.push('operating_activities.net_operating_cash_negative');
      if (lt(cashPerProfit(latest), '0.5')) codes.push('operating_activities.net_cash_to_net_profit_low');
      return codes;
    },
    investing_activities: () =>
      r.years.some((y) => !r.hasSheet(y, 'cash_flow')) ? ['investing_activities.cash_flow_missing'] : [],
    financing_activities: () => {
      const codes: string[] = [];
      if (r.years.some((y) => !r.hasSheet(y, 'cash_flow')))
        codes.push('financing_activities.cash_flow_missing');
      if (gt(r.cf(latest, 'net_cf_financing'), 0) && lt(netOp(latest), 0)) {
        codes.push('financing_activities.financing_funds_operations');
      }
      return codes;
    },
    // The equity ratio is 100 − the debt ratio: judged once, by long_term_liability.
    shareholder_equity: () => {
      const eq = r.end(latest, 'total_shareholders_equity');
      const beginEq = r.begin(latest, 'total_shareholders_equity');
      return eq !== null && lt(qpct(adjustedEquity(latest, eq), beginEq), 100)
        ? ['shareholder_equity.capital_preservation_low']
        : [];
    },
    business_input_profitability: () => [],
  };

  return { rows, risks, latest };
}

describe('the module lists', () => {
  it('export the slugs in presentation order, in their sections', () => {
    expect(BALANCE_MODULES.map((m) => m.slug)).toEqual([
      'overview_total_asset_structure',
      'detailed_total_asset_structure',
      'total_assets_change_rate',
      'total_liabilities_change_rate',
      'liability_structure_overview',
      'current_liabilities_structure',
      'noncurrent_liabilities_structure',
      'shareholder_equity_change_rate',
      'shareholder_equity_structure',
    ]);
    expect(CASH_FLOW_MODULES.map((m) => m.slug)).toEqual([
      'operating_activities',
      'investing_activities',
      'financing_activities',
    ]);
    expect(COMPREHENSIVE_MODULES.map((m) => m.slug)).toEqual([
      'shareholder_equity',
      'business_input_profitability',
    ]);
    expect(new Set(BALANCE_MODULES.map((m) => m.section))).toEqual(new Set(['balance_sheet_analysis']));
    expect(new Set(CASH_FLOW_MODULES.map((m) => m.section))).toEqual(new Set(['cash_flow_analysis']));
    expect(new Set(COMPREHENSIVE_MODULES.map((m) => m.section))).toEqual(new Set(['comprehensive_analysis']));
  });

  it.each(MODULES.map((m) => [m.slug, m] as const))(
    '%s documents its labels, fields and rules',
    (slug, m) => {
      const han = /[\u4e00-\u9fff]/;
      expect(m.label).toMatch(han);
      expect(m.description).toMatch(han);
      expect(m.kind).toBe('indicator');
      for (const f of m.fields) {
        expect(f.label, f.key).toMatch(han);
        expect(f.formula.length, f.key).toBeGreaterThan(0);
      }
      const codes = m.riskRules.map((rule) => rule.code);
      expect(new Set(codes).size).toBe(codes.length);
      for (const rule of m.riskRules) {
        expect(rule.code.startsWith(`${slug}.`), rule.code).toBe(true);
        expect(rule.description).toMatch(han);
        expect(rule.tiers.length).toBeGreaterThan(0);
      }
      // Every sp_result key of a full fixture is documented (list entries as items[].<key>).
      const sp = m.compute(createContext(toReport(loadFixture('general_new-3y')))).sp_result;
      const documented = new Set(m.fields.map((f) => f.key));
      for (const key of Object.keys(sp)) {
        // null_reasons: contract 2, documented once in the catalogue's null_reasons.
        if (key === 'released_year' || key === 'series' || key === 'null_reasons') continue;
        if (key === 'items') {
          const item = (sp.items as Record<string, unknown>[])[0]!;
          for (const k of Object.keys(item)) {
            if (k === 'key' || k === 'label') continue;
            expect(documented.has(`items[].${k}`), `items[].${k}`).toBe(true);
          }
          continue;
        }
        expect(documented.has(key), key).toBe(true);
      }
    },
  );
});

describe.each(FIXTURES)('golden values: %s', (name) => {
  const raw = loadFixture(name);
  const r = rawAccess(raw);
  const report = toReport(raw);
  const { rows, risks, latest } = expectations(r);

  it.each(MODULES.map((m) => m.slug))('%s', (slug) => {
    const row = rows[slug]!;
    const out = analyse(report, slug);
    const { data_gaps: _gaps, ...values } = out.sp_result;
    expect(values).toEqual({
      released_year: latest,
      ...(roundDeep(row(latest)) as object),
      series: r.years.map((y) => ({ year: y, ...(roundDeep(row(y)) as object) })),
    });
    expect(out.risk_items.map((i) => i.code)).toEqual(risks[slug]!());
    for (const item of out.risk_items) {
      expect(item.message).toContain(`${latest}年`);
      expect(['info', 'warning', 'danger']).toContain(item.level);
    }
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });

  it('structure shares add up to 100 (within rounding) wherever the base is positive', () => {
    const sums: number[] = [];
    for (const slug of [
      'detailed_total_asset_structure',
      'current_liabilities_structure',
      'noncurrent_liabilities_structure',
    ]) {
      for (const entry of analyse(report, slug).sp_result.series as { items: { share: number | null }[] }[]) {
        if (entry.items.some((i) => i.share === null)) continue;
        sums.push(entry.items.reduce((s, i) => s + (i.share ?? 0), 0));
      }
    }
    for (const [slug, keys] of [
      [
        'overview_total_asset_structure',
        ['current_assets_share', 'noncurrent_assets_share', 'other_assets_share'],
      ],
      [
        'liability_structure_overview',
        ['current_liabilities_share', 'noncurrent_liabilities_share', 'other_liabilities_share'],
      ],
      [
        'shareholder_equity_structure',
        [
          'paid_in_capital_share',
          'capital_reserve_share',
          'surplus_reserve_share',
          'retained_earnings_share',
          'other_equity_share',
        ],
      ],
    ] as const) {
      for (const entry of analyse(report, slug).sp_result.series as Record<string, number>[]) {
        sums.push(keys.reduce((s, k) => s + entry[k]!, 0));
      }
    }
    expect(sums.length).toBeGreaterThan(0);
    for (const s of sums) expect(Math.abs(s - 100)).toBeLessThan(0.1);
  });
});

describe('hand-checked spot values (general_new-3y, 2024)', () => {
  const report = toReport(loadFixture('general_new-3y'));
  const sp = (slug: string) => analyse(report, slug).sp_result;

  it('matches figures read off the fixture with a desk calculator', () => {
    // total_current_assets 82 180 285.70 / total_assets 136 065 751.73 = 60.397 %
    expect(sp('overview_total_asset_structure')).toMatchObject({
      total_assets: 13606.58,
      current_assets_share: 60.4,
    });
    // (136 065 751.73 − 126 285 687.36) / 126 285 687.36 = 7.744 %
    expect(sp('total_assets_change_rate').total_assets_change_rate).toBe(7.74);
    // 90 283 405.82 / 136 065 751.73 = 66.35 %; capital preservation adds back the distributions
    // (4 247 712.49 paid − 966 721.57 interest): 93 564 396.74 / 76 658 064.13 (beginning) = 122.05 %
    expect(sp('shareholder_equity')).toMatchObject({
      equity_ratio: 66.35,
      capital_preservation_ratio: 122.05,
    });
    // net operating cash 17 729 919.12 / net profit 16 906 332.61 = 1.0487 → 1.05
    expect(sp('operating_activities').net_cash_to_net_profit).toBe(1.05);
    // revenue 89 257 734.67 / 10 000 / 320 = 27.893 万元/人
    expect(sp('business_input_profitability').revenue_per_employee).toBe(27.89);
  });
});

// crafted reports

/** The shared builder, with enterprise_info reduced to a head count (what business_input_profitability reads). */
function makeReport(
  years: Record<number, YearInput>,
  options: { standard?: NormalisedReport['standard']; employees?: string | null } = {},
): NormalisedReport {
  return buildReport(years, {
    standard: options.standard,
    info: options.employees === undefined ? null : { employee_count: options.employees },
  });
}

const codes = (out: AnalysisOutput) => out.risk_items.map((i) => `${i.code}:${i.level}`);

/**
 * A shrinking, over-borrowed year. 2023 → 2024 (yuan):
 * assets 1 300 000 → 1 000 000 (−23.08 %): cash 300 000 → 30 000, receivables 300 000 → 300 000,
 * inventory 500 000 → 250 000, fixed assets 200 000 → 410 000; 2024 has 10 000 of current assets not itemised.
 * liabilities 300 000 → 450 000 (+50 %), all current; short-term borrowings 100 000 → 200 000 (+100 %).
 * equity 1 000 000 → 550 000 (−45 %) with retained earnings 350 000 → −100 000.
 */
const shrinking = makeReport({
  2023: {
    balance: {
      cash_and_equivalents: '300000.00',
      accounts_receivable: ['300000.00', '250000.00'],
      inventory: ['500000.00', '400000.00'],
      total_current_assets: ['1100000.00', '900000.00'],
      fixed_assets_net: ['200000.00', '100000.00'],
      total_noncurrent_assets: ['200000.00', '100000.00'],
      total_assets: ['1300000.00', '1000000.00'],
      short_term_borrowings: ['100000.00', '100000.00'],
      accounts_payable: ['200000.00', '100000.00'],
      total_current_liabilities: ['300000.00', '200000.00'],
      total_noncurrent_liabilities: ['0.00', '0.00'],
      total_liabilities: ['300000.00', '200000.00'],
      paid_in_capital: ['500000.00', '500000.00'],
      capital_reserve: ['100000.00', '100000.00'],
      surplus_reserve: ['50000.00', '50000.00'],
      retained_earnings: ['350000.00', '150000.00'],
      total_shareholders_equity: ['1000000.00', '800000.00'],
    },
  },
  2024: {
    balance: {
      cash_and_equivalents: ['30000.00', '300000.00'],
      accounts_receivable: ['300000.00', '300000.00'],
      inventory: ['250000.00', '500000.00'],
      total_current_assets: ['590000.00', '1100000.00'],
      fixed_assets_net: ['410000.00', '200000.00'],
      total_noncurrent_assets: ['410000.00', '200000.00'],
      total_assets: ['1000000.00', '1300000.00'],
      short_term_borrowings: ['200000.00', '100000.00'],
      accounts_payable: ['250000.00', '200000.00'],
      total_current_liabilities: ['450000.00', '300000.00'],
      total_noncurrent_liabilities: ['0.00', '0.00'],
      total_liabilities: ['450000.00', '300000.00'],
      paid_in_capital: ['500000.00', '500000.00'],
      capital_reserve: ['100000.00', '100000.00'],
      surplus_reserve: ['50000.00', '50000.00'],
      retained_earnings: ['-100000.00', '350000.00'],
      total_shareholders_equity: ['550000.00', '1000000.00'],
    },
  },
});

describe('balance-sheet risk rules on a crafted shrinking year', () => {
  it('asset structure: a 41 % fixed-asset line (info) and 55 % receivables + inventory (warning)', () => {
    const out = analyse(shrinking, 'detailed_total_asset_structure');
    // shares of 1 000 000: 3, 30, 25, 41 and the unitemised 10 000 = 1
    expect(out.sp_result).toMatchObject({
      total_assets: 100,
      receivables_and_inventory: 55,
      receivables_and_inventory_share: 55,
      items: [
        { key: 'cash_and_equivalents', label: '货币资金', amount: 3, share: 3 },
        { key: 'accounts_receivable', label: '应收账款', amount: 30, share: 30 },
        { key: 'inventory', label: '存货', amount: 25, share: 25 },
        { key: 'fixed_assets_net', label: '固定资产', amount: 41, share: 41 },
        { key: 'other_assets', label: '其他资产（差额）', amount: 1, share: 1 },
      ],
    });
    expect(out.risk_items).toEqual([
      {
        level: 'info',
        code: 'detailed_total_asset_structure.single_asset_concentration',
        message:
          '2024年末固定资产为41.00万元，占资产总计的41.00%，高于40%，资产集中于单一项目，需关注该项资产的质量与变现能力。',
      },
      {
        level: 'warning',
        code: 'detailed_total_asset_structure.receivables_inventory_high',
        message:
          '2024年末应收款项（含应收票据、应收款项融资、合同资产）与存货合计为55.00万元，占资产总计的55.00%，高于50%，资金大量被客户和库存占用，需关注回款与存货积压风险。',
      },
    ]);
  });

  it('cash alone above 40 % is not a concentration', () => {
    const cashRich = makeReport({
      2024: {
        balance: { cash_and_equivalents: '600000.00', inventory: '400000.00', total_assets: '1000000.00' },
      },
    });
    expect(codes(analyse(cashRich, 'detailed_total_asset_structure'))).toEqual([]);
  });

  it('asset changes: total assets −23.08 % (warning); cash −90 % and fixed assets +105 % (info)', () => {
    const out = analyse(shrinking, 'total_assets_change_rate');
    expect(out.sp_result).toMatchObject({
      total_assets: 100,
      total_assets_change_amount: -30,
      total_assets_change_rate: -23.08,
    });
    // 2023 is the first year: compared with its own beginning balances; cash has none
    expect((out.sp_result.series as { items: unknown[] }[])[0]!.items).toEqual([
      {
        key: 'cash_and_equivalents',
        label: '货币资金',
        amount: 30,
        previous_amount: null,
        change_amount: null,
        change_rate: null,
      },
      {
        key: 'accounts_receivable',
        label: '应收账款',
        amount: 30,
        previous_amount: 25,
        change_amount: 5,
        change_rate: 20,
      },
      {
        key: 'inventory',
        label: '存货',
        amount: 50,
        previous_amount: 40,
        change_amount: 10,
        change_rate: 25,
      },
      {
        key: 'total_current_assets',
        label: '流动资产合计',
        amount: 110,
        previous_amount: 90,
        change_amount: 20,
        change_rate: 22.22,
      },
      {
        key: 'fixed_assets_net',
        label: '固定资产',
        amount: 20,
        previous_amount: 10,
        change_amount: 10,
        change_rate: 100,
      },
      {
        key: 'total_noncurrent_assets',
        label: '非流动资产合计',
        amount: 20,
        previous_amount: 10,
        change_amount: 10,
        change_rate: 100,
      },
      {
        key: 'total_assets',
        label: '资产总计',
        amount: 130,
        previous_amount: 100,
        change_amount: 30,
        change_rate: 30,
      },
    ]);
    expect(out.risk_items).toEqual([
      {
        level: 'warning',
        code: 'total_assets_change_rate.total_assets_decline',
        message:
          '2024年末资产总计为100.00万元，较上年末的130.00万元下降23.08%，降幅超过20%，资产规模明显收缩，需关注资产处置、亏损或偿债导致的缩表。',
      },
      {
        level: 'info',
        code: 'total_assets_change_rate.major_line_change',
        message:
          '2024年末货币资金为3.00万元，较上年末的30.00万元下降90.00%，变动幅度超过50%（该项目占资产总计超过10%），需关注变动原因。',
      },
      {
        level: 'info',
        code: 'total_assets_change_rate.major_line_change',
        message:
          '2024年末固定资产为41.00万元，较上年末的20.00万元增长105.00%，变动幅度超过50%（该项目占资产总计超过10%），需关注变动原因。',
      },
    ]);
    // inventory fell exactly 50 %: not more than 50 %, so not raised
  });

  it('liability changes: +50 % against assets −23 % (warning); short-term borrowings +100 % (warning)', () => {
    const out = analyse(shrinking, 'total_liabilities_change_rate');
    expect(out.sp_result).toMatchObject({
      total_liabilities: 45,
      total_liabilities_change_amount: 15,
      total_liabilities_change_rate: 50,
      total_assets_change_rate: -23.08,
      short_term_borrowings_change_rate: 100,
    });
    expect(out.risk_items).toEqual([
      {
        level: 'warning',
        code: 'total_liabilities_change_rate.liabilities_outpace_assets',
        message:
          '2024年末负债合计为45.00万元，较上年末增长50.00%，超过30%，而资产总计增长率仅为-23.08%（低于10%），新增负债未形成相应资产，需关注举债用途与偿债压力。',
      },
      {
        level: 'warning',
        code: 'total_liabilities_change_rate.short_term_borrowings_surge',
        message:
          '2024年末短期借款为20.00万元，较上年末的10.00万元增长100.00%，增幅超过50%，短期偿债与续贷压力上升。',
      },
    ]);
  });

  it('liability structure: 100 % current (info); zero non-current liabilities give null shares', () => {
    const overview = analyse(shrinking, 'liability_structure_overview');
    expect(overview.sp_result).toMatchObject({
      current_liabilities: 45,
      noncurrent_liabilities: 0,
      other_liabilities: 0,
      current_liabilities_share: 100,
      noncurrent_liabilities_share: 0,
      other_liabilities_share: 0,
    });
    expect(overview.risk_items).toEqual([
      {
        level: 'info',
        code: 'liability_structure_overview.current_share_high',
        message:
          '2024年末流动负债占负债合计的比重为100.00%，高于90%，债务几乎全部为一年内到期的流动负债，需关注短期偿付与续借压力。',
      },
    ]);
    const noncurrent = analyse(shrinking, 'noncurrent_liabilities_structure');
    expect(noncurrent.sp_result).toEqual({
      released_year: 2024,
      total_noncurrent_liabilities: 0,
      items: [
        {
          key: 'other_noncurrent_liability_items',
          label: '其他非流动负债项目（差额）',
          amount: 0,
          share: null,
        },
      ],
      series: [
        {
          year: 2023,
          total_noncurrent_liabilities: 0,
          items: [
            {
              key: 'other_noncurrent_liability_items',
              label: '其他非流动负债项目（差额）',
              amount: 0,
              share: null,
            },
          ],
        },
        {
          year: 2024,
          total_noncurrent_liabilities: 0,
          items: [
            {
              key: 'other_noncurrent_liability_items',
              label: '其他非流动负债项目（差额）',
              amount: 0,
              share: null,
            },
          ],
        },
      ],
    });
    expect(noncurrent.risk_items).toEqual([]);
    // 200 000 / 450 000 = 44.44 %, 250 000 / 450 000 = 55.56 %
    expect(analyse(shrinking, 'current_liabilities_structure').sp_result.items).toEqual([
      { key: 'short_term_borrowings', label: '短期借款', amount: 20, share: 44.44 },
      { key: 'accounts_payable', label: '应付账款', amount: 25, share: 55.56 },
      { key: 'other_current_liability_items', label: '其他流动负债项目（差额）', amount: 0, share: 0 },
    ]);
  });

  it('equity changes: total −45 % (no risk of its own: capital preservation judges it) and negative retained earnings (warning)', () => {
    const out = analyse(shrinking, 'shareholder_equity_change_rate');
    expect(out.sp_result).toMatchObject({
      retained_earnings: -10,
      retained_earnings_change_amount: -45,
      // (−100 000 − 350 000) / 350 000 = −128.57 %
      // retained earnings turned negative: the sign changed, so no percentage (n.m.)
      retained_earnings_change_rate: null,
      null_reasons: { retained_earnings_change_rate: 'sign_change' },
      total_shareholders_equity_change_rate: -45,
      paid_in_capital_change_rate: 0,
    });
    expect(out.risk_items).toEqual([
      {
        level: 'warning',
        code: 'shareholder_equity_change_rate.retained_earnings_negative',
        message: '2024年末未分配利润为-10.00万元，为负数，企业存在累计未弥补亏损。',
      },
    ]);
  });

  it('equity analysis: capital preservation 55 % (warning), equity ratio 55 % (no risk)', () => {
    const out = analyse(shrinking, 'shareholder_equity');
    // 550 000 / 1 000 000; long-term debt 0 / 550 000 = 0; retained earnings −128.57 %
    expect(out.sp_result).toMatchObject({
      equity_ratio: 55,
      long_term_debt_to_equity_ratio: 0,
      retained_earnings_growth_rate: null,
      null_reasons: { retained_earnings_growth_rate: 'sign_change' },
      capital_preservation_ratio: 55,
      total_shareholders_equity: 55,
    });
    expect(out.risk_items).toEqual([
      {
        level: 'warning',
        code: 'shareholder_equity.capital_preservation_low',
        message:
          '2024年资本保值增值率（加回对所有者的分配与回购、扣除吸收投资）为55.00%，低于100%，所有者权益未能保值。',
      },
    ]);
  });
});

describe('negative and thin equity', () => {
  const withEquity = (equity: string, retained: string) =>
    makeReport({
      2023: {
        balance: { total_assets: '1000000.00', total_shareholders_equity: ['500000.00', '500000.00'] },
      },
      2024: {
        balance: {
          total_assets: '1000000.00',
          total_noncurrent_liabilities: '300000.00',
          paid_in_capital: '500000.00',
          retained_earnings: retained,
          total_shareholders_equity: [equity, '500000.00'],
        },
      },
    });

  it('negative equity: structure shares are null; the danger is raised once (long_term_liability), not here', () => {
    const report = withEquity('-200000.00', '-700000.00');
    const structure = analyse(report, 'shareholder_equity_structure');
    expect(structure.sp_result).toMatchObject({
      paid_in_capital: 50,
      paid_in_capital_share: null,
      capital_reserve: null,
      capital_reserve_share: null,
      retained_earnings: -70,
      retained_earnings_share: null,
      other_equity: 0,
      other_equity_share: null,
      total_shareholders_equity: -20,
    });
    expect(structure.risk_items).toEqual([]);
    expect(longTermLiabilityModule.compute(createContext(report)).risk_items.map((i) => i.code)).toContain(
      'long_term_liability.negative_equity',
    );
    // −200 000 / 1 000 000 = −20 %; 300 000 / −200 000 = −150 %; −200 000 / 500 000 = −40 %
    const equity = analyse(report, 'shareholder_equity');
    expect(equity.sp_result).toMatchObject({
      equity_ratio: -20,
      long_term_debt_to_equity_ratio: -150,
      capital_preservation_ratio: -40,
    });
    // The equity ratio is 100 − the debt ratio: no risk of its own (long_term_liability judges the debt ratio).
    expect(codes(equity)).toEqual(['shareholder_equity.capital_preservation_low:warning']);
  });

  it('equity ratio 20 %: no risk of its own; a retained-earnings loss shrinking counts as growth', () => {
    const report = withEquity('200000.00', '-300000.00');
    const equity = analyse(report, 'shareholder_equity');
    expect(codes(equity)).toEqual(['shareholder_equity.capital_preservation_low:warning']);
    // the 2023 statement has no retained earnings line → no growth rate
    expect(equity.sp_result.retained_earnings_growth_rate).toBeNull();
    const improving = makeReport({
      2023: { balance: { retained_earnings: '-400000.00' } },
      2024: { balance: { retained_earnings: '-300000.00' } },
    });
    // (−300 000 − (−400 000)) / |−400 000| = +25 %
    expect(analyse(improving, 'shareholder_equity').sp_result.retained_earnings_growth_rate).toBe(25);
  });

  it('zero equity gives null shares and ratios, without a danger item', () => {
    const report = withEquity('0.00', '-500000.00');
    const structure = analyse(report, 'shareholder_equity_structure');
    expect(structure.sp_result).toMatchObject({ paid_in_capital_share: null, other_equity_share: null });
    expect(structure.risk_items).toEqual([]);
    expect(analyse(report, 'shareholder_equity').sp_result).toMatchObject({
      equity_ratio: 0,
      long_term_debt_to_equity_ratio: null,
      capital_preservation_ratio: 0,
    });
  });

  it('capital preservation needs a positive beginning equity of the same statement', () => {
    const report = makeReport({
      2023: { balance: { total_shareholders_equity: '100.00' } },
      2024: { balance: { total_shareholders_equity: ['100.00', '-50.00'] } },
    });
    expect(analyse(report, 'shareholder_equity').sp_result.series).toMatchObject([
      { year: 2023, capital_preservation_ratio: null },
      { year: 2024, capital_preservation_ratio: null },
    ]);
  });
});

describe('missing lines, zero bases and partial statements', () => {
  it('a line missing in one year is null there and falls into the remainder', () => {
    const report = makeReport({
      2023: { balance: { cash_and_equivalents: '100.00', goodwill: '300.00', total_assets: '400.00' } },
      2024: { balance: { cash_and_equivalents: '100.00', total_assets: '400.00' } },
    });
    const sp = analyse(report, 'detailed_total_asset_structure').sp_result;
    expect(sp.items).toEqual([
      { key: 'cash_and_equivalents', label: '货币资金', amount: 0.01, share: 25 },
      { key: 'goodwill', label: '商誉', amount: null, share: null },
      { key: 'other_assets', label: '其他资产（差额）', amount: 0.03, share: 75 },
    ]);
    expect(sp).toMatchObject({ receivables_and_inventory: null, receivables_and_inventory_share: null });
    const changes = analyse(report, 'total_assets_change_rate').sp_result.items as { key: string }[];
    expect(changes.find((i) => i.key === 'goodwill')).toEqual({
      key: 'goodwill',
      label: '商誉',
      amount: null,
      previous_amount: 0.03,
      change_amount: null,
      change_rate: null,
    });
  });

  it('zero totals give null shares and rates, never NaN or Infinity', () => {
    const zero = {
      total_current_assets: ['0.00', '0.00'],
      total_noncurrent_assets: ['0.00', '0.00'],
      total_assets: ['0.00', '0.00'],
      total_liabilities: ['0.00', '0.00'],
      total_current_liabilities: ['0.00', '0.00'],
      total_noncurrent_liabilities: ['0.00', '0.00'],
      total_shareholders_equity: ['0.00', '0.00'],
      retained_earnings: ['0.00', '0.00'],
      inventory: ['0.00', '0.00'],
    } satisfies Lines;
    const report = makeReport({
      2023: {
        balance: zero,
        income: { revenue: '0.00', net_profit: '0.00', total_profit: '0.00', operating_cost: '0.00' },
      },
      2024: {
        balance: zero,
        income: { revenue: '0.00', net_profit: '0.00', total_profit: '0.00', operating_cost: '0.00' },
      },
    });
    for (const m of MODULES) {
      const out = analyse(report, m.slug);
      const text = JSON.stringify(out);
      expect(text).not.toMatch(/NaN|Infinity/);
      expect(JSON.parse(text)).toEqual(out);
    }
    expect(analyse(report, 'overview_total_asset_structure').sp_result).toMatchObject({
      current_assets: 0,
      current_assets_share: null,
      other_assets: 0,
      other_assets_share: null,
    });
    expect(analyse(report, 'total_assets_change_rate').sp_result).toMatchObject({
      total_assets_change_amount: 0,
      total_assets_change_rate: null,
    });
    expect(analyse(report, 'shareholder_equity').sp_result).toMatchObject({
      equity_ratio: null,
      retained_earnings_growth_rate: null,
      capital_preservation_ratio: null,
    });
    expect(analyse(report, 'business_input_profitability').sp_result).toMatchObject({
      total_asset_return: null,
      cost_expense_profit_margin: null,
      overall_score: null,
    });
  });

  it('a missing non-current subtotal makes the overview remainder null rather than posing as “other”', () => {
    const report = makeReport({
      2024: { balance: { total_current_assets: '600.00', total_assets: '1000.00' } },
    });
    expect(analyse(report, 'overview_total_asset_structure').sp_result).toMatchObject({
      current_assets_share: 60,
      noncurrent_assets: null,
      noncurrent_assets_share: null,
      other_assets: null,
      other_assets_share: null,
    });
  });

  it('a year without a balance sheet still has its series entry, all null', () => {
    const report = makeReport({
      2023: {},
      2024: { balance: { total_current_liabilities: '100.00', short_term_borrowings: '100.00' } },
    });
    expect(analyse(report, 'current_liabilities_structure').sp_result.series).toEqual([
      {
        year: 2023,
        total_current_liabilities: null,
        items: [
          { key: 'short_term_borrowings', label: '短期借款', amount: null, share: null },
          {
            key: 'other_current_liability_items',
            label: '其他流动负债项目（差额）',
            amount: null,
            share: null,
          },
        ],
      },
      {
        year: 2024,
        total_current_liabilities: 0.01,
        items: [
          { key: 'short_term_borrowings', label: '短期借款', amount: 0.01, share: 100 },
          { key: 'other_current_liability_items', label: '其他流动负债项目（差额）', amount: 0, share: 0 },
        ],
      },
    ]);
    for (const m of MODULES) {
      const series = analyse(report, m.slug).sp_result.series as { year: number }[];
      expect(
        series.map((s) => s.year),
        m.slug,
      ).toEqual([2023, 2024]);
    }
  });
});

describe('cash flow', () => {
  /**
   * 2024: operating detail lines only — inflow 800 000 + 0 + 20 000 = 820 000, outflow 600 000 + 150 000 +
   * 80 000 + 40 000 = 870 000, net −50 000; 2023 net −30 000 (submitted). Financing +180 000.
   */
  const strained = makeReport({
    2023: {
      income: { revenue: '1000000.00', net_profit: '80000.00' },
      cash_flow: {
        op_cash_in_total: '1000000.00',
        op_cash_out_total: '1030000.00',
        net_cf_operating: '-30000.00',
        net_cf_financing: '0.00',
      },
    },
    2024: {
      income: { revenue: '1000000.00', net_profit: '100000.00' },
      cash_flow: {
        sales_cash: '800000.00',
        tax_refund: '0.00',
        other_op_cash_in: '20000.00',
        purchase_cash: '600000.00',
        salary_paid: '150000.00',
        tax_paid: '80000.00',
        other_op_cash_out: '40000.00',
        borrowings_received: '300000.00',
        finance_cash_in_total: '300000.00',
        debt_repayment: '100000.00',
        dividends_interest_paid: '20000.00',
        finance_cash_out_total: '120000.00',
        net_cf_financing: '180000.00',
      },
    },
  });

  it('derives missing subtotals and the net from detail lines; each negative year is judged, two in a row a danger', () => {
    const out = analyse(strained, 'operating_activities');
    expect(out.sp_result).toMatchObject({
      cash_inflow: 82,
      cash_outflow: 87,
      net_cash_flow: -5,
      // (820 000 − 1 000 000) / 1 000 000; (870 000 − 1 030 000) / 1 030 000 = −15.534 %; (−50 − (−30)) / 30
      cash_inflow_change_rate: -18,
      cash_outflow_change_rate: -15.53,
      net_cash_flow_change_rate: -66.67,
      sales_cash: 80,
      sales_cash_to_revenue: 80,
      // −50 000 / 100 000
      net_cash_to_net_profit: -0.5,
    });
    expect(out.risk_items).toEqual([
      {
        level: 'warning',
        code: 'operating_activities.net_operating_cash_negative',
        message:
          '2023年经营活动产生的现金流量净额为-3.00万元，为负数，经营活动未能带来现金净流入，需关注回款与营运资金压力。',
      },
      {
        level: 'danger',
        code: 'operating_activities.net_operating_cash_negative',
        message:
          '2024年经营活动产生的现金流量净额为-5.00万元，为负数，且2023年同样为负（-3.00万元），已连续两年为负，经营活动未能带来现金净流入，需关注回款与营运资金压力。',
      },
      {
        level: 'warning',
        code: 'operating_activities.net_cash_to_net_profit_low',
        message: '2024年净现比为-0.50，低于0.5，净利润中仅少部分转化为经营现金流，利润质量偏低。',
      },
    ]);
  });

  it('financing inflow while operations burn cash → warning', () => {
    const out = analyse(strained, 'financing_activities');
    expect(out.sp_result).toMatchObject({
      cash_inflow: 30,
      cash_outflow: 12,
      net_cash_flow: 18,
      net_cash_flow_change_rate: null,
      borrowings_received: 30,
      debt_repayment: 10,
      net_borrowing: 20,
      net_operating_cash_flow: -5,
    });
    expect(out.risk_items).toEqual([
      {
        level: 'warning',
        code: 'financing_activities.financing_funds_operations',
        message:
          '2024年筹资活动产生的现金流量净额为18.00万元（净流入），而经营活动产生的现金流量净额为-5.00万元（净流出），经营活动资金缺口依赖外部筹资弥补，需关注融资可持续性。',
      },
    ]);
  });

  it('one negative year is a warning; a low cash content of profit alone is a warning', () => {
    const oneYear = makeReport({
      2023: { cash_flow: { net_cf_operating: '100000.00' } },
      2024: { income: { net_profit: '-10000.00' }, cash_flow: { net_cf_operating: '-20000.00' } },
    });
    const out = analyse(oneYear, 'operating_activities');
    expect(codes(out)).toEqual(['operating_activities.net_operating_cash_negative:warning']);
    expect(out.risk_items[0]!.message).toBe(
      '2024年经营活动产生的现金流量净额为-2.00万元，为负数，经营活动未能带来现金净流入，需关注回款与营运资金压力。',
    );
    // a loss: 净现比 is null and silent
    expect(out.sp_result.net_cash_to_net_profit).toBeNull();
    const thin = makeReport({
      2023: { cash_flow: { net_cf_operating: '100000.00' } },
      2024: { income: { net_profit: '100000.00' }, cash_flow: { net_cf_operating: '30000.00' } },
    });
    expect(codes(analyse(thin, 'operating_activities'))).toEqual([
      'operating_activities.net_cash_to_net_profit_low:warning',
    ]);
    // financing out while operations burn cash is not “relying on financing”
    expect(codes(analyse(oneYear, 'financing_activities'))).toEqual([]);
  });

  it('a missing required detail line leaves the derived subtotal null', () => {
    const report = makeReport({
      2024: {
        cash_flow: {
          sales_cash: '800000.00',
          other_op_cash_in: '20000.00',
          purchase_cash: '600000.00',
          net_cf_operating: '10000.00',
        },
      },
    });
    // general_new needs tax_refund for the inflow and salary/tax/other for the outflow
    expect(analyse(report, 'operating_activities').sp_result).toMatchObject({
      cash_inflow: null,
      cash_outflow: null,
      net_cash_flow: 1,
    });
  });

  it('small enterprises (no subtotal lines, no tax refund line) derive every subtotal', () => {
    // In 万元: inflow 500 + 20 = 520; outflow 300 + 100 + 40 + 30 = 470; net 50. Investing: in 0 + 10 + 0, out
    // 80 + 0. Financing: in 0 + 100; out 60 + interest 5 + dividends 15 (optional lines of the small-enterprise format).
    const report = makeReport(
      {
        2023: { cash_flow: {} },
        2024: {
          cash_flow: {
            sales_cash: '5000000.00',
            other_op_cash_in: '200000.00',
            purchase_cash: '3000000.00',
            salary_paid: '1000000.00',
            tax_paid: '400000.00',
            other_op_cash_out: '300000.00',
            net_cf_operating: '500000.00',
            invest_proceeds: '0.00',
            invest_income: '100000.00',
            asset_disposal: '0.00',
            asset_purchase: '800000.00',
            invest_payments: '0.00',
            capital_received: '0.00',
            borrowings_received: '1000000.00',
            debt_repayment: '600000.00',
            interest_paid: '50000.00',
            dividends_paid: '150000.00',
          },
        },
      },
      { standard: 'small_enterprise' },
    );
    expect(analyse(report, 'operating_activities').sp_result).toMatchObject({
      cash_inflow: 520,
      cash_outflow: 470,
      net_cash_flow: 50,
    });
    expect(analyse(report, 'investing_activities').sp_result).toMatchObject({
      cash_inflow: 10,
      cash_outflow: 80,
      net_cash_flow: -70,
      capex: 80,
      capex_to_revenue: null,
    });
    const financing = analyse(report, 'financing_activities');
    expect(financing.sp_result).toMatchObject({ cash_inflow: 100, cash_outflow: 80, net_cash_flow: 20 });
    // 2023 has an empty cash-flow sheet: submitted, so no “missing” item; its values are null
    expect(financing.risk_items).toEqual([]);
    expect((financing.sp_result.series as Record<string, unknown>[])[0]).toMatchObject({ cash_inflow: null });
  });

  it('removing the subtotal and net lines from a full fixture changes nothing', () => {
    const full = toReport(loadFixture('general_old-5y-ai'));
    const stripped = structuredClone(full);
    for (const y of stripped.years) {
      const cf = y.sheets.cash_flow!;
      for (const key of [
        'op_cash_in_total',
        'op_cash_out_total',
        'net_cf_operating',
        'invest_cash_in_total',
        'invest_cash_out_total',
        'net_cf_investing',
        'finance_cash_in_total',
        'finance_cash_out_total',
        'net_cf_financing',
      ]) {
        delete cf[key];
      }
    }
    for (const m of CASH_FLOW_MODULES)
      expect(analyse(stripped, m.slug), m.slug).toEqual(analyse(full, m.slug));
  });

  it('a year without a cash-flow statement: null values and one info item naming the year', () => {
    const report = makeReport({
      2023: { cash_flow: { net_cf_operating: '100000.00', net_cf_investing: '-5000.00' } },
      2024: { income: { revenue: '1000000.00' } },
    });
    for (const [slug, what] of [
      ['operating_activities', '经营活动'],
      ['investing_activities', '投资活动'],
      ['financing_activities', '筹资活动'],
    ] as const) {
      const out = analyse(report, slug);
      expect(out.risk_items, slug).toEqual([
        {
          level: 'info',
          code: `${slug}.cash_flow_missing`,
          message: `2024年未提交现金流量表，${what}现金流指标无法计算。`,
        },
      ]);
      expect(out.sp_result.net_cash_flow, slug).toBeNull();
    }
    expect(
      (analyse(report, 'investing_activities').sp_result.series as Record<string, unknown>[])[0],
    ).toMatchObject({
      net_cash_flow: -0.5,
    });
  });
});

describe('input-output efficiency', () => {
  it('bands a value against the five standard values', () => {
    const std = [7.7, 5.9, 3.4, 1.1, -3.3] as const;
    const s = (v: string) => bandScore(num(v), std)?.toNumber();
    expect(s('9')).toBe(100);
    expect(s('7.7')).toBe(100);
    expect(s('5.9')).toBe(75);
    expect(s('3.4')).toBe(50);
    expect(s('1.1')).toBe(25);
    expect(s('-3.3')).toBe(0);
    expect(s('-10')).toBe(0);
    // halfway between 平均 3.4 and 良好 5.9 → 62.5
    expect(s('4.65')).toBe(62.5);
    expect(bandScore(null, std)).toBeNull();
  });

  /**
   * total profit 70 000 + interest 5 000 = 75 000 over average assets 1 000 000 → 7.5 %:
   * 75 + (7.5 − 5.9) / (7.7 − 5.9) × 25 = 97.2222…
   * costs 600 000 + 100 000 = 700 000 → 70 000 / 700 000 = 10 %: 75 + (10 − 8.3) / 3.6 × 25 = 86.8055…
   * net operating cash 90 000 / net profit 60 000 = 1.5 → 50.
   * overall (97.2222… + 86.8055… + 50) / 3 = 78.0092…
   */
  const year = (employees?: string | null) =>
    makeReport(
      {
        2023: {},
        2024: {
          income: {
            revenue: '1500000.00',
            operating_cost: '600000.00',
            administrative_expenses: '100000.00',
            interest_expense: '5000.00',
            total_profit: '70000.00',
            net_profit: '60000.00',
          },
          balance: { total_assets: ['1100000.00', '900000.00'] },
          cash_flow: { net_cf_operating: '90000.00' },
        },
      },
      { employees },
    );

  it('computes the indicators and the banded score', () => {
    const out = analyse(year('30'), 'business_input_profitability');
    expect(out.sp_result).toMatchObject({
      total_asset_return: 7.5,
      cost_expense_profit_margin: 10,
      // 150 万元 / 30 人
      revenue_per_employee: 5,
      earnings_cash_coverage: 1.5,
      total_asset_return_score: 97.22,
      cost_expense_profit_margin_score: 86.81,
      earnings_cash_coverage_score: 50,
      overall_score: 78.01,
    });
    expect(out.risk_items).toEqual([]);
    expect((out.sp_result.series as Record<string, unknown>[])[0]).toMatchObject({
      revenue_per_employee: null,
      overall_score: null,
    });
  });

  it.each([[undefined], [null], [''], ['0'], ['12.5'], ['-3'], ['三十'], ['30人']])(
    'employee_count %j gives no revenue per employee',
    (employees) => {
      expect(
        analyse(year(employees), 'business_input_profitability').sp_result.revenue_per_employee,
      ).toBeNull();
    },
  );

  it('a missing interest line counts as 0; a loss leaves the cash coverage and its score out of the average', () => {
    const report = makeReport({
      2024: {
        income: { total_profit: '-20000.00', net_profit: '-20000.00', operating_cost: '100000.00' },
        balance: { total_assets: ['1000000.00', '1000000.00'] },
        cash_flow: { net_cf_operating: '50000.00' },
      },
    });
    // −20 000 / 1 000 000 = −2 %: (−2 − (−3.3)) / (1.1 − (−3.3)) × 25 = 7.386…; −20 000 / 100 000 = −20 % → 0
    expect(analyse(report, 'business_input_profitability').sp_result).toMatchObject({
      total_asset_return: -2,
      total_asset_return_score: 7.39,
      cost_expense_profit_margin: -20,
      cost_expense_profit_margin_score: 0,
      earnings_cash_coverage: null,
      earnings_cash_coverage_score: null,
      overall_score: 3.69,
    });
  });
});

describe('risk rule coverage', () => {
  it('every documented rule was triggered somewhere in this file', () => {
    const documented = MODULES.flatMap((m) => m.riskRules.map((rule) => rule.code));
    expect(documented.length).toBeGreaterThan(0);
    expect(documented.filter((code) => !RAISED.has(code))).toEqual([]);
  });
});
