/**
 * Judgement a credit officer can trust (issue 12), on hand-built reports: growth on a tiny base or across a sign
 * change is n.m. with its reason, rules on a line's growth need a material line, growth uses the restated base,
 * the 归母 returns and the receivable turnover with notes, Beneish on one SG&A basis, the catalogue's reasons and
 * scorecard.
 */
import { describe, expect, it } from 'vitest';
import { analysisCatalogue } from '../../worker/catalogue/analysisCatalogue.ts';
import { computeAnalysis } from '../../worker/engine/registry.ts';
import type { AnalysisOutput, NormalisedReport } from '../../worker/types.ts';
import { makeReport, type YearInput } from '../helpers/engineFixtures.ts';

const w = (wan: number) => (wan * 10_000).toFixed(2);
const one = (report: NormalisedReport, slug: string): AnalysisOutput => computeAnalysis(report, [slug])[0]!;
const codes = (out: AnalysisOutput) => out.risk_items.map((i) => i.code);

describe('growth that means nothing is n.m., with its reason', () => {
  it('a near-zero base gives null and tiny_base, never a five-digit percentage', () => {
    // R&D 0.30万元 → 104.36万元 against revenue 10 000万元: +34 687% on a base of 0.003% of revenue.
    const report = makeReport({
      2024: {
        income: {
          revenue: [w(10000), w(10000)],
          rd_expenses: [w(104.36), w(0.3)],
          sales_expenses: [w(500), w(400)],
        },
      },
    });
    const out = one(report, 'expense');
    expect(out.sp_result.rd_expenses_change_rate).toBeNull();
    expect(out.sp_result.null_reasons).toEqual({ rd_expenses_change_rate: 'tiny_base' });
    const series = out.sp_result.series as Record<string, unknown>[];
    expect(series[0]!.null_reasons).toEqual({ rd_expenses_change_rate: 'tiny_base' });
    // A material base keeps its rate: 400 → 500 is +25%.
    expect(out.sp_result.sales_expenses_change_rate).toBe(25);
  });

  it('a sign change (loss to profit) gives null and sign_change', () => {
    const report = makeReport({
      2024: { income: { revenue: [w(1000), w(900)], net_profit: [w(50), w(-20)] } },
    });
    const out = one(report, 'net_profit');
    expect(out.sp_result.net_profit_change_rate).toBeNull();
    expect(out.sp_result.null_reasons).toMatchObject({ net_profit_change_rate: 'sign_change' });
  });

  it('the balance-sheet change tables give the reason per row', () => {
    const report = makeReport({
      2024: {
        balance: {
          total_assets: [w(1000), w(1000)],
          // 0.10 → 30万元: 0.01% of total assets as a base
          notes_receivable: [w(30), w(0.1)],
          inventory: [w(200), w(100)],
        },
      },
    });
    const items = one(report, 'total_assets_change_rate').sp_result.items as Record<string, unknown>[];
    expect(items.find((i) => i.key === 'notes_receivable')).toMatchObject({
      change_rate: null,
      null_reasons: { change_rate: 'tiny_base' },
    });
    expect(items.find((i) => i.key === 'inventory')).toMatchObject({ change_rate: 100 });
    expect(items.find((i) => i.key === 'inventory')).not.toHaveProperty('null_reasons');
  });

  it('flat keys of the change-rate items carry their reasons too', () => {
    const report = makeReport({
      2024: {
        balance: {
          total_assets: [w(1000), w(1000)],
          total_liabilities: [w(400), w(380)],
          short_term_borrowings: [w(50), w(0.2)],
        },
      },
    });
    const sp = one(report, 'total_liabilities_change_rate').sp_result;
    expect(sp.short_term_borrowings_change_rate).toBeNull();
    expect(sp.null_reasons).toEqual({ short_term_borrowings_change_rate: 'tiny_base' });
    expect(sp.total_liabilities_change_rate).toBe(5.26);
  });

  it('the catalogue explains every reason code', () => {
    const catalogue = analysisCatalogue();
    expect(Object.keys(catalogue.null_reasons).sort()).toEqual(['sign_change', 'tiny_base']);
    for (const text of Object.values(catalogue.null_reasons)) expect(text).toMatch(/n\.m\./);
  });
});

describe('rules on a line’s growth fire only when the line is material', () => {
  const receivables = (ar: [number, number]): Record<number, YearInput> => ({
    2024: {
      income: { revenue: [w(1100), w(1000)] },
      balance: { total_assets: [w(1000), w(950)], accounts_receivable: [w(ar[0]), w(ar[1])] },
    },
  });

  it('receivables +96% at 2.7% of total assets: no risk; the same growth at 27%: danger', () => {
    const small = one(makeReport(receivables([27, 13.78])), 'growth_quality_analysis');
    expect(small.sp_result.accounts_receivable_change_rate).toBe(95.94);
    expect(codes(small)).toEqual([]);
    const large = one(makeReport(receivables([270, 137.8])), 'growth_quality_analysis');
    expect(large.risk_items).toMatchObject([
      { level: 'danger', code: 'growth_quality_analysis.receivable_growth_gap_high' },
    ]);
  });

  it('an expense growing fast is judged only when it is at least 2% of revenue', () => {
    const expense = (rd: [number, number]) =>
      makeReport({ 2024: { income: { revenue: [w(1000), w(1000)], rd_expenses: [w(rd[0]), w(rd[1])] } } });
    expect(codes(one(expense([15, 10]), 'expense'))).toEqual([]);
    expect(codes(one(expense([30, 20]), 'expense'))).toEqual(['expense.growth_outpaces_revenue']);
  });

  it('a turnover decline on an immaterial balance is not raised', () => {
    const turnover = (inventory: [number, number, number]) =>
      makeReport({
        2023: {
          income: { operating_cost: w(600) },
          balance: { total_assets: [w(1000), w(1000)], inventory: [w(inventory[1]), w(inventory[0])] },
        },
        2024: {
          income: { operating_cost: w(600) },
          balance: { total_assets: [w(1000), w(1000)], inventory: [w(inventory[2]), w(inventory[1])] },
        },
      });
    // Inventory doubling halves the turnover; at 2–4% of total assets it is not material.
    expect(codes(one(turnover([20, 20, 40]), 'operational_efficiency'))).toEqual([]);
    expect(codes(one(turnover([200, 200, 400]), 'operational_efficiency'))).toEqual([
      'operational_efficiency.inventory_turnover_decline',
    ]);
  });
});

describe('restated comparatives are the growth base', () => {
  it('total assets growth uses the later statement’s restated opening balance', () => {
    // 2023 closed at 1000; the 2024 statement restates the opening to 1005.6 (a retrospective adjustment).
    const report = makeReport({
      2023: { balance: { total_assets: [w(1000), w(900)] } },
      2024: { balance: { total_assets: [w(1077.5), w(1005.6)] } },
    });
    const out = one(report, 'total_assets_change_rate');
    // (1077.5 − 1005.6) / 1005.6 = 7.15%, not (1077.5 − 1000) / 1000 = 7.75%
    expect(out.sp_result.total_assets_change_rate).toBe(7.15);
    const check = one(report, 'balance_sheet');
    expect(check.risk_items).toMatchObject([{ level: 'info', code: 'balance_sheet.opening_mismatch' }]);
    expect(check.risk_items[0]!.message).toContain(
      '年初余额为1005.60万元，与2023年年末余额1000.00万元不一致',
    );
    expect(check.risk_items[0]!.message).toContain('可能原因：追溯调整');
  });
});

describe('parent-attributable returns and receivable turnover with notes', () => {
  const report = makeReport({
    2024: {
      income: {
        revenue: w(1000),
        net_profit: w(120),
        net_profit_attributable_to_parent: w(100),
      },
      balance: {
        total_assets: [w(2200), w(1800)],
        total_shareholders_equity: [w(1100), w(900)],
        equity_attributable_to_parent: [w(900), w(700)],
        accounts_receivable: [w(150), w(50)],
        notes_receivable: [w(50), w(50)],
      },
    },
  });

  it('roe_parent = 归母净利润 ÷ 平均归母权益 × 100; roa_parent on average total assets; totals unchanged', () => {
    const p = one(report, 'profitability').sp_result;
    expect(p.roe).toBe(12); // 120 / 1000
    expect(p.roe_parent).toBe(12.5); // 100 / 800
    expect(p.roa).toBe(6); // 120 / 2000
    expect(p.roa_parent).toBe(5); // 100 / 2000
    expect(one(report, 'financial_benchmarks').sp_result).toMatchObject({ roe_parent: 12.5, roa_parent: 5 });
  });

  it('without the 归母 lines they are null', () => {
    const plain = makeReport({
      2024: {
        income: { revenue: w(1000), net_profit: w(120) },
        balance: { total_assets: [w(2200), w(1800)] },
      },
    });
    expect(one(plain, 'profitability').sp_result).toMatchObject({ roe_parent: null, roa_parent: null });
  });

  it('receivable_turnover_incl_notes beside receivable_turnover', () => {
    const o = one(report, 'operational_efficiency').sp_result;
    expect(o.receivable_turnover).toBe(10); // 1000 / 100
    expect(o.receivable_turnover_incl_notes).toBe(6.67); // 1000 / 150
  });
});

describe('Beneish on one SG&A basis', () => {
  it('R&D reported apart in one year only is added on both sides (the other year has it inside 管理费用)', () => {
    const year = (rev: number, sales: number, admin: number, rd?: number): YearInput => ({
      income: {
        revenue: w(rev),
        operating_cost: w(rev * 0.6),
        sales_expenses: w(sales),
        administrative_expenses: w(admin),
        ...(rd === undefined ? {} : { rd_expenses: w(rd) }),
        net_profit: w(50),
      },
      balance: {
        total_assets: w(1000),
        total_current_assets: w(500),
        total_current_liabilities: w(300),
        accounts_receivable: w(100),
      },
      cash_flow: { net_cf_operating: w(60) },
    });
    // 2023: admin 100 includes R&D; 2024: admin 70 + R&D 30 reported apart.
    const report = makeReport({ 2023: year(1000, 50, 100), 2024: year(1000, 50, 70, 30) });
    const d = one(report, 'distress_signals').sp_result;
    // (50 + 70 + 30) / 1000 ÷ (50 + 100) / 1000 = 1 — the split alone does not move SGAI
    expect(d.beneish_sgai).toBe(1);
  });
});

describe('the verdict scorecard in the catalogue', () => {
  it('lists every factor with its weight and five standard values, the grades and the method', () => {
    const { scorecard } = analysisCatalogue();
    expect(scorecard.factors.reduce((s, f) => s + f.weight, 0)).toBe(100);
    for (const f of scorecard.factors) expect(f.bands).toHaveLength(5);
    expect(scorecard.grades.map((g) => g.label)).toEqual([
      '低风险',
      '较低风险',
      '中等风险',
      '较高风险',
      '高风险',
    ]);
    expect(scorecard.method).toContain('功效系数法');
    expect(Object.keys(scorecard.altman_bands).sort()).toEqual(['z', 'z_double_prime', 'z_prime']);
  });
});
