/**
 * Edge cases of the indicator engine on small hand-built reports. Amounts are chosen so the expected values can
 * be worked out by hand; each expectation shows its arithmetic.
 */
import { describe, expect, it } from 'vitest';
import { ANALYSIS_SLUGS, computeAnalysis, getAnalysisModule } from '../../worker/engine/registry.ts';
import type { AnalysisOutput, NormalisedReport } from '../../worker/types.ts';
import { type Lines, makeReport, type YearInput } from '../helpers/engineFixtures.ts';

function analyse(report: NormalisedReport, slug: string): AnalysisOutput {
  const [out] = computeAnalysis(report, [slug]);
  if (!out) throw new Error('no output');
  return out;
}

/** Every number anywhere in the value is finite. */
function assertFiniteEverywhere(value: unknown, path = '$'): void {
  if (typeof value === 'number') {
    expect(Number.isFinite(value), path).toBe(true);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      assertFiniteEverywhere(v, `${path}[${i}]`);
    });
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) assertFiniteEverywhere(v, `${path}.${k}`);
  } else {
    expect(['string', 'boolean', 'object'].includes(typeof value) || value === null, path).toBe(true);
  }
}

/** A plain healthy year: used as the base of several cases. */
const healthy = (revenue = '1000000.00'): YearInput => ({
  income: {
    revenue: [revenue, '1000000.00'],
    operating_cost: '600000.00',
    non_operating_income: '0.00',
    total_profit: '150000.00',
    interest_expense: '10000.00',
    net_profit: '100000.00',
  },
  balance: {
    total_current_assets: ['500000.00', '500000.00'],
    inventory: ['100000.00', '100000.00'],
    cash_and_equivalents: ['200000.00', '200000.00'],
    total_current_liabilities: ['250000.00', '250000.00'],
    total_assets: ['1000000.00', '1000000.00'],
    total_liabilities: ['400000.00', '400000.00'],
    total_shareholders_equity: ['600000.00', '600000.00'],
    accounts_receivable: ['100000.00', '100000.00'],
    accounts_payable: ['60000.00', '60000.00'],
  },
});

describe('zero denominators give null, never NaN or Infinity', () => {
  const report = makeReport({
    2023: healthy(),
    2024: {
      income: {
        revenue: '0.00',
        non_operating_income: '0.00',
        operating_cost: '0.00',
        net_profit: '0.00',
        total_profit: '0.00',
        interest_expense: '0.00',
      },
      balance: {
        total_current_assets: ['0.00', '0.00'],
        inventory: ['0.00', '0.00'],
        cash_and_equivalents: ['0.00', '0.00'],
        total_current_liabilities: ['0.00', '0.00'],
        total_assets: ['0.00', '0.00'],
        total_liabilities: ['0.00', '0.00'],
        total_shareholders_equity: ['0.00', '0.00'],
        accounts_receivable: ['0.00', '0.00'],
        accounts_payable: ['0.00', '0.00'],
      },
    },
  });
  const out = computeAnalysis(report, ANALYSIS_SLUGS);
  const sp = (slug: string) => out.find((o) => o.slug === slug)!.sp_result;

  it('ratios and turnovers of the zero year are null; amounts are 0', () => {
    expect(sp('revenue')).toMatchObject({
      operating_revenue: 0,
      non_operating_revenue: 0,
      operating_revenue_ratio: null,
      operating_revenue_ratio_change: null,
    });
    expect(sp('profitability')).toMatchObject({
      gross_margin: null,
      net_margin: null,
      roe: null,
      roa: null,
      cost_expense_profit_margin: null,
    });
    expect(sp('short_term_liability')).toMatchObject({
      current_ratio: null,
      quick_ratio: null,
      cash_ratio: null,
      working_capital: 0,
    });
    expect(sp('long_term_liability')).toMatchObject({
      debt_to_asset_ratio: null,
      equity_multiplier: null,
      debt_to_equity_ratio: null,
      interest_coverage: null,
    });
    for (const key of [
      'total_asset_turnover',
      'receivable_turnover',
      'inventory_turnover',
      'payable_turnover',
    ]) {
      expect(sp('operational_efficiency')[key], key).toBeNull();
      expect(sp('operational_efficiency')[`${key}_days`], key).toBeNull();
    }
  });

  it('a null indicator raises no warning or danger and the output is JSON-safe', () => {
    // (falls to zero in revenue and the change-rate items, and the cross-checks' mismatches, are real findings tested
    // elsewhere; `info` items that say a statement or line was not submitted are expected)
    for (const o of out) {
      if (o.slug === 'revenue' || o.slug.endsWith('_change_rate')) continue;
      if (getAnalysisModule(o.slug).section === 'data_check') continue;
      expect(
        o.risk_items.filter((r) => r.level !== 'info'),
        o.slug,
      ).toEqual([]);
    }
    assertFiniteEverywhere(out);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });

  it('a zero-revenue year after a revenue year is a 100% decline', () => {
    expect(out.find((o) => o.slug === 'revenue')!.risk_items).toEqual([
      {
        level: 'warning',
        code: 'revenue.operating_revenue_decline',
        message:
          '2024年营业收入为0.00万元，较2023年的100.00万元下降100.00%，降幅超过20%，需关注业务收缩风险。',
      },
    ]);
  });
});

describe('partial statements: missing lines give null', () => {
  const report = makeReport({
    2023: { income: { revenue: '500000.00' }, balance: { total_assets: ['800000.00', '700000.00'] } },
    2024: { income: { revenue: '600000.00' }, balance: { total_assets: ['900000.00', '800000.00'] } },
  });
  const out = computeAnalysis(report, ANALYSIS_SLUGS);

  it('computes what the lines allow and nulls the rest', () => {
    const sp = (slug: string) => out.find((o) => o.slug === slug)!.sp_result;
    expect(sp('revenue')).toMatchObject({
      operating_revenue: 60,
      non_operating_revenue: null,
      operating_revenue_ratio: null,
    });
    // 600 000 / ((800 000 + 900 000) / 2) = 0.70588… → 0.71; 360 / 0.70588… = 510
    expect(sp('operational_efficiency')).toMatchObject({
      total_asset_turnover: 0.71,
      total_asset_turnover_days: 510,
      receivable_turnover: null,
      inventory_turnover_days: null,
    });
    expect(Object.values(sp('short_term_liability')).filter((v) => typeof v === 'number')).toEqual([2024]);
    expect(sp('profitability')).toMatchObject({
      gross_margin: null,
      roa: null,
      cost_expense_profit_margin: null,
    });
    expect(sp('long_term_liability')).toMatchObject({ debt_to_asset_ratio: null, interest_coverage: null });
  });

  it('the balance check compares only lines present in both years', () => {
    const check = out.find((o) => o.slug === 'balance_sheet')!;
    expect(check.sp_result).toMatchObject({ checked_year_pairs: 1, checked_pairs: 1, mismatch_count: 0 });
  });

  it('raises nothing above info outside the data checks, and stays JSON-safe', () => {
    // Absent lines make indicators null, not alarming; the data checks may legitimately report the gaps.
    const raised = out
      .filter((o) => getAnalysisModule(o.slug).section !== 'data_check')
      .flatMap((o) => o.risk_items)
      .filter((r) => r.level !== 'info');
    expect(raised).toEqual([]);
    assertFiniteEverywhere(out);
  });

  it('a year without any sheet still gets its series entry', () => {
    const sparse = makeReport({ 2023: {}, 2024: healthy() });
    const sp = analyse(sparse, 'short_term_liability').sp_result;
    expect(sp.series).toEqual([
      {
        year: 2023,
        current_ratio: null,
        quick_ratio: null,
        cash_ratio: null,
        cash_flow_liability_ratio: null,
        working_capital: null,
      },
      {
        year: 2024,
        current_ratio: 2,
        quick_ratio: 1.6,
        cash_ratio: 0.8,
        cash_flow_liability_ratio: null,
        working_capital: 25,
      },
    ]);
  });
});

describe('cost-expense profit margin', () => {
  it('counts missing expense lines as 0 but needs operating cost and total profit', () => {
    const base = makeReport({
      2024: {
        income: {
          total_profit: '150000.00',
          operating_cost: '600000.00',
          sales_expenses: '100000.00',
          financial_expenses: '-50000.00',
        },
      },
    });
    // 150 000 / (600 000 + 100 000 − 50 000) × 100 = 23.0769… → 23.08
    expect(analyse(base, 'profitability').sp_result.cost_expense_profit_margin).toBe(23.08);
    const noCost = makeReport({
      2024: { income: { total_profit: '150000.00', sales_expenses: '100000.00' } },
    });
    expect(analyse(noCost, 'profitability').sp_result.cost_expense_profit_margin).toBeNull();
  });
});

describe('negative equity', () => {
  const year: YearInput = {
    income: { revenue: '1000000.00', net_profit: '-200000.00', total_profit: '-200000.00' },
    balance: {
      total_assets: ['1000000.00', '1100000.00'],
      total_liabilities: ['1250000.00', '1150000.00'],
      total_shareholders_equity: ['-250000.00', '-50000.00'],
    },
  };
  const out = computeAnalysis(makeReport({ 2023: healthy(), 2024: year }), [
    'profitability',
    'long_term_liability',
  ]);
  const [profitability, longTerm] = out;

  it('ROE is null (a loss over negative equity would read as a positive return); ROA is still computed', () => {
    // ROA: −200 000 / ((1 100 000 + 1 000 000) / 2) × 100 = −19.047… → −19.05
    expect(profitability!.sp_result).toMatchObject({ roe: null, roa: -19.05, net_margin: -20 });
    // The loss is one fact, raised by net_profit.net_loss: no second risk for the negative net margin.
    expect(profitability!.risk_items).toEqual([]);
  });

  it('equity multiplier and debt-to-equity are computed (negative) and a danger is raised', () => {
    // 1 000 000 / −250 000 = −4; 1 250 000 / −250 000 × 100 = −500; 1 250 000 / 1 000 000 × 100 = 125
    expect(longTerm!.sp_result).toMatchObject({
      equity_multiplier: -4,
      debt_to_equity_ratio: -500,
      debt_to_asset_ratio: 125,
      total_shareholders_equity: -25,
    });
    // One fact: equity below zero is a debt ratio above 100 % — raised once, as negative equity.
    expect(longTerm!.risk_items).toEqual([
      {
        level: 'danger',
        code: 'long_term_liability.negative_equity',
        message: '2024年末所有者权益合计为-25.00万元，为负数，企业已资不抵债。',
      },
    ]);
  });
});

describe('risk tiers raise one item per rule, most severe first', () => {
  const withBalance = (overrides: Lines, income: Lines = {}): NormalisedReport => {
    const base = healthy();
    return makeReport({
      2023: healthy(),
      2024: { income: { ...base.income, ...income }, balance: { ...base.balance, ...overrides } },
    });
  };
  const levels = (out: AnalysisOutput) => out.risk_items.map((i) => `${i.code}:${i.level}`);

  it('current ratio: 0.8 → warning; 0.4 → danger only; quick ratio 0.4 → warning', () => {
    // CA 200 000 / CL 250 000 = 0.8; quick (200 000 − 100 000) / 250 000 = 0.4
    const warn = analyse(
      withBalance({ total_current_assets: ['200000.00', '500000.00'] }),
      'short_term_liability',
    );
    expect(levels(warn)).toEqual([
      'short_term_liability.current_ratio_low:warning',
      'short_term_liability.quick_ratio_low:warning',
    ]);
    expect(warn.risk_items[0]!.message).toBe(
      '2024年末流动比率为0.80，低于1，流动资产不足以覆盖流动负债，短期偿债压力较大。',
    );
    // 100 000 / 250 000 = 0.4; quick 0
    const danger = analyse(
      withBalance({ total_current_assets: ['100000.00', '500000.00'] }),
      'short_term_liability',
    );
    expect(levels(danger)).toEqual([
      'short_term_liability.current_ratio_low:danger',
      'short_term_liability.quick_ratio_low:warning',
    ]);
    expect(danger.risk_items[0]!.message).toContain('低于0.5');
  });

  it('exactly at a threshold is not below it', () => {
    // 250 000 / 250 000 = 1.00
    const atOne = analyse(
      withBalance({ total_current_assets: ['250000.00', '500000.00'] }),
      'short_term_liability',
    );
    expect(levels(atOne)).toEqual([]);
  });

  it('debt-to-asset 75% → warning, 90% → danger', () => {
    const warn = analyse(
      withBalance({ total_liabilities: ['750000.00', '400000.00'] }),
      'long_term_liability',
    );
    expect(levels(warn)).toEqual(['long_term_liability.debt_to_asset_ratio_high:warning']);
    const danger = analyse(
      withBalance({ total_liabilities: ['900000.00', '400000.00'] }),
      'long_term_liability',
    );
    expect(levels(danger)).toEqual(['long_term_liability.debt_to_asset_ratio_high:danger']);
  });

  it('interest coverage 1.2 → warning, 0.5 → danger, no interest → null and silent', () => {
    // (2 000 + 10 000) / 10 000 = 1.2
    const warn = analyse(withBalance({}, { total_profit: '2000.00' }), 'long_term_liability');
    expect(warn.sp_result.interest_coverage).toBe(1.2);
    expect(levels(warn)).toEqual(['long_term_liability.interest_coverage_low:warning']);
    expect(warn.risk_items[0]!.message).toBe(
      '2024年利息保障倍数为1.20，低于1.5，息税前利润对利息费用的保障不足。',
    );
    // (−5 000 + 10 000) / 10 000 = 0.5
    const danger = analyse(withBalance({}, { total_profit: '-5000.00' }), 'long_term_liability');
    expect(levels(danger)).toEqual(['long_term_liability.interest_coverage_low:danger']);
    const netInterestIncome = analyse(
      withBalance({}, { interest_expense: '-3000.00' }),
      'long_term_liability',
    );
    expect(netInterestIncome.sp_result.interest_coverage).toBeNull();
    expect(levels(netInterestIncome)).toEqual([]);
  });

  it('revenue decline: 25% → warning, 15% → nothing', () => {
    const fell25 = makeReport({ 2023: healthy('1000000.00'), 2024: healthy('750000.00') });
    expect(levels(analyse(fell25, 'revenue'))).toEqual(['revenue.operating_revenue_decline:warning']);
    expect(analyse(fell25, 'revenue').risk_items[0]!.message).toBe(
      '2024年营业收入为75.00万元，较2023年的100.00万元下降25.00%，降幅超过20%，需关注业务收缩风险。',
    );
    const fell15 = makeReport({ 2023: healthy('1000000.00'), 2024: healthy('850000.00') });
    expect(levels(analyse(fell15, 'revenue'))).toEqual([]);
  });

  it('turnover falling more than 30% year on year → warning', () => {
    // Total assets double (average 1 000 000 → 1 500 000 … ) while revenue is flat:
    // 2023: 1 000 000 / 1 000 000 = 1; 2024: 1 000 000 / ((1 000 000 + 2 000 000) / 2) = 0.667 → −33.3%
    const report = withBalance({ total_assets: ['2000000.00', '1000000.00'] });
    const out = analyse(report, 'operational_efficiency');
    expect(out.sp_result.total_asset_turnover).toBe(0.67);
    expect(out.risk_items).toEqual([
      {
        level: 'warning',
        code: 'operational_efficiency.total_asset_turnover_decline',
        message:
          '2024年总资产周转率为0.67次，较2023年的1.00次下降33.33%，降幅超过30%，资产运营效率明显下滑。',
      },
    ]);
  });

  it('rules look at the latest year only', () => {
    const early = healthy();
    const report = makeReport({
      2023: { ...early, balance: { ...early.balance, total_current_assets: ['100000.00', '500000.00'] } },
      2024: healthy(),
    });
    const out = analyse(report, 'short_term_liability');
    expect(out.sp_result.series).toMatchObject([
      { year: 2023, current_ratio: 0.4 },
      { year: 2024, current_ratio: 2 },
    ]);
    expect(out.risk_items).toEqual([]);
  });
});

describe('revenue share change', () => {
  it('uses the previous column for the first year; null when that column is absent', () => {
    const report = makeReport({
      2023: {
        income: { revenue: ['900000.00', '800000.00'], non_operating_income: ['100000.00', '200000.00'] },
      },
      2024: { income: { revenue: ['950000.00', null], non_operating_income: ['50000.00', null] } },
    });
    const sp = analyse(report, 'revenue').sp_result;
    // 2023: 90% − 80% = 10 points; 2024: 95% − 90% (the submitted 2023 figures) = 5 points
    expect(sp.series).toEqual([
      {
        year: 2023,
        operating_revenue: 90,
        non_operating_revenue: 10,
        operating_revenue_ratio: 90,
        operating_revenue_ratio_change: 10,
      },
      {
        year: 2024,
        operating_revenue: 95,
        non_operating_revenue: 5,
        operating_revenue_ratio: 95,
        operating_revenue_ratio_change: 5,
      },
    ]);
    const noPrevious = makeReport({
      2023: { income: { revenue: '900000.00', non_operating_income: '100000.00' } },
      2024: { income: { revenue: '950000.00', non_operating_income: '50000.00' } },
    });
    expect(analyse(noPrevious, 'revenue').sp_result.series).toMatchObject([
      { year: 2023, operating_revenue_ratio_change: null },
      { year: 2024, operating_revenue_ratio_change: 5 },
    ]);
  });
});

describe('balance sheet cross-check', () => {
  const twoYears = (beginningInventory: string, totalAssets2023: string | null) =>
    makeReport({
      2023: {
        balance: {
          inventory: ['100000.00', '90000.00'],
          ...(totalAssets2023 === null ? {} : { total_assets: [totalAssets2023, '900000.00'] }),
        },
      },
      2024: {
        balance: { inventory: ['120000.00', beginningInventory], total_assets: ['1100000.00', '1000000.00'] },
      },
    });

  it('a difference below 1 yuan, or that rounds to 0.00 万元, is no mismatch — never a message of 差额0.00', () => {
    // 0.01 yuan and 0.99 yuan: whole-yuan transcription
    expect(analyse(twoYears('100000.01', '1000000.00'), 'balance_sheet').risk_items).toEqual([]);
    expect(analyse(twoYears('100000.99', '1000000.00'), 'balance_sheet').sp_result.mismatches).toEqual([]);
    // 49 yuan rounds to 0.00 万元: still none
    expect(analyse(twoYears('100049.00', '1000000.00'), 'balance_sheet').risk_items).toEqual([]);
    // 50 yuan is 0.01 万元: reported (a restatement below 1% of total assets is information)
    const out = analyse(twoYears('100050.00', '1000000.00'), 'balance_sheet');
    expect(out.risk_items).toEqual([
      {
        level: 'info',
        code: 'balance_sheet.opening_mismatch',
        message:
          '2024年资产负债表“存货”年初余额为10.01万元，与2023年年末余额10.00万元不一致，差额0.01万元，占2023年末资产总计的0.01%；' +
          '可能原因：报表项目重分类（会计政策变更或列报调整，合计数未变）。变动率按重述后的年初余额计算。',
      },
    ]);
    expect(out.sp_result.mismatches).toEqual([
      {
        year: 2024,
        item: 'inventory',
        item_label: '存货',
        beginning_balance: 10.01,
        previous_ending_balance: 10,
        difference: 0.01,
      },
    ]);
  });

  it('restatements graded by materiality: info below 1%, warning from 1%, danger from 5%; no total → warning', () => {
    // 10 000 / 1 000 000 = 1%: warning (boundary included)
    expect(analyse(twoYears('110000.00', '1000000.00'), 'balance_sheet').risk_items[0]!.level).toBe(
      'warning',
    );
    // 49 999 / 1 000 000 < 5%: warning; 50 000 = 5%: danger
    expect(analyse(twoYears('149999.00', '1000000.00'), 'balance_sheet').risk_items[0]!.level).toBe(
      'warning',
    );
    expect(analyse(twoYears('150000.00', '1000000.00'), 'balance_sheet').risk_items[0]!.level).toBe('danger');
    const noTotal = analyse(twoYears('110000.00', null), 'balance_sheet').risk_items[0]!;
    expect(noTotal.level).toBe('warning');
    expect(noTotal.message).toBe(
      '2024年资产负债表“存货”年初余额为11.00万元，与2023年年末余额10.00万元不一致，差额1.00万元；' +
        '可能原因：追溯调整（会计政策变更或前期差错更正）或录入错误。变动率按重述后的年初余额计算。',
    );
  });

  it('the likely cause: total assets restated too → 追溯调整', () => {
    const report = makeReport({
      2023: { balance: { inventory: ['100000.00', '90000.00'], total_assets: ['1000000.00', '900000.00'] } },
      2024: {
        balance: { inventory: ['120000.00', '103000.00'], total_assets: ['1100000.00', '1003000.00'] },
      },
    });
    const items = analyse(report, 'balance_sheet').risk_items;
    expect(items.map((i) => [i.level, i.message.split('可能原因：')[1]])).toEqual([
      ['info', '追溯调整（会计政策变更或前期差错更正）。变动率按重述后的年初余额计算。'],
      ['info', '追溯调整（会计政策变更或前期差错更正）。变动率按重述后的年初余额计算。'],
    ]);
  });

  it('a line is named as the catalogue names it; a key the catalogue does not know, by its key', () => {
    const report = makeReport({
      2023: { balance: { goodwill: ['5000.00', '5000.00'], made_up_line: ['5000.00', '5000.00'] } },
      2024: { balance: { goodwill: ['5000.00', '4000.00'], made_up_line: ['5000.00', '4000.00'] } },
    });
    const out = analyse(report, 'balance_sheet');
    expect(out.sp_result.mismatches).toMatchObject([
      { item: 'goodwill', item_label: '商誉', difference: -0.1 },
      { item: 'made_up_line', item_label: 'made_up_line', difference: -0.1 },
    ]);
  });

  it('with nothing to compare it says so', () => {
    const report = makeReport({
      2023: { balance: { inventory: '1.00' } },
      2024: { balance: { inventory: '1.00' } },
    });
    const out = analyse(report, 'balance_sheet');
    expect(out.sp_result).toMatchObject({
      checked_pairs: 0,
      mismatch_count: 0,
      consistent: null,
      mismatches: [],
    });
    expect(out.risk_items).toEqual([]);
  });
});

describe('20 generated years', () => {
  // Each year grows revenue by 5% and carries its closing balances into the next year's opening balances.
  const years: Record<number, YearInput> = {};
  let opening = { ca: 500_000_00n, cl: 250_000_00n, inv: 100_000_00n, ta: 1_000_000_00n, eq: 600_000_00n };
  let revenue = 1_000_000_00n;
  const yuan = (fen: bigint) => `${fen / 100n}.${(fen % 100n).toString().padStart(2, '0')}`;
  for (let y = 2005; y <= 2024; y++) {
    const closing = {
      ca: (opening.ca * 104n) / 100n,
      cl: (opening.cl * 103n) / 100n,
      inv: (opening.inv * 102n) / 100n,
      ta: (opening.ta * 104n) / 100n,
      eq: (opening.eq * 105n) / 100n,
    };
    years[y] = {
      income: {
        revenue: yuan(revenue),
        operating_cost: yuan((revenue * 6n) / 10n),
        non_operating_income: '1234.56',
        net_profit: yuan(revenue / 10n),
        total_profit: yuan((revenue * 13n) / 100n),
        interest_expense: '10000.00',
      },
      balance: {
        total_current_assets: [yuan(closing.ca), yuan(opening.ca)],
        total_current_liabilities: [yuan(closing.cl), yuan(opening.cl)],
        inventory: [yuan(closing.inv), yuan(opening.inv)],
        cash_and_equivalents: [yuan(closing.ca / 3n), null],
        total_assets: [yuan(closing.ta), yuan(opening.ta)],
        total_liabilities: [yuan(closing.ta - closing.eq), yuan(opening.ta - opening.eq)],
        total_shareholders_equity: [yuan(closing.eq), yuan(opening.eq)],
      },
    };
    opening = closing;
    revenue = (revenue * 105n) / 100n;
  }
  const out = computeAnalysis(makeReport(years), ANALYSIS_SLUGS);

  it('every indicator module has a 20-entry ascending series and the latest year as released_year', () => {
    for (const o of out) {
      expect(o.sp_result.released_year, o.slug).toBe(2024);
      if (getAnalysisModule(o.slug).kind === 'check') continue;
      const series = o.sp_result.series as { year: number }[];
      expect(series.map((s) => s.year)).toEqual(Array.from({ length: 20 }, (_, i) => 2005 + i));
    }
  });

  it('the carried balances check out, and the output is JSON-safe', () => {
    const check = out.find((o) => o.slug === 'balance_sheet')!;
    // 19 year pairs × 6 lines with a beginning balance (cash has none)
    expect(check.sp_result).toMatchObject({ checked_year_pairs: 19, checked_pairs: 114, mismatch_count: 0 });
    assertFiniteEverywhere(out);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });
});

describe('registry', () => {
  it('lists the slugs in presentation order with Chinese labels', () => {
    // The spec's sections in order, and within each the spec's order (section 4 adds profitability and the
    // distress signals after its six items; section 5 adds the statements' own arithmetic last).
    expect(ANALYSIS_SLUGS).toEqual([
      'enterprise_profile',
      'financial_benchmarks',
      'financial_performance_overview',
      'reporting_period_profit',
      'reporting_period_expense',
      'reporting_period_balance_sheet',
      'revenue',
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
      'overview_total_asset_structure',
      'detailed_total_asset_structure',
      'total_assets_change_rate',
      'total_liabilities_change_rate',
      'liability_structure_overview',
      'current_liabilities_structure',
      'noncurrent_liabilities_structure',
      'shareholder_equity_change_rate',
      'shareholder_equity_structure',
      'operating_activities',
      'investing_activities',
      'financing_activities',
      'operational_efficiency',
      'eps_fluctuations',
      'short_term_liability',
      'long_term_liability',
      'shareholder_equity',
      'business_input_profitability',
      'profitability',
      'distress_signals',
      'income_statement',
      'balance_sheet',
      'cash_flow',
      'comparative',
      'statement_arithmetic',
    ]);
    for (const slug of ANALYSIS_SLUGS) expect(getAnalysisModule(slug).label).toMatch(/[\u4e00-\u9fff]/);
  });

  it('throws on an unknown slug before computing anything', () => {
    expect(() => computeAnalysis(makeReport({ 2024: healthy() }), ['revenue', 'no_such_slug'])).toThrow(
      /Unknown analysis slug: no_such_slug/,
    );
  });

  it('returns the slugs in the order asked', () => {
    const out = computeAnalysis(makeReport({ 2024: healthy() }), ['balance_sheet', 'revenue']);
    expect(out.map((o) => o.slug)).toEqual(['balance_sheet', 'revenue']);
  });

  it('rejects a report without years', () => {
    expect(() => computeAnalysis(makeReport({}), ['revenue'])).toThrow(/no years/);
  });
});
