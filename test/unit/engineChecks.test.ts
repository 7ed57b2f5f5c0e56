/**
 * The section-5 cross-checks (income_statement, cash_flow, comparative, statement_arithmetic) and the distress
 * and manipulation signals (distress_signals).
 *
 * Golden tests derive every expected value here from the raw fixture JSON with exact BigInt rationals
 * (test/helpers/engineFixtures.ts), independently of decimal.js and of the engine; the edge cases use small
 * hand-built reports whose expected values are worked out by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import { createContext } from '../../worker/engine/context.ts';
import { num } from '../../worker/engine/decimal.ts';
import type { AnalysisModule } from '../../worker/engine/module.ts';
import {
  altmanZ,
  altmanZDoublePrime,
  beneishM,
  zoneOf,
} from '../../worker/engine/modules/checks/distressSignals.ts';
import { CHECK_MODULES, SIGNAL_MODULES } from '../../worker/engine/modules/checks/index.ts';
import type { NormalisedReport, RiskItem, SheetType } from '../../worker/types.ts';
import {
  FIXTURES,
  type FixtureName,
  int,
  type Lines,
  loadFixture,
  makeReport,
  type Q,
  q,
  qadd,
  qcmp,
  qdiv,
  qmul,
  qpct,
  qsign,
  qsub,
  qsum,
  qwan,
  type R,
  type Raw,
  r2,
  r2text,
  rawAccess,
  toReport,
  type YearInput,
} from '../helpers/engineFixtures.ts';

const ALL_MODULES = [...CHECK_MODULES, ...SIGNAL_MODULES];

function moduleOf(slug: string): AnalysisModule {
  const found = ALL_MODULES.find((m) => m.slug === slug);
  if (!found) throw new Error(`no module ${slug}`);
  return found;
}

function run(report: NormalisedReport, slug: string) {
  return moduleOf(slug).compute(createContext(report));
}

/** Every number anywhere in the value is finite, and the value survives JSON unchanged. */
function assertPlainJson(value: unknown): void {
  const walk = (v: unknown, path: string): void => {
    if (typeof v === 'number') {
      expect(Number.isFinite(v), path).toBe(true);
    } else if (v && typeof v === 'object') {
      // Arrays too: their entries are keyed by index.
      for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    } else {
      expect(v === null || ['string', 'boolean'].includes(typeof v), path).toBe(true);
    }
  };
  walk(value, '$');
  expect(JSON.parse(JSON.stringify(value))).toEqual(value);
}

// hand-built reports

/** 万元 → yuan text, so hand-built figures read in 万元 (`w(600)` = 6 000 000.00 yuan). */
const w = (wan: number): string => `${(wan * 10_000).toFixed(2)}`;

const codes = (items: readonly RiskItem[]) => items.map((i) => i.code);

// ————————————————————————————————————————————————————————————————————————————————————————————————
// module metadata

describe('module metadata', () => {
  it('exports the checks in presentation order and the signals, in their sections', () => {
    expect(CHECK_MODULES.map((m) => m.slug)).toEqual([
      'income_statement',
      'cash_flow',
      'comparative',
      'statement_arithmetic',
    ]);
    expect(CHECK_MODULES.every((m) => m.section === 'data_check' && m.kind === 'check')).toBe(true);
    expect(SIGNAL_MODULES.map((m) => [m.slug, m.section, m.kind])).toEqual([
      ['distress_signals', 'comprehensive_analysis', 'indicator'],
    ]);
  });

  it('every module has a Chinese label, documented fields and unique coded rules', () => {
    const seen = new Set<string>();
    for (const module of ALL_MODULES) {
      expect(module.label).toMatch(/[\u4e00-\u9fff]/);
      expect(module.fields.length).toBeGreaterThan(0);
      for (const field of module.fields) {
        expect(field.label, `${module.slug}.${field.key}`).toMatch(/[\u4e00-\u9fff]/);
        expect(field.formula.length).toBeGreaterThan(0);
        expect(field.inputs.length).toBeGreaterThan(0);
      }
      for (const rule of module.riskRules) {
        expect(rule.code.startsWith(`${module.slug}.`), rule.code).toBe(true);
        expect(seen.has(rule.code), rule.code).toBe(false);
        seen.add(rule.code);
        expect(rule.tiers.length).toBeGreaterThan(0);
        expect(rule.description).toMatch(/[\u4e00-\u9fff]/);
      }
    }
  });

  it('distress_signals puts exactly its documented fields in sp_result and in every series row', () => {
    const module = moduleOf('distress_signals');
    const { sp_result } = run(toReport(loadFixture('general_new-3y')), 'distress_signals');
    const keys = module.fields.map((f) => f.key).sort();
    expect(Object.keys(sp_result).sort()).toEqual(['released_year', 'series', ...keys].sort());
    for (const row of sp_result.series as Record<string, unknown>[]) {
      expect(Object.keys(row).sort()).toEqual(['year', ...keys].sort());
    }
  });

  it('every numeric top-level key of a check sp_result is documented', () => {
    for (const module of CHECK_MODULES) {
      const { sp_result } = module.compute(createContext(toReport(loadFixture('general_new-3y'))));
      const documented = new Set(module.fields.map((f) => f.key));
      for (const [key, value] of Object.entries(sp_result)) {
        if (key === 'released_year' || typeof value !== 'number') continue;
        expect(documented.has(key), `${module.slug}.${key}`).toBe(true);
      }
    }
  });
});

// ————————————————————————————————————————————————————————————————————————————————————————————————
// golden tests on the shared fixtures

/** The expected adjacent-column comparison of one sheet, from the raw JSON. */
function expectedColumnCheck(r: Raw, sheet: 'income' | 'cash_flow') {
  const current = sheet === 'income' ? r.inc : r.cf;
  const last = sheet === 'income' ? r.incLast : r.cfLast;
  const mismatches: { year: number; item: string; last: Q; previous: Q }[] = [];
  let yearPairs = 0;
  let pairs = 0;
  for (const y of r.years) {
    if (!r.years.includes(y - 1) || !r.hasSheet(y, sheet) || !r.hasSheet(y - 1, sheet)) continue;
    yearPairs += 1;
    for (const key of r.keys(y, sheet)) {
      const a = last(y, key);
      const b = current(y - 1, key);
      if (a === null || b === null) continue;
      pairs += 1;
      if (qcmp(a, b) !== 0) mismatches.push({ year: y, item: key, last: a, previous: b });
    }
  }
  return { yearPairs, pairs, mismatches };
}

const Z_CUT = { distress: q('1.23'), safe: q('2.9') };
const Z2_CUT = { distress: q('1.1'), safe: q('2.6') };
const zone = (v: R, cut: { distress: Q; safe: Q }) =>
  v === null ? null : qcmp(v, cut.distress) < 0 ? 'distress' : qcmp(v, cut.safe) > 0 ? 'safe' : 'grey';

/** Expected distress_signals values of one year, written from the formulas in the module's doc comment. */
function expectedSignals(r: Raw, t: number, model: 'z_prime' | 'z_double_prime') {
  const has = (y: number) => r.years.includes(y);
  const bal = (y: number, k: string): R => (has(y) ? r.end(y, k) : has(y + 1) ? r.begin(y + 1, k) : null);
  const inc = (y: number, k: string): R => (has(y) ? r.inc(y, k) : has(y + 1) ? r.incLast(y + 1, k) : null);
  const pos = (v: R): R => (v !== null && qsign(v) > 0 ? v : null);
  const orZero = (v: R): Q => v ?? int(0);
  const some = (vs: R[]): R => (vs.every((v) => v === null) ? null : qsum(vs.map(orZero)));
  const lin = (c: string, v: R) => qmul(q(c), v);

  const ta = (y: number) => pos(bal(y, 'total_assets'));
  const x1 = qdiv(qsub(bal(t, 'total_current_assets'), bal(t, 'total_current_liabilities')), ta(t));
  const x2 = qdiv(some([bal(t, 'surplus_reserve'), bal(t, 'retained_earnings')]), ta(t));
  const x3 = qdiv(qadd(inc(t, 'total_profit'), orZero(inc(t, 'interest_expense'))), ta(t));
  const x4 = qdiv(bal(t, 'total_shareholders_equity'), bal(t, 'total_liabilities'));
  const x5 = qdiv(inc(t, 'revenue'), ta(t));
  // Z′ (private firms, book equity): the manufacturers' model.
  const z = qsum([lin('0.717', x1), lin('0.847', x2), lin('3.107', x3), lin('0.42', x4), lin('0.998', x5)]);
  const z2 = qsum([lin('6.56', x1), lin('3.26', x2), lin('6.72', x3), lin('1.05', x4)]);

  const p = t - 1;
  const rev = (y: number) => inc(y, 'revenue');
  const gm = (y: number) => qdiv(qsub(rev(y), inc(y, 'operating_cost')), rev(y));
  const idx = (f: (y: number) => R) => qdiv(f(t), f(p));
  const ltd = (y: number) =>
    bal(y, 'total_assets') === null
      ? null
      : qadd(orZero(bal(y, 'long_term_borrowings')), orZero(bal(y, 'bonds_payable')));
  const dsri = idx((y) => qdiv(bal(y, 'accounts_receivable'), rev(y)));
  const gmi = qdiv(gm(p), gm(t));
  const aqi = idx((y) =>
    qsub(int(1), qdiv(qadd(bal(y, 'total_current_assets'), orZero(bal(y, 'fixed_assets_net'))), ta(y))),
  );
  const sgi = idx(rev);
  // One SG&A basis: 研发费用 on both sides when either year reports it apart.
  const withRd = inc(t, 'rd_expenses') !== null || inc(p, 'rd_expenses') !== null;
  const sga = (y: number) =>
    some([
      inc(y, 'sales_expenses'),
      inc(y, 'administrative_expenses'),
      ...(withRd ? [inc(y, 'rd_expenses')] : []),
    ]);
  const sgai = idx((y) => qdiv(sga(y), rev(y)));
  const lvgi = idx((y) => qdiv(qadd(bal(y, 'total_current_liabilities'), ltd(y)), ta(y)));
  const cfo = r.cf(t, 'net_cf_operating');
  const tata = qdiv(qsub(inc(t, 'continuing_ops_net_profit') ?? inc(t, 'net_profit'), cfo), ta(t));
  const m = qsum([
    q('-4.84'),
    lin('0.92', dsri),
    lin('0.528', gmi),
    lin('0.404', aqi),
    lin('0.892', sgi),
    q('0.115'),
    lin('-0.172', sgai),
    lin('4.679', tata),
    lin('-0.327', lvgi),
  ]);

  const roa = (y: number) => qdiv(inc(y, 'net_profit'), ta(y - 1));
  const cfoTa = qdiv(cfo, ta(p));
  const lev = (y: number) => qdiv(ltd(y), qdiv(qadd(ta(y - 1), ta(y)), int(2)));
  const cr = (y: number) => qdiv(bal(y, 'total_current_assets'), bal(y, 'total_current_liabilities'));
  const capital = (y: number) => some([bal(y, 'paid_in_capital'), bal(y, 'capital_reserve')]);
  const turn = (y: number) => qdiv(rev(y), ta(y - 1));
  const dRoa = qsub(roa(t), roa(p));
  const accrual = qsub(roa(t), cfoTa);
  const dLev = qsub(lev(t), lev(p));
  const dCr = qsub(cr(t), cr(p));
  const dCap = qsub(capital(t), capital(p));
  const dGm = qsub(gm(t), gm(p));
  const dTurn = qsub(turn(t), turn(p));
  const gt0 = (v: R) => (v === null ? null : qsign(v) > 0);
  const lt0 = (v: R) => (v === null ? null : qsign(v) < 0);
  const levPass = dLev === null ? null : qsign(dLev) < 0 || (qsign(lev(t)!) === 0 && qsign(lev(p)!) === 0);
  const signals: [string, R, boolean | null][] = [
    ['roa', qpct(roa(t), int(1)), gt0(roa(t))],
    ['cfo', qpct(cfoTa, int(1)), gt0(cfo)],
    ['delta_roa', qpct(dRoa, int(1)), gt0(dRoa)],
    ['accrual', qpct(accrual, int(1)), lt0(accrual)],
    ['delta_leverage', qpct(dLev, int(1)), levPass],
    ['delta_current_ratio', dCr, gt0(dCr)],
    ['equity_offer', qwan(dCap), dCap === null ? null : qsign(dCap) <= 0],
    ['delta_gross_margin', qpct(dGm, int(1)), gt0(dGm)],
    ['delta_asset_turnover', dTurn, gt0(dTurn)],
  ];
  const available = signals.filter((s) => s[2] !== null).length;
  const passed = signals.filter((s) => s[2] === true).length;
  const headline = model === 'z_prime' ? z : z2;

  const values: Record<string, unknown> = {
    altman_headline_model: model,
    altman_headline_score: r2(headline),
    altman_headline_zone: zone(headline, model === 'z_prime' ? Z_CUT : Z2_CUT),
    altman_x1: r2(x1),
    altman_x2: r2(x2),
    altman_x3: r2(x3),
    altman_x4: r2(x4),
    altman_x5: r2(x5),
    altman_z: null,
    altman_z_zone: null,
    altman_z_prime: r2(z),
    altman_z_prime_zone: zone(z, Z_CUT),
    altman_z_double_prime: r2(z2),
    altman_z_double_prime_zone: zone(z2, Z2_CUT),
    beneish_dsri: r2(dsri),
    beneish_gmi: r2(gmi),
    beneish_aqi: r2(aqi),
    beneish_sgi: r2(sgi),
    beneish_depi: 1,
    beneish_sgai: r2(sgai),
    beneish_lvgi: r2(lvgi),
    beneish_tata: r2(tata),
    beneish_m: r2(m),
  };
  for (const [key, value, pass] of signals) {
    values[`piotroski_${key}`] = r2(value);
    values[`piotroski_${key}_signal`] = pass === null ? null : pass ? 1 : 0;
  }
  values.piotroski_signals_available = available;
  values.piotroski_signals_passed = passed;
  values.piotroski_f = available === 9 ? passed : null;
  return { values, headline, m, f: available === 9 ? passed : null };
}

/** Hard-coded equations over the spec's main lines (the only lines the fixtures carry). */
function arithmeticEquations(standard: string) {
  const impairmentSign = standard === 'general_old' ? '-' : '+';
  type Eq = { sheet: SheetType; target: string; required: string[]; plus: string[]; minus: string[] };
  const eqs: Eq[] = [
    {
      sheet: 'balance',
      target: 'total_current_assets',
      required: [],
      plus: [
        'cash_and_equivalents',
        'financial_assets_held_for_trading',
        'notes_receivable',
        'accounts_receivable',
        'prepayments',
        'other_receivables',
        'inventory',
        'contract_assets',
        'other_current_assets',
      ],
      minus: [],
    },
    {
      sheet: 'balance',
      target: 'total_noncurrent_assets',
      required: [],
      plus: [
        'long_term_equity_investments',
        'fixed_assets_net',
        'construction_in_progress',
        'intangible_assets',
        'long_term_deferred_expenses',
        'deferred_tax_assets',
      ],
      minus: [],
    },
    {
      sheet: 'balance',
      target: 'total_assets',
      required: ['total_current_assets', 'total_noncurrent_assets'],
      plus: [],
      minus: [],
    },
    {
      sheet: 'balance',
      target: 'total_current_liabilities',
      required: [],
      plus: [
        'short_term_borrowings',
        'notes_payable',
        'accounts_payable',
        'advance_receipts',
        'contract_liabilities',
        'employee_benefits_payable',
        'taxes_payable',
        'other_payables',
      ],
      minus: [],
    },
    {
      sheet: 'balance',
      target: 'total_noncurrent_liabilities',
      required: [],
      plus: ['long_term_borrowings', 'deferred_tax_liabilities'],
      minus: [],
    },
    {
      sheet: 'balance',
      target: 'total_liabilities',
      required: ['total_current_liabilities', 'total_noncurrent_liabilities'],
      plus: [],
      minus: [],
    },
    {
      sheet: 'balance',
      target: 'total_shareholders_equity',
      required: [],
      plus: ['paid_in_capital', 'capital_reserve', 'surplus_reserve', 'retained_earnings'],
      minus: [],
    },
    {
      sheet: 'balance',
      target: 'total_liabilities_and_equity',
      required: ['total_liabilities', 'total_shareholders_equity'],
      plus: [],
      minus: [],
    },
    {
      sheet: 'balance',
      target: 'total_assets',
      required: ['total_liabilities', 'total_shareholders_equity'],
      plus: [],
      minus: [],
    },
    {
      sheet: 'income',
      target: 'operating_profit',
      required: [],
      plus: [
        'revenue',
        'other_income',
        'investment_income',
        'fair_value_change',
        'credit_impairment',
        'asset_disposal_gain',
        ...(impairmentSign === '+' ? ['asset_impairment'] : []),
      ],
      minus: [
        'operating_cost',
        'taxes_and_dues',
        'sales_expenses',
        'administrative_expenses',
        'rd_expenses',
        'financial_expenses',
        ...(impairmentSign === '-' ? ['asset_impairment'] : []),
      ],
    },
    {
      sheet: 'income',
      target: 'total_profit',
      required: ['operating_profit'],
      plus: ['non_operating_income'],
      minus: ['non_operating_expenses'],
    },
    {
      sheet: 'income',
      target: 'net_profit',
      required: ['total_profit'],
      plus: [],
      minus: ['income_tax_expense'],
    },
  ];
  const activity = (inTotal: string, ins: string[], outTotal: string, outs: string[], net: string): Eq[] => [
    { sheet: 'cash_flow', target: inTotal, required: [], plus: ins, minus: [] },
    { sheet: 'cash_flow', target: outTotal, required: [], plus: outs, minus: [] },
    { sheet: 'cash_flow', target: net, required: [inTotal], plus: [], minus: [outTotal] },
  ];
  eqs.push(
    ...activity(
      'op_cash_in_total',
      ['sales_cash', 'tax_refund', 'other_op_cash_in'],
      'op_cash_out_total',
      ['purchase_cash', 'salary_paid', 'tax_paid', 'other_op_cash_out'],
      'net_cf_operating',
    ),
    ...activity(
      'invest_cash_in_total',
      ['invest_proceeds', 'invest_income', 'asset_disposal'],
      'invest_cash_out_total',
      ['asset_purchase', 'invest_payments'],
      'net_cf_investing',
    ),
    ...activity(
      'finance_cash_in_total',
      ['capital_received', 'borrowings_received'],
      'finance_cash_out_total',
      ['debt_repayment', 'dividends_interest_paid'],
      'net_cf_financing',
    ),
    {
      sheet: 'cash_flow',
      target: 'net_increase_cash',
      required: ['net_cf_operating', 'net_cf_investing', 'net_cf_financing'],
      plus: [],
      minus: [],
    },
  );
  return eqs;
}

describe.each(FIXTURES)('golden values: %s', (name: FixtureName) => {
  const raw = loadFixture(name);
  const r = rawAccess(raw);
  const report = toReport(raw);
  const latest = Math.max(...r.years);

  it.each(['income', 'cash_flow'] as const)('%s: prior-year column against the previous year', (sheet) => {
    const slug = sheet === 'income' ? 'income_statement' : 'cash_flow';
    const { sp_result, risk_items } = run(report, slug);
    if (sheet === 'cash_flow' && !r.years.some((y) => r.hasSheet(y, 'cash_flow'))) {
      expect(sp_result).toEqual({
        released_year: latest,
        checked_year_pairs: null,
        checked_pairs: null,
        mismatch_count: null,
        consistent: null,
        summary: '未提交现金流量表，无法核对相邻年度数据。',
        mismatches: [],
      });
      expect(risk_items).toEqual([
        {
          level: 'info',
          code: 'cash_flow.not_submitted',
          message: expect.stringContaining('未提交现金流量表'),
        },
      ]);
      return;
    }
    const expected = expectedColumnCheck(r, sheet);
    expect(sp_result).toMatchObject({
      released_year: latest,
      checked_year_pairs: expected.yearPairs,
      checked_pairs: expected.pairs,
      mismatch_count: expected.mismatches.length,
      consistent: expected.mismatches.length === 0,
    });
    expect(sp_result.mismatches).toEqual(
      expected.mismatches.map((m) => ({
        year: m.year,
        item: m.item,
        item_label: expect.any(String),
        unit: '万元',
        last_year_amount: r2(qwan(m.last)),
        previous_current_year_amount: r2(qwan(m.previous)),
        difference: r2(qwan(qsub(m.last, m.previous))),
      })),
    );
    expect(risk_items).toHaveLength(expected.mismatches.length);
    if (name !== 'general_new-4y-inconsistent' || sheet === 'cash_flow') {
      expect(expected.mismatches).toEqual([]);
      expect(risk_items).toEqual([]);
      expect(sp_result.summary).toContain('全部一致');
    }
  });

  it('comparative: cash reconciliation, cash quality and 收现比 for every year', () => {
    const { sp_result, risk_items } = run(report, 'comparative');
    const row = (y: number) => {
      const nic = r.cf(y, 'net_increase_cash');
      const change = qsub(r.end(y, 'cash_and_equivalents'), r.begin(y, 'cash_and_equivalents'));
      const np = r.inc(y, 'net_profit');
      const rev = r.inc(y, 'revenue');
      const cash = r.end(y, 'cash_and_equivalents');
      const nonEquivalent = qsub(cash, r.cf(y, 'cash_ending'));
      return {
        net_increase_cash: qwan(nic),
        cash_change: qwan(change),
        cash_difference: qwan(qsub(nic, change)),
        non_equivalent_cash: qwan(nonEquivalent),
        non_equivalent_cash_share: cash && qsign(cash) > 0 ? qpct(nonEquivalent, cash) : null,
        ocf_to_net_profit: np && qsign(np) > 0 ? qdiv(r.cf(y, 'net_cf_operating'), np) : null,
        sales_cash_ratio: rev && qsign(rev) > 0 ? qpct(r.cf(y, 'sales_cash'), rev) : null,
      };
    };
    const rounded = (y: number) => Object.fromEntries(Object.entries(row(y)).map(([k, v]) => [k, r2(v)]));
    const hasCashFlow = r.years.some((y) => r.hasSheet(y, 'cash_flow'));
    // Carry-over pairs: a year's opening cash and the previous year's closing cash both submitted.
    const pairs = r.years.filter(
      (y) => r.cf(y, 'cash_beginning') !== null && r.cf(y - 1, 'cash_ending') !== null,
    ).length;
    expect(sp_result).toEqual({
      released_year: latest,
      checked_years: hasCashFlow ? r.years.filter((y) => r.hasSheet(y, 'cash_flow')).length : null,
      checked_pairs: hasCashFlow ? pairs : null,
      mismatch_count: hasCashFlow ? 0 : null,
      consistent: hasCashFlow && pairs > 0 ? true : null,
      summary: expect.any(String),
      mismatches: [],
      ...rounded(latest),
      series: r.years.map((y) => ({ year: y, ...rounded(y) })),
    });
    // The fixtures are built so that net_increase_cash equals the change in cash_and_equivalents.
    if (hasCashFlow) for (const y of r.years) expect(qsign(row(y).cash_difference!)).toBe(0);

    const expectedCodes: string[] = [];
    if (!hasCashFlow) expectedCodes.push('comparative.not_submitted');
    const last = row(latest);
    if (last.non_equivalent_cash_share && qcmp(last.non_equivalent_cash_share, int(50)) > 0)
      expectedCodes.push('comparative.non_equivalent_cash_high');
    if (last.ocf_to_net_profit && qcmp(last.ocf_to_net_profit, q('0.5')) < 0)
      expectedCodes.push('comparative.operating_cash_to_net_profit_low');
    if (last.sales_cash_ratio && qcmp(last.sales_cash_ratio, int(80)) < 0)
      expectedCodes.push('comparative.sales_cash_ratio_low');
    if (last.sales_cash_ratio && qcmp(last.sales_cash_ratio, int(130)) > 0)
      expectedCodes.push('comparative.sales_cash_ratio_high');
    expect(codes(risk_items)).toEqual(expectedCodes);
  });

  it('statement_arithmetic: every subtotal adds up; nothing is raised', () => {
    let checked = 0;
    let checkedYears = 0;
    for (const y of r.years) {
      let thisYear = 0;
      for (const eq of arithmeticEquations(r.standard)) {
        const get = (k: string): R =>
          eq.sheet === 'balance' ? r.end(y, k) : eq.sheet === 'income' ? r.inc(y, k) : r.cf(y, k);
        const target = get(eq.target);
        if (target === null || eq.required.some((k) => get(k) === null)) continue;
        const terms = [...eq.plus, ...eq.minus];
        if (eq.required.length === 0 && terms.every((k) => get(k) === null)) continue;
        thisYear += 1;
        const computed = qsub(
          qsum([...eq.required, ...eq.plus].map((k) => get(k) ?? int(0))),
          qsum(eq.minus.map((k) => get(k) ?? int(0))),
        );
        // The fixture README: subtotals add up (verified here line by line, to the fen).
        expect(qcmp(target, computed!), `${name} ${y} ${eq.target}`).toBe(0);
      }
      checked += thisYear;
      if (thisYear > 0) checkedYears += 1;
    }
    const { sp_result, risk_items } = run(report, 'statement_arithmetic');
    expect(sp_result).toEqual({
      released_year: latest,
      checked_years: checkedYears,
      checked_pairs: checked,
      mismatch_count: 0,
      consistent: true,
      summary: `共核对${checkedYears}个年度、${checked}组报表内部勾稽关系，全部一致。`,
      mismatches: [],
    });
    expect(risk_items).toEqual([]);
  });

  it('distress_signals: Altman, Beneish and Piotroski components for every year', () => {
    const model = raw.enterprise_info?.industry_sector_code === 'C' ? 'z_prime' : 'z_double_prime';
    const rows = new Map(r.years.map((y) => [y, expectedSignals(r, y, model)]));
    const { sp_result, risk_items } = run(report, 'distress_signals');
    expect(sp_result).toEqual({
      released_year: latest,
      ...rows.get(latest)!.values,
      series: r.years.map((y) => ({ year: y, ...rows.get(y)!.values })),
    });
    const { headline, m, f } = rows.get(latest)!;
    const cut = model === 'z_prime' ? Z_CUT : Z2_CUT;
    const expectedCodes: string[] = [];
    const z = zone(headline, cut);
    if (z === 'safe') expectedCodes.push('distress_signals.altman_safe');
    if (z === 'distress' || z === 'grey') expectedCodes.push(`distress_signals.altman_${model}_zone`);
    if (m !== null && qcmp(m, q('-1.78')) > 0) expectedCodes.push('distress_signals.beneish_m_high');
    if (f !== null && f <= 2) expectedCodes.push('distress_signals.piotroski_f_low');
    if (f !== null && f >= 8) expectedCodes.push('distress_signals.piotroski_f_high');
    expect(codes(risk_items)).toEqual(expectedCodes);
  });

  it('all outputs are plain JSON with finite numbers; consistent statements raise nothing above info', () => {
    for (const module of ALL_MODULES) {
      const out = module.compute(createContext(report));
      assertPlainJson(out);
      if (module.section === 'data_check' && name !== 'general_new-4y-inconsistent') {
        expect(out.risk_items.filter((i) => i.level !== 'info')).toEqual([]);
      }
    }
  });
});

describe('general_new-4y-inconsistent', () => {
  const raw = loadFixture('general_new-4y-inconsistent');
  const r = rawAccess(raw);
  const report = toReport(raw);

  it('income_statement raises exactly the 2024 revenue comparative, as a danger (≥ 5% of 2023 revenue)', () => {
    const last = r.incLast(2024, 'revenue')!;
    const previous = r.inc(2023, 'revenue')!;
    const diff = qsub(last, previous)!;
    const share = qpct(diff, previous)!;
    expect(qcmp(share, int(5))).toBeGreaterThanOrEqual(0);
    const { sp_result, risk_items } = run(report, 'income_statement');
    expect(sp_result.mismatches).toEqual([
      {
        year: 2024,
        item: 'revenue',
        item_label: '营业收入',
        unit: '万元',
        last_year_amount: r2(qwan(last)),
        previous_current_year_amount: r2(qwan(previous)),
        difference: r2(qwan(diff)),
      },
    ]);
    expect(risk_items).toEqual([
      {
        level: 'danger',
        code: 'income_statement.prior_column_mismatch',
        message:
          `2024年利润表“营业收入”上年金额为${r2text(qwan(last)!)}万元，与2023年利润表本年金额${r2text(qwan(previous)!)}万元不一致，` +
          `差额${r2text(qwan(diff)!)}万元，占2023年营业收入的${r2text(share)}%；` +
          '可能原因：报表项目重分类（会计政策变更或列报调整，合计数未变）。变动率按重述后的上年金额计算。',
      },
    ]);
    // Read off the fixture by hand: 122 500 532.36 − 114 486 478.84 = 8 014 053.52 yuan.
    expect(risk_items[0]?.message).toContain('12250.05万元');
    expect(risk_items[0]?.message).toContain('11448.65万元');
    expect(risk_items[0]?.message).toContain('差额801.41万元');
  });

  it('the statement arithmetic checks current columns only: the restated prior columns are not re-added', () => {
    // 2024's last_year column no longer adds up to its own operating profit, and 2023's beginning current
    // assets no longer sum; both are reported once, by income_statement and balance_sheet.
    expect(run(report, 'statement_arithmetic').risk_items).toEqual([]);
  });
});

// ————————————————————————————————————————————————————————————————————————————————————————————————
// edge cases: adjacent-column checks

describe('income_statement and cash_flow edge cases', () => {
  it('a small restatement is info; a per-share line stays in 元 per share; missing columns are not compared', () => {
    const report = makeReport({
      2023: {
        income: { revenue: w(1000), net_profit: w(100), basic_eps: '0.52' },
        cash_flow: { net_cf_operating: w(80), sales_cash: w(900) },
      },
      2024: {
        income: {
          // 1000.50 vs 1000: difference 0.50万元 = 0.05% of 2023 revenue → info (below 1%)
          revenue: [w(1200), w(1000.5)],
          net_profit: [w(120), null],
          basic_eps: ['0.60', '0.50'],
          rd_expenses: [w(10), w(9)],
        },
        cash_flow: { net_cf_operating: [w(90), w(70)], sales_cash: [w(1000), w(900)] },
      },
    });
    const income = run(report, 'income_statement');
    expect(income.sp_result).toMatchObject({
      checked_year_pairs: 1,
      checked_pairs: 2, // revenue and basic_eps; net_profit has no prior column, rd_expenses no 2023 line
      mismatch_count: 2,
      consistent: false,
    });
    expect(income.sp_result.mismatches).toEqual([
      {
        year: 2024,
        item: 'revenue',
        item_label: '营业收入',
        unit: '万元',
        last_year_amount: 1000.5,
        previous_current_year_amount: 1000,
        difference: 0.5,
      },
      {
        year: 2024,
        item: 'basic_eps',
        item_label: '基本每股收益',
        unit: '元',
        last_year_amount: 0.5,
        previous_current_year_amount: 0.52,
        difference: -0.02,
      },
    ]);
    expect(income.risk_items).toEqual([
      {
        level: 'info',
        code: 'income_statement.prior_column_mismatch',
        message:
          '2024年利润表“营业收入”上年金额为1000.50万元，与2023年利润表本年金额1000.00万元不一致，差额0.50万元，占2023年营业收入的0.05%；' +
          '可能原因：追溯调整（会计政策变更或前期差错更正）或录入错误。变动率按重述后的上年金额计算。',
      },
      {
        level: 'info',
        code: 'income_statement.prior_column_mismatch',
        message:
          '2024年利润表“基本每股收益”上年金额为0.50元/股，与2023年利润表本年金额0.52元/股不一致，差额-0.02元/股；' +
          '可能原因：追溯调整（会计政策变更或前期差错更正）或录入错误。变动率按重述后的上年金额计算。',
      },
    ]);

    // 70 vs 80 → −10万元 = 1% of 2023 revenue exactly → warning (the boundary is included; danger from 5%)
    const cash = run(report, 'cash_flow');
    expect(cash.sp_result).toMatchObject({ checked_pairs: 2, mismatch_count: 1 });
    expect(cash.risk_items).toEqual([
      {
        level: 'warning',
        code: 'cash_flow.prior_column_mismatch',
        message:
          '2024年现金流量表“经营活动产生的现金流量净额”上年金额为70.00万元，与2023年现金流量表本年金额80.00万元不一致，差额-10.00万元，占2023年营业收入的1.00%；' +
          '可能原因：追溯调整（会计政策变更或前期差错更正）或录入错误。变动率按重述后的上年金额计算。',
      },
    ]);
  });

  it('without a positive prior revenue a mismatch stays a warning and names no share', () => {
    const report = makeReport({
      2023: { income: { revenue: '0.00', operating_cost: w(5) } },
      2024: { income: { revenue: [w(10), '0.00'], operating_cost: [w(6), w(4)] } },
    });
    const { risk_items } = run(report, 'income_statement');
    expect(risk_items).toEqual([
      {
        level: 'warning',
        code: 'income_statement.prior_column_mismatch',
        message:
          '2024年利润表“营业成本”上年金额为4.00万元，与2023年利润表本年金额5.00万元不一致，差额-1.00万元；' +
          '可能原因：追溯调整（会计政策变更或前期差错更正）或录入错误。变动率按重述后的上年金额计算。',
      },
    ]);
  });

  it('cash flow submitted for one year only: nothing to compare, no not-submitted item', () => {
    const report = makeReport({
      2023: { income: { revenue: w(100) } },
      2024: { income: { revenue: [w(100), w(100)] }, cash_flow: { net_cf_operating: [w(5), w(4)] } },
    });
    const { sp_result, risk_items } = run(report, 'cash_flow');
    expect(sp_result).toMatchObject({
      checked_year_pairs: 0,
      checked_pairs: 0,
      mismatch_count: 0,
      consistent: null,
    });
    expect(sp_result.summary).toContain('没有可核对的相邻年度现金流量表');
    expect(risk_items).toEqual([]);
  });

  it('non-consecutive years are not compared', () => {
    const report = makeReport({
      2021: { income: { revenue: w(100) } },
      2023: { income: { revenue: [w(100), w(90)] } },
    });
    expect(run(report, 'income_statement').sp_result).toMatchObject({
      checked_year_pairs: 0,
      consistent: null,
    });
  });
});

// ————————————————————————————————————————————————————————————————————————————————————————————————
// edge cases: comparative

describe('comparative edge cases', () => {
  const year = (cash: Lines, income: Lines, balance: Lines): YearInput => ({
    income,
    balance: { total_assets: [w(1000), w(900)], ...balance },
    cash_flow: cash,
  });

  it('货币资金 vs 现金及现金等价物 is information, not a mismatch; a large non-equivalent share is information (CAS 31) unless equivalents fall short of short-term debt', () => {
    const report = makeReport({
      2024: year(
        // 货币资金 260, of which 现金及现金等价物 100: 160 (61.54%) restricted or not equivalent (CAS 31).
        { net_increase_cash: w(75), cash_ending: w(100), cash_beginning: w(25) },
        { revenue: w(500), net_profit: w(50) },
        { cash_and_equivalents: [w(260), w(200)] },
      ),
    });
    const { sp_result, risk_items } = run(report, 'comparative');
    expect(sp_result).toMatchObject({
      checked_years: 1,
      checked_pairs: 0,
      mismatch_count: 0,
      net_increase_cash: 75,
      cash_change: 60,
      cash_difference: 15,
      non_equivalent_cash: 160,
      non_equivalent_cash_share: 61.54,
    });
    expect(sp_result.mismatches).toEqual([]);
    // No short-term debt submitted: the share is information (term deposits are a normal treasury choice).
    expect(risk_items).toEqual([
      {
        level: 'info',
        code: 'comparative.non_equivalent_cash_high',
        message:
          '2024年末货币资金260.00万元中，现金及现金等价物为100.00万元，其余160.00万元（占货币资金的61.54%，超过50%）为三个月以上定期存款或受限资金等非现金等价物（CAS 31）。',
      },
    ]);
    // The same cash with short-term debt beside it: the level and the closing clause follow the cover.
    const withDebt = (debt: Lines) =>
      run(
        makeReport({
          2024: year(
            { net_increase_cash: w(75), cash_ending: w(100), cash_beginning: w(25) },
            { revenue: w(500), net_profit: w(50) },
            { cash_and_equivalents: [w(260), w(200)], ...debt },
          ),
        }),
        'comparative',
      ).risk_items.map((i) => [
        i.level,
        i.message.slice(i.message.indexOf('（CAS 31）') + '（CAS 31）'.length),
      ]);
    // Equivalents 100 cover short-term debt 80 (短期借款 50 + 一年内到期 30): still information.
    expect(withDebt({ short_term_borrowings: w(50), non_current_liabilities_due_within_1y: w(30) })).toEqual([
      ['info', '；现金及现金等价物足以覆盖短期借款与一年内到期的非流动负债合计80.00万元。'],
    ]);
    // Equivalents 100 below short-term debt 150: the money at hand does not meet it — a warning.
    expect(withDebt({ short_term_borrowings: w(150) })).toEqual([
      [
        'warning',
        '；现金及现金等价物低于短期借款与一年内到期的非流动负债合计150.00万元，可随时动用的资金不足以覆盖短期债务。',
      ],
    ]);
    // Half or less not equivalent: information only.
    const modest = makeReport({
      2024: year(
        { cash_ending: w(130), cash_beginning: w(100) },
        { revenue: w(500) },
        { cash_and_equivalents: [w(260), w(200)] },
      ),
    });
    expect(run(modest, 'comparative').risk_items).toEqual([]);
    expect(run(modest, 'comparative').sp_result.non_equivalent_cash_share).toBe(50);
  });

  it('a break in the carry-over of cash between years is one risk, naming both years and both figures', () => {
    const report = makeReport({
      2023: year(
        { cash_ending: w(100), cash_beginning: w(80) },
        { revenue: w(500) },
        { total_assets: w(1000) },
      ),
      2024: year(
        // Opens at 112 where 2023 closed at 100: 12万元 = 1.2% of 2023 total assets → warning (1–5%).
        { cash_ending: w(130), cash_beginning: w(112) },
        { revenue: w(500) },
        { total_assets: w(1000) },
      ),
    });
    const { sp_result, risk_items } = run(report, 'comparative');
    expect(sp_result).toMatchObject({ checked_pairs: 1, mismatch_count: 1, consistent: false });
    expect(sp_result.mismatches).toEqual([
      {
        year: 2024,
        prior_year: 2023,
        item: 'cash_beginning',
        item_label: '期初现金及现金等价物余额',
        balance_item: '2023年期末现金及现金等价物余额',
        cash_flow_amount: 112,
        balance_amount: 100,
        difference: 12,
      },
    ]);
    expect(risk_items).toEqual([
      {
        level: 'warning',
        code: 'comparative.cash_carry_mismatch',
        message:
          '2024年现金流量表“期初现金及现金等价物余额”为112.00万元，与2023年现金流量表“期末现金及现金等价物余额”100.00万元不一致，差额12.00万元，占2023年末资产总计的1.20%；' +
          '可能原因：追溯调整（会计政策变更或前期差错更正）或录入错误。',
      },
    ]);
    // A difference under 1 yuan (whole-yuan transcription) is no break.
    const rounding = makeReport({
      2023: year({ cash_ending: '1000000.40' }, { revenue: w(500) }, { total_assets: w(1000) }),
      2024: year({ cash_beginning: '1000000.00' }, { revenue: w(500) }, { total_assets: w(1000) }),
    });
    expect(run(rounding, 'comparative').risk_items).toEqual([]);
  });

  it('profitable with operating cash outflow → warning; thin cash backing → info; 收现比 bands → info', () => {
    const withFlows = (ocf: number, salesCash: number) =>
      makeReport({
        2024: year(
          { net_cf_operating: w(ocf), sales_cash: w(salesCash) },
          { revenue: w(1000), net_profit: w(100) },
          {},
        ),
      });
    // −20 / 100 = −0.2 < 0; 750 / 1000 = 75% < 80%
    const outflow = run(withFlows(-20, 750), 'comparative');
    expect(outflow.sp_result).toMatchObject({ ocf_to_net_profit: -0.2, sales_cash_ratio: 75 });
    expect(outflow.risk_items).toEqual([
      {
        level: 'warning',
        code: 'comparative.operating_cash_to_net_profit_low',
        message:
          '2024年净利润为100.00万元，经营活动现金流量净额为-20.00万元，盈余现金保障倍数为-0.20，低于0，企业盈利但经营活动现金净流出，利润缺乏现金支撑。',
      },
      {
        level: 'info',
        code: 'comparative.sales_cash_ratio_low',
        message:
          '2024年销售商品、提供劳务收到的现金与营业收入之比（收现比）为75.00%，低于80%，营业收入的现金回收偏弱，需关注应收款项的增长。',
      },
    ]);
    // 30 / 100 = 0.3 < 0.5; 1400 / 1000 = 140% > 130%
    const thin = run(withFlows(30, 1400), 'comparative');
    expect(thin.risk_items.map((i) => [i.level, i.code])).toEqual([
      ['info', 'comparative.operating_cash_to_net_profit_low'],
      ['info', 'comparative.sales_cash_ratio_high'],
    ]);
    expect(thin.risk_items[0]?.message).toContain('盈余现金保障倍数为0.30，低于0.5，利润的现金含量偏低');
    // 50 / 100 = 0.5 and 80%, 130% exactly: on the boundaries, nothing is raised
    expect(run(withFlows(50, 800), 'comparative').risk_items).toEqual([]);
    expect(run(withFlows(50, 1300), 'comparative').risk_items).toEqual([]);
  });

  it('a loss makes the cash-quality ratio null; zero revenue makes 收现比 null', () => {
    const report = makeReport({
      2024: year(
        { net_cf_operating: w(-20), sales_cash: w(10) },
        { revenue: '0.00', net_profit: w(-100) },
        {},
      ),
    });
    const { sp_result, risk_items } = run(report, 'comparative');
    expect(sp_result).toMatchObject({ ocf_to_net_profit: null, sales_cash_ratio: null });
    expect(risk_items).toEqual([]);
    assertPlainJson(sp_result);
  });

  it('no cash flow statement: nulls and one info item, series of nulls except the balance-side change', () => {
    const report = makeReport({
      2023: { income: { revenue: w(10) }, balance: { cash_and_equivalents: [w(5), w(4)] } },
      2024: { income: { revenue: w(12) }, balance: { cash_and_equivalents: [w(7), w(5)] } },
    });
    const { sp_result, risk_items } = run(report, 'comparative');
    expect(sp_result).toEqual({
      released_year: 2024,
      checked_years: null,
      checked_pairs: null,
      mismatch_count: null,
      consistent: null,
      summary: '未提交现金流量表，无法进行报表勾稽核对。',
      mismatches: [],
      net_increase_cash: null,
      cash_change: 2,
      cash_difference: null,
      non_equivalent_cash: null,
      non_equivalent_cash_share: null,
      ocf_to_net_profit: null,
      sales_cash_ratio: null,
      series: [
        {
          year: 2023,
          net_increase_cash: null,
          cash_change: 1,
          cash_difference: null,
          non_equivalent_cash: null,
          non_equivalent_cash_share: null,
          ocf_to_net_profit: null,
          sales_cash_ratio: null,
        },
        {
          year: 2024,
          net_increase_cash: null,
          cash_change: 2,
          cash_difference: null,
          non_equivalent_cash: null,
          non_equivalent_cash_share: null,
          ocf_to_net_profit: null,
          sales_cash_ratio: null,
        },
      ],
    });
    expect(risk_items).toEqual([
      {
        level: 'info',
        code: 'comparative.not_submitted',
        message: '未提交现金流量表，无法将现金流量表与资产负债表、利润表进行勾稽核对。',
      },
    ]);
  });
});

// ————————————————————————————————————————————————————————————————————————————————————————————————
// edge cases: statement arithmetic

describe('statement_arithmetic edge cases', () => {
  const arithmetic = (years: Record<number, YearInput>, standard?: NormalisedReport['standard']) =>
    run(makeReport(years, { standard }), 'statement_arithmetic');

  it('a shortfall that unsubmitted lines could explain is info and lists them', () => {
    // 流动资产合计 500 vs submitted 货币资金 200 + 存货 250 = 450: 50 short; the other current-asset lines of
    // general_new were not submitted.
    const { sp_result, risk_items } = arithmetic({
      2024: { balance: { cash_and_equivalents: w(200), inventory: w(250), total_current_assets: w(500) } },
    });
    const [mismatch] = sp_result.mismatches as Record<string, unknown>[];
    expect(mismatch).toMatchObject({
      year: 2024,
      sheet: 'balance',
      sheet_label: '资产负债表',
      item: 'total_current_assets',
      item_label: '流动资产合计',
      reported: 500,
      computed: 450,
      difference: 50,
    });
    expect(mismatch?.unsubmitted_lines).toContain('应收账款');
    expect(mismatch?.unsubmitted_lines).not.toContain('货币资金');
    expect(risk_items).toHaveLength(1);
    expect(risk_items[0]).toMatchObject({ level: 'info', code: 'statement_arithmetic.subtotal_gap' });
    expect(risk_items[0]?.message).toMatch(
      /^2024年资产负债表“流动资产合计”为500\.00万元，已提交项目按流动资产各项目之和计算为450\.00万元，差额50\.00万元；未提交的项目（交易性金融资产、衍生金融资产、应收票据、应收账款、应收款项融资、预付款项等\d+项）可能构成该差额，请核实。$/,
    );
  });

  it('details exceeding a non-negative subtotal cannot be omissions: warning, or danger when material', () => {
    // 450 + 100 = 550 > 500: −50 = 5% of total assets 1000 → danger; TA = 500 + 500 holds.
    const { risk_items } = arithmetic({
      2024: {
        balance: {
          cash_and_equivalents: w(450),
          inventory: w(100),
          total_current_assets: w(500),
          fixed_assets_net: w(500),
          total_noncurrent_assets: w(500),
          total_assets: w(1000),
        },
      },
    });
    expect(risk_items).toEqual([
      {
        level: 'danger',
        code: 'statement_arithmetic.subtotal_mismatch',
        message:
          '2024年资产负债表“流动资产合计”为500.00万元，按流动资产各项目之和计算为550.00万元，差额-50.00万元，占2024年末资产总计的5.00%。',
      },
    ]);
  });

  it('treasury stock is subtracted; the accounting equation is checked; totals need their subtotals', () => {
    const balance: Lines = {
      total_current_assets: w(400),
      total_noncurrent_assets: w(600),
      total_assets: w(1000),
      total_current_liabilities: w(300),
      total_noncurrent_liabilities: w(100),
      total_liabilities: w(400),
      // 300 + 100 − 20 + 50 + 170 = 600
      paid_in_capital: w(300),
      capital_reserve: w(100),
      treasury_stock: w(20),
      surplus_reserve: w(50),
      retained_earnings: w(170),
      total_shareholders_equity: w(600),
      total_liabilities_and_equity: w(1000),
    };
    expect(arithmetic({ 2024: { balance } }).risk_items).toEqual([]);

    // Equity overstated by 0.01 yuan (whole-yuan transcription): below 1 yuan per line, no mismatch at all —
    // never a message stating a difference of 0.00.
    const rounding = arithmetic({
      2024: {
        balance: {
          ...balance,
          total_shareholders_equity: '6000000.01',
          total_liabilities_and_equity: '10000000.01',
        },
      },
    });
    expect(rounding.risk_items).toEqual([]);
    expect(rounding.sp_result.mismatches).toEqual([]);

    // A statement in whole 万元 (every amount a multiple of 10,000 yuan, as a filing published in 万元): each line
    // may be off by up to 0.5万元, so equity 1万元 above its five lines is rounding, not a mismatch — but TA and
    // TLE are one figure rounded twice, and 1万元 between them is a break.
    const roundedOff = arithmetic({
      2024: {
        balance: { ...balance, total_shareholders_equity: w(601), total_liabilities_and_equity: w(1001) },
      },
    });
    expect((roundedOff.sp_result.mismatches as { item: string }[]).map((m) => m.item)).toEqual([
      'total_assets',
    ]);
    // The same 1万元 in a statement entered to the yuan is no rounding: equity is reported too.
    const toTheYuan = arithmetic({
      2024: {
        balance: {
          ...balance,
          paid_in_capital: '3000000.40',
          capital_reserve: '999999.60',
          total_shareholders_equity: w(605),
          total_liabilities_and_equity: w(1005),
        },
      },
    });
    expect((toTheYuan.sp_result.mismatches as { item: string }[]).map((m) => m.item)).toEqual([
      'total_assets',
      'total_shareholders_equity',
    ]);

    // Equity and 负债和所有者权益总计 overstated by 5万元: TE ≠ its lines (signed lines left out could explain
    // it) and TA ≠ TLE — the balance identity reported once, against 负债和所有者权益总计.
    const off = arithmetic({
      2024: {
        balance: {
          ...balance,
          total_shareholders_equity: w(605),
          total_liabilities_and_equity: w(1005),
        },
      },
    });
    // Most severe first: the break before the explained gap, in the risks and in the mismatch table alike.
    expect(off.risk_items.map((i) => [i.level, i.code])).toEqual([
      ['warning', 'statement_arithmetic.subtotal_mismatch'],
      ['info', 'statement_arithmetic.subtotal_gap'],
    ]);
    expect((off.sp_result.mismatches as { item: string }[]).map((m) => m.item)).toEqual([
      'total_assets',
      'total_shareholders_equity',
    ]);
    expect(off.risk_items[0]?.message).toBe(
      '2024年资产负债表“资产总计”为1000.00万元，按负债和所有者权益总计（资产 = 负债 + 所有者权益）计算为1005.00万元，差额-5.00万元，占2024年末资产总计的0.50%。',
    );
    expect(off.sp_result.mismatches).toHaveLength(2);

    // Without 负债和所有者权益总计 the identity is checked against 负债合计 + 所有者权益合计 — still once.
    const { total_liabilities_and_equity: _tle, ...withoutTle } = balance;
    const noTle = arithmetic({
      2024: { balance: { ...withoutTle, total_shareholders_equity: w(605), retained_earnings: w(175) } },
    });
    expect(noTle.risk_items.map((i) => [i.level, i.code])).toEqual([
      ['warning', 'statement_arithmetic.subtotal_mismatch'],
    ]);
    expect(noTle.risk_items[0]?.message).toContain(
      '按负债合计 + 所有者权益合计（资产 = 负债 + 所有者权益）计算为1005.00万元',
    );

    // Without total_noncurrent_assets, total assets = current + non-current cannot be checked.
    const partial = arithmetic({
      2024: { balance: { total_current_assets: w(400), total_assets: w(1000) } },
    });
    expect(partial.sp_result).toMatchObject({ checked_pairs: 0, consistent: null });
    expect(partial.sp_result.summary).toContain('没有可核对');
  });

  it('income chain under the normalised sign convention (impairment losses negative and added)', () => {
    const income: Lines = {
      revenue: w(1000),
      operating_cost: w(600),
      taxes_and_dues: w(10),
      sales_expenses: w(50),
      administrative_expenses: w(60),
      rd_expenses: w(40),
      financial_expenses: w(10),
      interest_expense: w(12), // a breakdown of financial_expenses: never added again
      other_income: w(5),
      investment_income: w(20),
      fair_value_change: w(-3),
      credit_impairment: w(-8),
      asset_impairment: w(-4),
      asset_disposal_gain: w(1),
      // 1000 − 600 − 10 − 50 − 60 − 40 − 10 + 5 + 20 − 3 − 8 − 4 + 1 = 241
      operating_profit: w(241),
      non_operating_income: w(6),
      non_operating_expenses: w(2),
      total_profit: w(245),
      income_tax_expense: w(45),
      net_profit: w(200),
    };
    expect(arithmetic({ 2024: { income } }).sp_result).toMatchObject({ checked_pairs: 3, mismatch_count: 0 });

    // Net profit 210 ≠ 245 − 45 with every line submitted → 10 = 1% of revenue → danger.
    const wrong = arithmetic({ 2024: { income: { ...income, net_profit: w(210) } } });
    expect(wrong.risk_items).toEqual([
      {
        level: 'danger',
        code: 'statement_arithmetic.subtotal_mismatch',
        message:
          '2024年利润表“净利润”为210.00万元，按利润总额 − 所得税费用计算为200.00万元，差额10.00万元，占2024年营业收入的1.00%。',
      },
    ]);
  });

  it('cash flow: without subtotals the nets are checked against the detail lines (small enterprise)', () => {
    const cash: Lines = {
      sales_cash: w(500),
      other_op_cash_in: w(20),
      purchase_cash: w(300),
      salary_paid: w(100),
      tax_paid: w(30),
      other_op_cash_out: w(10),
      net_cf_operating: w(80), // 520 − 440
      asset_purchase: w(50),
      net_cf_investing: w(-50),
      borrowings_received: w(40),
      interest_paid: w(5),
      dividends_paid: w(10),
      net_cf_financing: w(25), // 40 − 5 − 10
      net_increase_cash: w(55),
      cash_beginning: w(100),
      cash_ending: w(155),
    };
    const ok = arithmetic({ 2024: { cash_flow: cash } }, 'small_enterprise');
    expect(ok.sp_result).toMatchObject({ checked_pairs: 5, mismatch_count: 0 });

    // Operating net 90: the detail lines say 80; small_enterprise lacks only the subtotal lines, every operating
    // line was submitted except 收到的税费返还, which is not in its format → a real error: 10 = 2% of revenue.
    const wrong = run(
      makeReport(
        {
          2024: {
            income: { revenue: w(500) },
            cash_flow: { ...cash, net_cf_operating: w(90), net_increase_cash: w(65), cash_ending: w(165) },
          },
        },
        { standard: 'small_enterprise' },
      ),
      'statement_arithmetic',
    );
    expect(wrong.risk_items).toEqual([
      {
        level: 'danger',
        code: 'statement_arithmetic.subtotal_mismatch',
        message:
          '2024年现金流量表“经营活动产生的现金流量净额”为90.00万元，按经营活动现金流入各项目之和 − 经营活动现金流出各项目之和计算为80.00万元，差额10.00万元，占2024年营业收入的2.00%。',
      },
    ]);
  });

  it('a general-standard net increase off by an unsubmitted FX effect is info', () => {
    const { risk_items } = arithmetic({
      2024: {
        cash_flow: {
          net_cf_operating: w(80),
          net_cf_investing: w(-50),
          net_cf_financing: w(25),
          net_increase_cash: w(57),
        },
      },
    });
    expect(risk_items).toHaveLength(1);
    expect(risk_items[0]).toMatchObject({ level: 'info', code: 'statement_arithmetic.subtotal_gap' });
    expect(risk_items[0]?.message).toContain('汇率变动对现金及现金等价物的影响');
  });
});

// ————————————————————————————————————————————————————————————————————————————————————————————————
// distress signals

describe('distress score formulas against published vectors', () => {
  const d = (s: string) => num(s);

  it('Altman Z: FinanceToolkit AAPL 2020 components give 7.0392', () => {
    const z = altmanZ({ x1: d('0.1183'), x2: d('0.0462'), x3: d('0.216'), x4: d('8.7869'), x5: d('0.8476') });
    expect(z?.toDecimalPlaces(4).toString()).toBe('7.0392');
  });

  it('Beneish M: the Moutai FY2023 components (DEPI defaulted to 1) give −0.7421', () => {
    const m = beneishM({
      dsri: d('2.4429'),
      gmi: d('0.9997'),
      aqi: d('1.092'),
      sgi: d('1.1804'),
      depi: d('1'),
      sgai: d('1.0009'),
      lvgi: d('0.9235'),
      tata: d('0.0401'),
    });
    expect(m?.toDecimalPlaces(4).toString()).toBe('-0.7421');
  });

  it('Z″ and the zone boundaries (both cut-offs belong to the grey zone); a missing input gives null', () => {
    // 6.56·0.3 + 3.26·0.2 + 6.72·0.1 + 1.05·1 = 1.968 + 0.652 + 0.672 + 1.05 = 4.342
    const x = { x1: d('0.3'), x2: d('0.2'), x3: d('0.1'), x4: d('1'), x5: d('1.2') };
    expect(altmanZDoublePrime(x)?.toString()).toBe('4.342');
    expect(altmanZ({ ...x, x4: null })).toBeNull();
    const cut = { distress: 1.81, safe: 2.99 };
    expect(zoneOf(d('1.81'), cut)).toBe('grey');
    expect(zoneOf(d('2.99'), cut)).toBe('grey');
    expect(zoneOf(d('1.8099'), cut)).toBe('distress');
    expect(zoneOf(d('2.9901'), cut)).toBe('safe');
    expect(zoneOf(null, cut)).toBeNull();
  });
});

/**
 * A hand-checked company, in 万元. 2024 is scored against 2023; 2023's own prior columns carry the end of 2022.
 */
const HEALTHY: Record<number, YearInput> = {
  2023: {
    income: {
      revenue: [w(1000), w(900)],
      operating_cost: [w(700), w(630)],
      sales_expenses: w(50),
      administrative_expenses: w(50),
      total_profit: w(50),
      interest_expense: w(20),
      net_profit: [w(40), w(35)],
    },
    balance: {
      total_current_assets: [w(500), w(400)],
      total_current_liabilities: [w(300), w(250)],
      total_assets: [w(800), w(700)],
      accounts_receivable: [w(80), w(70)],
      fixed_assets_net: [w(200), w(200)],
      long_term_borrowings: [w(100), w(100)],
      total_liabilities: [w(400), w(350)],
      total_shareholders_equity: [w(400), w(350)],
      paid_in_capital: [w(200), w(200)],
      capital_reserve: [w(100), w(100)],
      surplus_reserve: [w(40), w(30)],
      retained_earnings: [w(110), w(70)],
    },
    cash_flow: { net_cf_operating: w(45) },
  },
  2024: {
    income: {
      revenue: [w(1200), w(1000)],
      operating_cost: [w(900), w(700)],
      sales_expenses: w(60),
      administrative_expenses: w(60),
      total_profit: w(80),
      interest_expense: w(20),
      net_profit: [w(60), w(40)],
    },
    balance: {
      total_current_assets: [w(600), w(500)],
      total_current_liabilities: [w(300), w(300)],
      total_assets: [w(1000), w(800)],
      accounts_receivable: [w(120), w(80)],
      fixed_assets_net: [w(200), w(200)],
      long_term_borrowings: [w(100), w(100)],
      total_liabilities: [w(500), w(400)],
      total_shareholders_equity: [w(500), w(400)],
      paid_in_capital: [w(200), w(200)],
      capital_reserve: [w(100), w(100)],
      surplus_reserve: [w(50), w(40)],
      retained_earnings: [w(150), w(110)],
    },
    cash_flow: { net_cf_operating: w(90) },
  },
};

describe('distress_signals on a hand-checked company', () => {
  const manufacturing = { industry_sector_code: 'C' };

  it('2024, component by component', () => {
    const { sp_result, risk_items } = run(makeReport(HEALTHY, { info: manufacturing }), 'distress_signals');
    expect(sp_result).toMatchObject({
      released_year: 2024,
      // X1 = (600 − 300)/1000 = 0.3; X2 = (50 + 150)/1000 = 0.2; X3 = (80 + 20)/1000 = 0.1;
      // X4 = 500/500 = 1; X5 = 1200/1000 = 1.2
      altman_x1: 0.3,
      altman_x2: 0.2,
      altman_x3: 0.1,
      altman_x4: 1,
      altman_x5: 1.2,
      // Z′ = 0.717·0.3 + 0.847·0.2 + 3.107·0.1 + 0.420·1 + 0.998·1.2 = 2.3128 (grey: 1.23–2.90);
      // Z'' = 4.342 (safe); the 1968 Z needs a market value of equity: none is submitted, so null
      altman_z: null,
      altman_z_zone: null,
      altman_z_prime: 2.31,
      altman_z_prime_zone: 'grey',
      altman_z_double_prime: 4.34,
      altman_z_double_prime_zone: 'safe',
      altman_headline_model: 'z_prime',
      altman_headline_score: 2.31,
      altman_headline_zone: 'grey',
      // DSRI = (120/1200)/(80/1000) = 1.25; GMI = 0.30/0.25 = 1.2; AQI = (1 − 800/1000)/(1 − 700/800) = 0.2/0.125
      // = 1.6; SGI = 1.2; SGAI = 0.1/0.1 = 1; LVGI = (400/1000)/(400/800) = 0.8; TATA = (60 − 90)/1000 = −0.03
      beneish_dsri: 1.25,
      beneish_gmi: 1.2,
      beneish_aqi: 1.6,
      beneish_sgi: 1.2,
      beneish_depi: 1,
      beneish_sgai: 1,
      beneish_lvgi: 0.8,
      beneish_tata: -0.03,
      // −4.84 + 1.15 + 0.6336 + 0.6464 + 1.0704 + 0.115 − 0.172 − 0.14037 − 0.2616 = −1.79857: just below −1.78
      beneish_m: -1.8,
      // ROA = 60/800 = 7.5% ✓; CFO 90 > 0 ✓ (90/800 = 11.25%); ΔROA = 7.5% − 40/700 = 1.79pp ✓;
      // accrual = 7.5% − 11.25% = −3.75pp ✓; leverage 100/900 − 100/750 = −2.22pp ✓;
      // current ratio 2 − 5/3 = 0.33 ✓; capital 300 − 300 = 0 ✓; gross margin 25% − 30% = −5pp ✗;
      // turnover 1200/800 − 1000/700 = 0.07 ✓  → F = 8
      piotroski_roa: 7.5,
      piotroski_roa_signal: 1,
      piotroski_cfo: 11.25,
      piotroski_cfo_signal: 1,
      piotroski_delta_roa: 1.79,
      piotroski_delta_roa_signal: 1,
      piotroski_accrual: -3.75,
      piotroski_accrual_signal: 1,
      piotroski_delta_leverage: -2.22,
      piotroski_delta_leverage_signal: 1,
      piotroski_delta_current_ratio: 0.33,
      piotroski_delta_current_ratio_signal: 1,
      piotroski_equity_offer: 0,
      piotroski_equity_offer_signal: 1,
      piotroski_delta_gross_margin: -5,
      piotroski_delta_gross_margin_signal: 0,
      piotroski_delta_asset_turnover: 0.07,
      piotroski_delta_asset_turnover_signal: 1,
      piotroski_signals_available: 9,
      piotroski_signals_passed: 8,
      piotroski_f: 8,
    });
    expect(risk_items).toEqual([
      {
        level: 'warning',
        code: 'distress_signals.altman_z_prime_zone',
        message:
          "2024年Altman Z'值（制造业非上市公司模型，账面所有者权益）为2.31，介于1.23与2.90之间，处于灰色区，需关注财务状况恶化的可能。",
      },
      {
        level: 'info',
        code: 'distress_signals.piotroski_f_high',
        message: '2024年Piotroski F值为8分（满分9分），达到8分及以上，财务基本面强健。',
      },
    ]);
    assertPlainJson(sp_result);
  });

  it('the first year: Altman from its own balances; Beneish from its prior columns; F needs t − 2', () => {
    const { sp_result } = run(makeReport(HEALTHY, { info: manufacturing }), 'distress_signals');
    const first = (sp_result.series as Record<string, unknown>[])[0]!;
    expect(first).toMatchObject({
      year: 2023,
      // Z′ = 0.717·0.25 + 0.847·0.1875 + 3.107·0.0875 + 0.420·1 + 0.998·1.25 = 2.277425
      altman_z_prime: 2.28,
      altman_z: null,
      // DSRI = (80/1000)/(70/900) = 1.0286; SGI = 1000/900 = 1.1111; 2022's expenses were not sent → SGAI null
      beneish_dsri: 1.03,
      beneish_sgi: 1.11,
      beneish_sgai: null,
      beneish_m: null,
      // ROA = 40/700 = 5.71% is known, but the 2022 ratios need the end of 2021
      piotroski_roa: 5.71,
      piotroski_delta_roa: null,
      piotroski_f: null,
    });
  });

  it('outside manufacturing the headline is Z″ (here safe: no zone item)', () => {
    const report = makeReport(HEALTHY, { info: { industry_sector_code: 'F' } });
    const { sp_result, risk_items } = run(report, 'distress_signals');
    expect(sp_result).toMatchObject({
      altman_headline_model: 'z_double_prime',
      altman_headline_score: 4.34,
      altman_headline_zone: 'safe',
      altman_z_prime_zone: 'grey',
    });
    // Safe zone and F = 8 are strengths (moved to strengths by the engine), not risks.
    expect(codes(risk_items)).toEqual(['distress_signals.altman_safe', 'distress_signals.piotroski_f_high']);
    // No enterprise_info at all → Z″ as well.
    expect(run(makeReport(HEALTHY), 'distress_signals').sp_result.altman_headline_model).toBe(
      'z_double_prime',
    );
  });

  it('a distressed year: Z′ in the distress zone (danger), M above −1.78, F ≤ 2', () => {
    const weak: Record<number, YearInput> = {
      2023: HEALTHY[2023]!,
      2024: {
        income: {
          revenue: w(500),
          operating_cost: w(450),
          sales_expenses: w(30),
          administrative_expenses: w(30),
          total_profit: w(-50),
          interest_expense: w(20),
          net_profit: w(-60),
        },
        balance: {
          total_current_assets: w(300),
          total_current_liabilities: w(500),
          total_assets: w(1000),
          accounts_receivable: w(100),
          fixed_assets_net: w(500),
          long_term_borrowings: w(300),
          total_liabilities: w(900),
          total_shareholders_equity: w(100),
          paid_in_capital: w(400),
          capital_reserve: w(0),
          surplus_reserve: w(0),
          retained_earnings: w(-300),
        },
        cash_flow: { net_cf_operating: w(-100) },
      },
    };
    const { sp_result, risk_items } = run(
      makeReport(weak, { info: { industry_sector_code: 'C' } }),
      'distress_signals',
    );
    // Z′ = 0.717·(−0.2) + 0.847·(−0.3) + 3.107·(−0.03) + 0.420·(100/900) + 0.998·0.5 = 0.054957
    // M: DSRI (100/500)/(0.08) = 2.5, GMI 0.3/0.1 = 3, AQI 0.2/0.125 = 1.6, SGI 0.5, SGAI 0.12/0.1 = 1.2,
    //    LVGI 0.8/0.5 = 1.6, TATA (−60 + 100)/1000 = 0.04 → −4.84 + 2.3 + 1.584 + 0.6464 + 0.446 + 0.115 − 0.2064
    //    + 0.18716 − 0.5232 = −0.29104
    // F: every signal fails (capital 400 vs 300 is an issue of shares) → 0
    expect(sp_result).toMatchObject({
      altman_z_prime: 0.05,
      altman_z_prime_zone: 'distress',
      beneish_m: -0.29,
      piotroski_f: 0,
      piotroski_signals_passed: 0,
      piotroski_equity_offer: 100,
    });
    expect(risk_items.map((i) => [i.level, i.code])).toEqual([
      ['danger', 'distress_signals.altman_z_prime_zone'],
      ['warning', 'distress_signals.beneish_m_high'],
      ['warning', 'distress_signals.piotroski_f_low'],
    ]);
    expect(risk_items[0]?.message).toBe(
      "2024年Altman Z'值（制造业非上市公司模型，账面所有者权益）为0.05，低于1.23，处于困境区，财务困境风险较高。",
    );
    expect(risk_items[1]?.message).toBe(
      '2024年Beneish M值为-0.29，高于-1.78，存在盈余操纵的可能（DSRI 2.50、GMI 3.00、AQI 1.60、SGI 0.50、DEPI 1.00、SGAI 1.20、LVGI 1.60、TATA 0.04）。',
    );
    expect(risk_items[2]?.message).toBe(
      '2024年Piotroski F值为0分（满分9分），不高于2分，财务基本面偏弱；未通过的信号：总资产收益率为正、经营活动现金流量净额为正、总资产收益率提高、经营现金回报高于总资产收益率、长期负债率下降、流动比率提高、未增发股本（实收资本与资本公积未增加）、毛利率提高、总资产周转率提高。',
    );
  });

  it('zero denominators and missing statements give nulls, never NaN; no cash flow → no M, no F', () => {
    const report = makeReport({
      2023: {
        income: { revenue: '0.00', operating_cost: '0.00', net_profit: '0.00', total_profit: '0.00' },
        balance: {
          total_assets: ['0.00', '0.00'],
          total_liabilities: '0.00',
          total_shareholders_equity: '0.00',
        },
      },
      2024: {
        income: { revenue: [w(10), '0.00'], operating_cost: w(5), net_profit: w(1), total_profit: w(1) },
        balance: {
          total_assets: [w(10), '0.00'],
          total_liabilities: '0.00',
          total_shareholders_equity: w(10),
        },
      },
    });
    const { sp_result, risk_items } = run(report, 'distress_signals');
    expect(sp_result).toMatchObject({
      altman_x4: null, // no liabilities
      altman_z: null,
      altman_z_double_prime: null,
      altman_headline_zone: null,
      beneish_sgi: null, // prior revenue 0
      beneish_m: null,
      piotroski_roa: null, // beginning total assets 0
      piotroski_f: null,
    });
    expect(risk_items).toEqual([]);
    assertPlainJson(sp_result);
  });

  it('no long-term debt in either year has not raised leverage: F5 passes', () => {
    const noDebt = structuredClone(HEALTHY);
    for (const y of [2023, 2024]) delete noDebt[y]!.balance!.long_term_borrowings;
    const { sp_result } = run(makeReport(noDebt), 'distress_signals');
    expect(sp_result).toMatchObject({ piotroski_delta_leverage: 0, piotroski_delta_leverage_signal: 1 });
  });
});

describe('Beneish: tiny prior-year receivables inflate DSRI (risk_scores.md, Moutai FY2023 case)', () => {
  // Receivables 60.37m against 20.94m on revenue 150 560m against 127 554m: DSRI ≈ 2.44 although receivables
  // are 0.02–0.04% of revenue. The other indices are set near the published Moutai ones.
  const build = (priorReceivables: string) =>
    makeReport({
      2022: {
        income: {
          revenue: '127553959355.97',
          operating_cost: '10370136895.64',
          sales_expenses: '3298000000.00',
          administrative_expenses: '8337000000.00',
          net_profit: '65375000000.00',
        },
        balance: {
          accounts_receivable: priorReceivables,
          total_current_assets: '205000000000.00',
          fixed_assets_net: '20000000000.00',
          total_assets: '254364804995.25',
          total_current_liabilities: '47000000000.00',
        },
        cash_flow: { net_cf_operating: '36699000000.00' },
      },
      2023: {
        income: {
          revenue: '150560330316.45',
          operating_cost: '12195386755.63',
          sales_expenses: '4648000000.00',
          administrative_expenses: '9081000000.00',
          net_profit: '77520000000.00',
        },
        balance: {
          accounts_receivable: '60370000.00',
          total_current_assets: '218159728073.80',
          fixed_assets_net: '20000000000.00',
          total_assets: '272699660092.25',
          total_current_liabilities: '46000000000.00',
        },
        cash_flow: { net_cf_operating: '66590000000.00' },
      },
    });

  it('flags a likely manipulator only because of DSRI, and says so', () => {
    const raw = build('20940000.00');
    const { sp_result, risk_items } = run(raw, 'distress_signals');
    // DSRI = (60.37/150560.330) / (20.94/127553.959) = 2.4424…
    expect(sp_result.beneish_dsri).toBe(2.44);
    expect(sp_result.beneish_m as number).toBeGreaterThan(-1.78);
    const beneish = risk_items.find((i) => i.code === 'distress_signals.beneish_m_high');
    expect(beneish?.level).toBe('warning');
    expect(beneish?.message).toContain('DSRI 2.44');
    // 20.94m / 127 553.96m = 0.0164% of revenue
    expect(beneish?.message).toContain('上年应收账款仅占营业收入的0.02%，DSRI可能因基数过小而被放大');
  });

  it('with prior receivables in proportion to revenue (DSRI ≈ 1) the same company is not flagged', () => {
    // 60.37m × 127 553.96 / 150 560.33 ≈ 51.145m
    const { sp_result, risk_items } = run(build('51145000.00'), 'distress_signals');
    expect(sp_result.beneish_dsri).toBe(1);
    expect(sp_result.beneish_m as number).toBeLessThan(-1.78);
    expect(codes(risk_items)).not.toContain('distress_signals.beneish_m_high');
  });
});
