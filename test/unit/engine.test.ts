/**
 * Golden tests of the indicator engine on the submission fixtures. Expected values are derived here, from the
 * raw fixture JSON, with exact rational arithmetic on BigInt — independently of decimal.js and of the engine.
 */
import { describe, expect, it } from 'vitest';
import { toAnalysisOutputs } from '../../worker/computed.ts';
import run from '../../worker/engine/analysis.worker.ts';
import { ANALYSIS_SLUGS, computeAnalysis } from '../../worker/engine/registry.ts';
import type { AnalysisOutput } from '../../worker/types.ts';
import {
  FIXTURES,
  int,
  loadFixture,
  q,
  qadd,
  qcmp,
  qdiv,
  qpct,
  qsub,
  qwan,
  type R,
  type Raw,
  r2,
  r2text,
  rawAccess,
  toReport,
} from '../helpers/engineFixtures.ts';

// expected series per slug, written from the formulas in the issue

type Row = Record<string, R>;

const EXPECTED: Record<string, (raw: Raw, year: number) => Row> = {
  revenue: (r, y) => {
    const share = (rev: R, noi: R) => qpct(rev, qadd(rev, noi));
    // The prior period is the year's own comparatives (restated base), else the previous year's statement.
    const prior = (k: string) => r.incLast(y, k) ?? r.inc(y - 1, k);
    const prevShare = share(prior('revenue'), prior('non_operating_income'));
    const cur = share(r.inc(y, 'revenue'), r.inc(y, 'non_operating_income'));
    return {
      operating_revenue: qwan(r.inc(y, 'revenue')),
      non_operating_revenue: qwan(r.inc(y, 'non_operating_income')),
      operating_revenue_ratio: cur,
      operating_revenue_ratio_change: qsub(cur, prevShare),
    };
  },
  profitability: (r, y) => {
    const rev = r.inc(y, 'revenue');
    const np = r.inc(y, 'net_profit');
    let costs = r.inc(y, 'operating_cost');
    for (const k of [
      'taxes_and_dues',
      'sales_expenses',
      'administrative_expenses',
      'rd_expenses',
      'financial_expenses',
    ]) {
      costs = qadd(costs, r.inc(y, k) ?? int(0));
    }
    return {
      gross_margin: qpct(qsub(rev, r.inc(y, 'operating_cost')), rev),
      net_margin: qpct(np, rev),
      roe: qpct(np, r.avg(y, 'total_shareholders_equity')),
      roa: qpct(np, r.avg(y, 'total_assets')),
      roe_parent: qpct(
        r.inc(y, 'net_profit_attributable_to_parent'),
        r.avg(y, 'equity_attributable_to_parent'),
      ),
      roa_parent: qpct(r.inc(y, 'net_profit_attributable_to_parent'), r.avg(y, 'total_assets')),
      cost_expense_profit_margin: qpct(r.inc(y, 'total_profit'), costs),
    };
  },
  short_term_liability: (r, y) => {
    const ca = r.end(y, 'total_current_assets');
    const cl = r.end(y, 'total_current_liabilities');
    return {
      current_ratio: qdiv(ca, cl),
      quick_ratio: qdiv(qsub(ca, r.end(y, 'inventory')), cl),
      cash_ratio: qdiv(
        qadd(r.end(y, 'cash_and_equivalents'), r.end(y, 'financial_assets_held_for_trading') ?? int(0)),
        cl,
      ),
      cash_flow_liability_ratio: qpct(r.cf(y, 'net_cf_operating'), cl),
      working_capital: qwan(qsub(ca, cl)),
    };
  },
  long_term_liability: (r, y) => {
    const ie = r.inc(y, 'interest_expense');
    return {
      debt_to_asset_ratio: qpct(r.end(y, 'total_liabilities'), r.end(y, 'total_assets')),
      equity_multiplier: qdiv(r.end(y, 'total_assets'), r.end(y, 'total_shareholders_equity')),
      debt_to_equity_ratio: qpct(r.end(y, 'total_liabilities'), r.end(y, 'total_shareholders_equity')),
      interest_coverage: qdiv(qadd(r.inc(y, 'total_profit'), ie), ie),
      total_shareholders_equity: qwan(r.end(y, 'total_shareholders_equity')),
    };
  },
  operational_efficiency: (r, y) => {
    const row: Row = {};
    const pairs = [
      ['total_asset_turnover', 'revenue', 'total_assets'],
      ['receivable_turnover', 'revenue', 'accounts_receivable'],
      ['inventory_turnover', 'operating_cost', 'inventory'],
      ['payable_turnover', 'operating_cost', 'accounts_payable'],
    ] as const;
    for (const [key, flow, bal] of pairs) {
      const t = qdiv(r.inc(y, flow), r.avg(y, bal));
      row[key] = t;
      row[`${key}_days`] = qdiv(int(360), t);
    }
    const withNotes = (v: (y: number, k: string) => R) =>
      v(y, 'accounts_receivable') === null && v(y, 'notes_receivable') === null
        ? null
        : qadd(v(y, 'accounts_receivable') ?? int(0), v(y, 'notes_receivable') ?? int(0));
    row.receivable_turnover_incl_notes = qdiv(
      r.inc(y, 'revenue'),
      qdiv(qadd(withNotes(r.begin), withNotes(r.end)), int(2)),
    );
    return row;
  },
};

/** Thresholds from the issue, checked on the latest year (and its change against the year before). */
function expectedRiskCodes(slug: string, rows: Map<number, Row>, latest: number): string[] {
  const v = rows.get(latest)!;
  const prev = rows.get(latest - 1);
  const lt = (x: R, t: number) => x !== null && qcmp(x, q(String(t))) < 0;
  const gt = (x: R, t: number) => x !== null && qcmp(x, q(String(t))) > 0;
  const fell = (key: string, pctFall: number) => {
    const a = v[key] ?? null;
    const b = prev?.[key] ?? null;
    return a !== null && b !== null && b.n !== 0n && lt(qpct(qsub(a, b), b), -pctFall);
  };
  const codes: string[] = [];
  if (slug === 'revenue' && fell('operating_revenue', 20)) codes.push('revenue.operating_revenue_decline');
  if (slug === 'profitability' && lt(v.net_margin ?? null, 0))
    codes.push('profitability.net_margin_negative');
  if (slug === 'short_term_liability') {
    if (lt(v.current_ratio ?? null, 1)) codes.push('short_term_liability.current_ratio_low');
    if (lt(v.quick_ratio ?? null, 0.5)) codes.push('short_term_liability.quick_ratio_low');
  }
  if (slug === 'long_term_liability') {
    if (gt(v.debt_to_asset_ratio ?? null, 70)) codes.push('long_term_liability.debt_to_asset_ratio_high');
    if (lt(v.interest_coverage ?? null, 1.5)) codes.push('long_term_liability.interest_coverage_low');
    if (lt(v.total_shareholders_equity ?? null, 0)) codes.push('long_term_liability.negative_equity');
  }
  if (slug === 'operational_efficiency') {
    for (const k of [
      'total_asset_turnover',
      'receivable_turnover',
      'inventory_turnover',
      'payable_turnover',
    ]) {
      if (fell(k, 30)) codes.push(`operational_efficiency.${k}_decline`);
    }
  }
  return codes;
}

const rounded = (row: Row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, r2(v)]));

function bySlug(out: AnalysisOutput[], slug: string): AnalysisOutput {
  const found = out.find((o) => o.slug === slug);
  if (!found) throw new Error(`no output for ${slug}`);
  return found;
}

describe.each(FIXTURES)('engine golden values: %s', (name) => {
  const raw = loadFixture(name);
  const r = rawAccess(raw);
  const report = toReport(raw);
  const out = computeAnalysis(report, ANALYSIS_SLUGS);
  const latest = Math.max(...r.years);

  it.each(Object.keys(EXPECTED))('%s: series, flat latest values and risk items', (slug) => {
    const rows = new Map(r.years.map((y) => [y, EXPECTED[slug]!(r, y)]));
    const series = r.years.map((y) => ({ year: y, ...rounded(rows.get(y)!) }));
    const { sp_result, risk_items } = bySlug(out, slug);
    expect(sp_result).toEqual({ released_year: latest, ...rounded(rows.get(latest)!), series });
    expect(risk_items.map((i) => i.code)).toEqual(expectedRiskCodes(slug, rows, latest));
  });

  it('balance_sheet: every opening balance is compared with the previous closing balance', () => {
    const mismatches: Record<string, unknown>[] = [];
    let checked = 0;
    for (const y of r.years.slice(1)) {
      for (const item of r.balanceItems(y)) {
        const prevEnd = r.end(y - 1, item.item_name);
        if (prevEnd === null || item.beginning_balance === undefined) continue;
        checked += 1;
        const begin = q(item.beginning_balance);
        if (qcmp(begin, prevEnd) !== 0) {
          mismatches.push({
            year: y,
            item: item.item_name,
            beginning_balance: r2(qwan(begin)),
            previous_ending_balance: r2(qwan(prevEnd)),
            difference: r2(qwan(qsub(begin, prevEnd))),
          });
        }
      }
    }
    const { sp_result, risk_items } = bySlug(out, 'balance_sheet');
    expect(sp_result).toMatchObject({
      released_year: latest,
      checked_year_pairs: r.years.length - 1,
      checked_pairs: checked,
      mismatch_count: mismatches.length,
      consistent: mismatches.length === 0,
    });
    expect(sp_result.mismatches).toMatchObject(mismatches);
    expect(risk_items).toHaveLength(mismatches.length);
    if (name !== 'general_new-4y-inconsistent') {
      expect(mismatches).toEqual([]);
      expect(risk_items).toEqual([]);
      expect(sp_result.summary).toContain('全部一致');
    }
  });

  it('the Piscina entry returns what computeAnalysis returns, sp_result as JSON text', () => {
    const items = run({ reportJson: JSON.stringify(report), slugs: [...ANALYSIS_SLUGS] });
    expect(toAnalysisOutputs(items)).toEqual(out);
    expect(items.map((item) => item.releasedYear)).toEqual(out.map((o) => o.sp_result.released_year));
  });

  it('output survives JSON unchanged (no NaN, no Infinity, no undefined)', () => {
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });
});

describe('general_new-4y-inconsistent', () => {
  const raw = loadFixture('general_new-4y-inconsistent');
  const r = rawAccess(raw);
  const out = computeAnalysis(toReport(raw), ['balance_sheet', 'revenue']);

  it('raises exactly the 2023 inventory opening mismatch, as a warning (1–5% of 2022 total assets), with its likely cause', () => {
    const begin = r.begin(2023, 'inventory')!;
    const prevEnd = r.end(2022, 'inventory')!;
    const diff = qsub(begin, prevEnd)!;
    const share = qpct(diff, r.end(2022, 'total_assets'))!;
    expect(qcmp(share, int(1))).toBeGreaterThanOrEqual(0);
    expect(qcmp(share, int(5))).toBeLessThan(0);
    const { sp_result, risk_items } = bySlug(out, 'balance_sheet');
    expect(sp_result.mismatches).toEqual([
      {
        year: 2023,
        item: 'inventory',
        item_label: '存货',
        beginning_balance: r2(qwan(begin)),
        previous_ending_balance: r2(qwan(prevEnd)),
        difference: r2(qwan(diff)),
      },
    ]);
    expect(sp_result.consistent).toBe(false);
    expect(risk_items).toEqual([
      {
        level: 'warning',
        code: 'balance_sheet.opening_mismatch',
        message:
          `2023年资产负债表“存货”年初余额为${r2text(qwan(begin)!)}万元，与2022年年末余额${r2text(qwan(prevEnd)!)}万元不一致，` +
          `差额${r2text(qwan(diff)!)}万元，占2022年末资产总计的${r2text(share)}%；` +
          '可能原因：报表项目重分类（会计政策变更或列报调整，合计数未变）。变动率按重述后的年初余额计算。',
      },
    ]);
    // Spot check against figures read off the fixture by hand.
    expect(risk_items[0]?.message).toContain('2185.36万元');
    expect(risk_items[0]?.message).toContain('1900.31万元');
    expect(risk_items[0]?.message).toContain('差额285.05万元');
  });

  it('compares 2024 against its own (restated) last_year_amount column, not the 2023 statement (CAS 28)', () => {
    const share = (rev: R, noi: R) => qpct(rev, qadd(rev, noi));
    const expected = qsub(
      share(r.inc(2024, 'revenue'), r.inc(2024, 'non_operating_income')),
      share(r.inc(2023, 'revenue'), r.inc(2023, 'non_operating_income')),
    );
    const viaLastYearColumn = qsub(
      share(r.inc(2024, 'revenue'), r.inc(2024, 'non_operating_income')),
      share(r.incLast(2024, 'revenue'), r.incLast(2024, 'non_operating_income')),
    );
    expect(r2(expected)).not.toBe(r2(viaLastYearColumn));
    expect(bySlug(out, 'revenue').sp_result.operating_revenue_ratio_change).toBe(r2(viaLastYearColumn));
  });
});

describe('hand-checked spot values', () => {
  it('general_new-3y 2024', () => {
    const out = computeAnalysis(toReport(loadFixture('general_new-3y')), ANALYSIS_SLUGS);
    // Worked out from the fixture with a desk calculator (Python decimal): see the formulas in the issue.
    expect(bySlug(out, 'short_term_liability').sp_result.current_ratio).toBe(2.37);
    expect(bySlug(out, 'long_term_liability').sp_result.debt_to_asset_ratio).toBe(33.65);
    expect(bySlug(out, 'profitability').sp_result.net_margin).toBe(18.94);
    expect(bySlug(out, 'profitability').sp_result.roe).toBe(20.25);
    expect(bySlug(out, 'profitability').sp_result.gross_margin).toBe(42.63);
    expect(bySlug(out, 'revenue').sp_result.operating_revenue).toBe(8925.77);
  });
});
