/** The engine's decimal helpers, the report context, the module catalogue metadata and the Piscina entry. */
import { Piscina } from 'piscina';
import { describe, expect, it } from 'vitest';
import { toAnalysisOutputs } from '../../worker/computed.ts';
import { createContext } from '../../worker/engine/context.ts';
import {
  average,
  changeRate,
  format2,
  num,
  parseAmount,
  pct,
  ppChange,
  ratio,
  round2,
  sum,
  toWan,
} from '../../worker/engine/decimal.ts';
import { SECTIONS } from '../../worker/engine/module.ts';
import {
  ANALYSIS_MODULES,
  ANALYSIS_SLUGS,
  analysisLabel,
  computeAnalysis,
} from '../../worker/engine/registry.ts';
import type { NormalisedReport } from '../../worker/types.ts';

const d = (s: string) => parseAmount(s);

describe('decimal helpers', () => {
  it('rounds half away from zero to 2 decimals, only at output', () => {
    expect(round2(d('1.005'))).toBe(1.01);
    expect(round2(d('-1.005'))).toBe(-1.01);
    expect(round2(d('2.344999'))).toBe(2.34);
    expect(round2(sum([d('0.1'), d('0.2')]))).toBe(0.3);
    expect(Object.is(round2(d('-0.001')), 0)).toBe(true);
    expect(round2(null)).toBeNull();
    expect(format2(d('-0.001')!)).toBe('0.00');
    expect(format2(d('1234.5')!)).toBe('1234.50');
  });

  it('is exact where binary floating point is not', () => {
    // 0.145 × 100 in floats is 14.499999999999998
    expect(round2(pct(d('0.145'), d('1')))).toBe(14.5);
    expect(round2(toWan(d('12345678901234.56')))).toBe(1234567890.12);
    // 1/3 + 1/3 + 1/3 keeps enough digits to land on 1
    const third = ratio(d('1'), d('3'));
    expect(round2(sum([third, third, third]))).toBe(1);
  });

  it('parses amounts and rejects what is not one', () => {
    expect(parseAmount('  -12.30 ')?.toString()).toBe('-12.3');
    for (const bad of ['', ' ', 'abc', '1,000.00', 'NaN', 'Infinity', null, undefined]) {
      expect(parseAmount(bad as string | null | undefined), String(bad)).toBeNull();
    }
  });

  it('propagates null and refuses zero denominators', () => {
    expect(ratio(d('1'), d('0'))).toBeNull();
    expect(pct(d('1'), null)).toBeNull();
    expect(toWan(null)).toBeNull();
    expect(average(d('1'), null)).toBeNull();
    expect(round2(average(d('1'), d('2')))).toBe(1.5);
    expect(sum([d('1'), null])).toBeNull();
    expect(round2(sum([d('1'), null], { missingAsZero: true }))).toBe(1);
    expect(changeRate(d('1'), d('0'))).toBeNull();
    expect(round2(ppChange(d('12.5'), d('10')))).toBe(2.5);
  });

  it('measures change against the absolute base', () => {
    expect(round2(changeRate(d('120'), d('100')))).toBe(20);
    // a loss of 100 shrinking to a loss of 50 is an improvement of 50%
    expect(round2(changeRate(d('-50'), d('-100')))).toBe(50);
    expect(round2(changeRate(num(0), d('-100')))).toBe(100);
  });
});

describe('report context', () => {
  const report: NormalisedReport = {
    enterpriseName: 'x',
    standard: 'general_new',
    enterpriseInfo: null,
    years: [
      {
        year: 2024,
        sheets: {
          income: { revenue: { current: '300.00', previous: '250.00' } },
          balance: {
            total_assets: { current: '1000.00', previous: '800.00' },
            inventory: { current: '5', previous: null },
          },
        },
      },
      { year: 2022, sheets: { income: { revenue: { current: '100.00', previous: '90.00' } } } },
      { year: 2023, sheets: { income: { revenue: { current: '200.00', previous: '180.00' } } } },
    ],
  };
  const ctx = createContext(report);

  it('orders years and names the latest', () => {
    expect(ctx.years).toEqual([2022, 2023, 2024]);
    expect([ctx.firstYear, ctx.latestYear]).toEqual([2022, 2024]);
    expect(ctx.previousYear(2024)).toBe(2023);
    expect(ctx.previousYear(2022)).toBeNull();
  });

  it('reads both columns and returns null for anything absent', () => {
    expect(ctx.line(2024, 'income', 'revenue')?.toString()).toBe('300');
    expect(ctx.prior(2024, 'income', 'revenue')?.toString()).toBe('250');
    expect(ctx.line(2024, 'income', 'net_profit')).toBeNull();
    expect(ctx.line(2024, 'cash_flow', 'net_cf_operating')).toBeNull();
    expect(ctx.line(2030, 'income', 'revenue')).toBeNull();
    expect(ctx.line(2024, 'income', 'toString')).toBeNull();
    expect(ctx.hasSheet(2023, 'balance')).toBe(false);
  });

  it('takes the prior period from the year’s own (restated) previous column, else from the previous submitted year', () => {
    // 2024 states 250 as its comparative while 2023 reported 200: the later statement's figure is the base (CAS 28).
    expect(ctx.priorPeriod(2024, 'income', 'revenue')?.toString()).toBe('250');
    expect(ctx.priorPeriod(2022, 'income', 'revenue')?.toString()).toBe('90');
  });

  it('averages the same year’s beginning and ending balance', () => {
    expect(ctx.averageBalance(2024, 'total_assets')?.toString()).toBe('900');
    expect(ctx.averageBalance(2024, 'inventory')).toBeNull();
  });

  it('rejects duplicate years', () => {
    const dup = { ...report, years: [report.years[0]!, report.years[0]!] };
    expect(() => createContext(dup)).toThrow(/Duplicate year 2024/);
  });
});

describe('module catalogue metadata', () => {
  it('every module has a label, a section, documented fields and coded rules', () => {
    const codes = new Set<string>();
    for (const module of ANALYSIS_MODULES) {
      expect(analysisLabel(module.slug)).toMatch(/[\u4e00-\u9fff]/);
      expect(Object.keys(SECTIONS)).toContain(module.section);
      expect(module.fields.length).toBeGreaterThan(0);
      for (const field of module.fields) {
        expect(field.label, `${module.slug}.${field.key}`).toMatch(/[\u4e00-\u9fff]/);
        expect(field.formula.length).toBeGreaterThan(0);
        // A field computed from other fields (a score) names no statement line; its note says what it reads.
        expect(field.inputs.length > 0 || (field.note ?? '').length > 0, `${module.slug}.${field.key}`).toBe(
          true,
        );
      }
      for (const rule of module.riskRules) {
        expect(rule.code.startsWith(`${module.slug}.`), rule.code).toBe(true);
        expect(codes.has(rule.code), rule.code).toBe(false);
        codes.add(rule.code);
        expect(rule.tiers.length).toBeGreaterThan(0);
        expect(rule.description).toMatch(/[\u4e00-\u9fff]/);
      }
    }
    expect(() => analysisLabel('nope')).toThrow(/Unknown analysis slug/);
  });

  it('indicator modules put exactly their documented fields in sp_result', () => {
    const report: NormalisedReport = {
      enterpriseName: 'x',
      standard: 'general_new',
      enterpriseInfo: null,
      years: [{ year: 2024, sheets: {} }],
    };
    for (const module of ANALYSIS_MODULES.filter((m) => m.kind === 'indicator')) {
      const [out] = computeAnalysis(report, [module.slug]);
      // A list's fields are documented as `items[].amount`: the key in sp_result is `items`.
      const documented = new Set(module.fields.map((f) => f.key.split('[')[0]!));
      // Data notes (`data_gaps`) and strengths sit beside the documented values when a rule reports them.
      const keys = Object.keys(out!.sp_result).filter((k) => k !== 'data_gaps' && k !== 'strengths');
      expect(keys.sort()).toEqual(['released_year', 'series', ...documented].sort());
    }
  });
});

describe('Piscina worker entry', () => {
  it('runs in a real worker thread and returns what computeAnalysis returns', async () => {
    const report: NormalisedReport = {
      enterpriseName: 'x',
      standard: 'general_new',
      enterpriseInfo: null,
      years: [
        {
          year: 2023,
          sheets: {
            income: {
              revenue: { current: '100.00', previous: null },
              net_profit: { current: '-5.00', previous: null },
            },
            balance: { total_assets: { current: '1000.00', previous: '900.00' } },
          },
        },
        {
          year: 2024,
          sheets: {
            income: {
              revenue: { current: '70.00', previous: '100.00' },
              net_profit: { current: '-9.00', previous: null },
            },
            balance: { total_assets: { current: '1100.00', previous: '1000.01' } },
          },
        },
      ],
    };
    const pool = new Piscina({
      filename: new URL('../../worker/engine/analysis.worker.ts', import.meta.url).href,
      maxThreads: 1,
    });
    try {
      const result = await pool.run({ reportJson: JSON.stringify(report), slugs: [...ANALYSIS_SLUGS] });
      expect(toAnalysisOutputs(result)).toEqual(computeAnalysis(report, ANALYSIS_SLUGS));
    } finally {
      await pool.destroy();
    }
  });
});
