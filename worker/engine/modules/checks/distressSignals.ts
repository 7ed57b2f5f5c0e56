/**
 * 财务困境与操纵风险信号: Altman Z / Z'' (distress), Beneish M-score (earnings manipulation) and Piotroski
 * F-score (fundamental strength), each with its components, for every submitted year where the data allows.
 *
 * Sources and adaptations (see /work/shared/reference/risk_scores.md):
 * - Altman Z′ (1983, private firms, book equity; for manufacturers): 0.717X1 + 0.847X2 + 3.107X3 + 0.420X4 +
 *   0.998X5, zones safe > 2.90, distress < 1.23. The 1968 Z (1.2/1.4/3.3/0.6/1.0, 1.81/2.99) needs the market
 *   value of equity in X4, which the statements do not carry: `altman_z` stays null.
 * - Altman Z'' (1995/2000, non-manufacturers and emerging markets): 6.56X1 + 3.26X2 + 6.72X3 + 1.05X4 with book
 *   X4, zones safe > 2.60, distress < 1.10.
 *   X1 = (流动资产 − 流动负债) ÷ 资产总计, X2 = (盈余公积 + 未分配利润) ÷ 资产总计 (the usual Chinese proxy of
 *   retained earnings), X3 = EBIT ÷ 资产总计 with EBIT = 利润总额 + 利息费用, X5 = 营业收入 ÷ 资产总计; year-end
 *   balances. The headline is Z′ for manufacturing (industry_sector_code C, GB/T 4754 门类 C 制造业), Z'' otherwise;
 *   both are always computed, and the zone rule applies to the headline.
 * - Beneish M (1999, 8 variables): year t against t − 1 (the previous submitted year, else the prior columns of
 *   year t's own statements). DEPI needs depreciation, which the statements lack: DEPI = 1 (neutral, as the
 *   usual fallback). AQI = [1 − (流动资产 + 固定资产) ÷ 资产总计] ratio (Beneish 1999; no securities term).
 *   SGA = 销售费用 + 管理费用, plus 研发费用 on both sides when either year reports it apart (the 2018 format
 *   split it out of 管理费用: one basis across the two years). LVGI's debt =
 *   流动负债 + 长期借款 + 应付债券. TATA = (持续经营净利润 − 经营活动现金流量净额) ÷ 资产总计, with 净利润 when
 *   持续经营净利润 is not submitted.
 *   M > −1.78 reads as a likely manipulator (Beneish 1999, 20:1 error-cost cut-off).
 * - Piotroski F (2000), 9 binary signals of year t; ratios on beginning-of-year total assets, so the prior-year
 *   ratios need the balance sheet of t − 2 (the first submitted year's comparatives reach only t − 1, so its
 *   F-score is null). F is null unless all nine signals are computable; the signals are shown either way.
 */
import type { Decimal } from 'decimal.js';
import type { RiskItem } from '../../../types.ts';
import type { ReportContext } from '../../context.ts';
import { add, average, format2, mul, type Num, num, ratio, round2, sub, sum, toWan } from '../../decimal.ts';
import { fillTemplate } from '../../indicator.ts';
import type { AnalysisModule, FieldDoc, LineRef, ModuleResult, RiskRuleDoc } from '../../module.ts';
import { seriesLayout } from '../balance/shared.ts';

// ——— pure scoring functions (exported for tests with published vectors) ———

export interface AltmanInputs {
  x1: Num;
  x2: Num;
  x3: Num;
  x4: Num;
  x5: Num;
}

/** The models' coefficients as Decimals, each converted once (the same values `times(number)` would convert). */
const CONSTANTS = new Map<number, Decimal>();
const constant = (value: number): Decimal => {
  let d = CONSTANTS.get(value);
  if (d === undefined) {
    d = num(value);
    CONSTANTS.set(value, d);
  }
  return d;
};

const linear = (intercept: number, terms: readonly [coefficient: number, value: Num][]): Num => {
  let total: Decimal = constant(intercept);
  for (const [c, v] of terms) {
    if (v === null) return null;
    total = total.plus(v.times(constant(c)));
  }
  return total;
};

/** Altman Z (1968): 1.2X1 + 1.4X2 + 3.3X3 + 0.6X4 + 1.0X5. */
export function altmanZ(x: AltmanInputs): Num {
  return linear(0, [
    [1.2, x.x1],
    [1.4, x.x2],
    [3.3, x.x3],
    [0.6, x.x4],
    [1.0, x.x5],
  ]);
}

/** Altman Z′ (1983, private firms): 0.717X1 + 0.847X2 + 3.107X3 + 0.420X4 + 0.998X5, X4 on book equity. */
export function altmanZPrime(x: AltmanInputs): Num {
  return linear(0, [
    [0.717, x.x1],
    [0.847, x.x2],
    [3.107, x.x3],
    [0.42, x.x4],
    [0.998, x.x5],
  ]);
}

/** Altman Z'' (1995): 6.56X1 + 3.26X2 + 6.72X3 + 1.05X4. */
export function altmanZDoublePrime(x: AltmanInputs): Num {
  return linear(0, [
    [6.56, x.x1],
    [3.26, x.x2],
    [6.72, x.x3],
    [1.05, x.x4],
  ]);
}

export type Zone = 'safe' | 'grey' | 'distress';

export const Z_CUTOFFS = { distress: 1.81, safe: 2.99 } as const;
export const Z_PRIME_CUTOFFS = { distress: 1.23, safe: 2.9 } as const;
export const Z_DOUBLE_PRIME_CUTOFFS = { distress: 1.1, safe: 2.6 } as const;

/** safe above the upper cut-off, distress below the lower one, grey in between (both bounds included). */
export function zoneOf(score: Num, cutoffs: { distress: number; safe: number }): Zone | null {
  if (score === null) return null;
  if (score.lessThan(constant(cutoffs.distress))) return 'distress';
  if (score.greaterThan(constant(cutoffs.safe))) return 'safe';
  return 'grey';
}

export interface BeneishInputs {
  dsri: Num;
  gmi: Num;
  aqi: Num;
  sgi: Num;
  depi: Num;
  sgai: Num;
  lvgi: Num;
  tata: Num;
}

/** Beneish (1999): −4.84 + 0.920DSRI + 0.528GMI + 0.404AQI + 0.892SGI + 0.115DEPI − 0.172SGAI + 4.679TATA − 0.327LVGI. */
export function beneishM(c: BeneishInputs): Num {
  return linear(-4.84, [
    [0.92, c.dsri],
    [0.528, c.gmi],
    [0.404, c.aqi],
    [0.892, c.sgi],
    [0.115, c.depi],
    [-0.172, c.sgai],
    [4.679, c.tata],
    [-0.327, c.lvgi],
  ]);
}

export const BENEISH_CUTOFF = -1.78;

// ——— statement access across years ———

/**
 * A balance at the end of year Y: Y's own ending balance when Y was submitted (even if the line is missing
 * there — no mixing of sources), otherwise the beginning balance of Y + 1's statement.
 */
function balanceAt(ctx: ReportContext, y: number, key: string): Num {
  if (ctx.hasYear(y)) return ctx.line(y, 'balance', key);
  return ctx.hasYear(y + 1) ? ctx.prior(y + 1, 'balance', key) : null;
}

/** An income amount of year Y, read like `balanceAt`. */
function incomeOf(ctx: ReportContext, y: number, key: string): Num {
  if (ctx.hasYear(y)) return ctx.line(y, 'income', key);
  return ctx.hasYear(y + 1) ? ctx.prior(y + 1, 'income', key) : null;
}

/** Sum where absent lines count as 0, but null when every line is absent. */
function sumPresent(values: readonly Num[]): Num {
  return values.every((v) => v === null) ? null : sum(values, { missingAsZero: true });
}

const positive = (v: Num): Num => (v === null || v.lessThanOrEqualTo(0) ? null : v);
const HUNDRED = num(100);

interface YearScores {
  x: AltmanInputs;
  zPrime: Num;
  zDoublePrime: Num;
  beneish: BeneishInputs;
  m: Num;
  /** Prior-year receivables ÷ revenue, for the tiny-denominator caveat on DSRI. */
  priorReceivablesShare: Num;
  piotroski: PiotroskiSignal[];
  f: number | null;
}

interface PiotroskiSignal {
  key: string;
  label: string;
  value: Num;
  pass: boolean | null;
}

function altmanInputs(ctx: ReportContext, y: number): AltmanInputs {
  const b = (key: string) => balanceAt(ctx, y, key);
  const totalAssets = positive(b('total_assets'));
  const ebit = add(incomeOf(ctx, y, 'total_profit'), incomeOf(ctx, y, 'interest_expense') ?? num(0));
  return {
    x1: ratio(sub(b('total_current_assets'), b('total_current_liabilities')), totalAssets),
    x2: ratio(sumPresent([b('surplus_reserve'), b('retained_earnings')]), totalAssets),
    x3: ratio(ebit, totalAssets),
    x4: ratio(b('total_shareholders_equity'), b('total_liabilities')),
    x5: ratio(incomeOf(ctx, y, 'revenue'), totalAssets),
  };
}

/**
 * A ratio of one year (possibly an unsubmitted year t − 1 or t − 2, read through `balanceAt`/`incomeOf`). Each is
 * asked for both as year t and, for year t + 1, as its prior year, so it is read through `ctx.memo`: computed once
 * per report and year.
 */
type YearRatio = (ctx: ReportContext, y: number) => Num;

const grossMargin: YearRatio = (ctx, y) => {
  const revenue = incomeOf(ctx, y, 'revenue');
  return ratio(sub(revenue, incomeOf(ctx, y, 'operating_cost')), revenue);
};

/** 长期借款 + 应付债券 (absent lines 0), or null without a balance sheet at that date. */
function longTermDebt(ctx: ReportContext, y: number): Num {
  if (balanceAt(ctx, y, 'total_assets') === null) return null;
  return sum([balanceAt(ctx, y, 'long_term_borrowings'), balanceAt(ctx, y, 'bonds_payable')], {
    missingAsZero: true,
  });
}

const positiveAssets = (ctx: ReportContext, y: number): Num => positive(balanceAt(ctx, y, 'total_assets'));

// Beneish's year ratios.
const receivablesToRevenue: YearRatio = (ctx, y) =>
  ratio(balanceAt(ctx, y, 'accounts_receivable'), incomeOf(ctx, y, 'revenue'));
const softAssets: YearRatio = (ctx, y) =>
  sub(
    num(1),
    ratio(
      add(balanceAt(ctx, y, 'total_current_assets'), balanceAt(ctx, y, 'fixed_assets_net') ?? num(0)),
      positiveAssets(ctx, y),
    ),
  );
const sgaToRevenue: YearRatio = (ctx, y) =>
  ratio(
    sumPresent([incomeOf(ctx, y, 'sales_expenses'), incomeOf(ctx, y, 'administrative_expenses')]),
    incomeOf(ctx, y, 'revenue'),
  );
/** SG&A with 研发费用, for a pair of years of which either reports R&D apart (one basis on both sides). */
const sgaRdToRevenue: YearRatio = (ctx, y) =>
  ratio(
    sumPresent([
      incomeOf(ctx, y, 'sales_expenses'),
      incomeOf(ctx, y, 'administrative_expenses'),
      incomeOf(ctx, y, 'rd_expenses'),
    ]),
    incomeOf(ctx, y, 'revenue'),
  );
const debtToAssets: YearRatio = (ctx, y) =>
  ratio(add(balanceAt(ctx, y, 'total_current_liabilities'), longTermDebt(ctx, y)), positiveAssets(ctx, y));

function beneishInputs(ctx: ReportContext, t: number): BeneishInputs {
  const p = t - 1;
  const at = (f: YearRatio, y: number) => ctx.memo(f, y);
  const index = (f: YearRatio): Num => ratio(at(f, t), at(f, p));
  const revenue = (y: number) => incomeOf(ctx, y, 'revenue');
  const netProfit = incomeOf(ctx, t, 'continuing_ops_net_profit') ?? incomeOf(ctx, t, 'net_profit');
  return {
    dsri: index(receivablesToRevenue),
    gmi: ratio(at(grossMargin, p), at(grossMargin, t)),
    aqi: index(softAssets),
    sgi: ratio(revenue(t), revenue(p)),
    depi: num(1),
    // 研发费用 split out of 管理费用 since the 2018 format: when either year reports it apart, it is added back on
    // both sides, so the index compares one basis (a year without the line counts it within 管理费用).
    sgai: index(
      incomeOf(ctx, t, 'rd_expenses') !== null || incomeOf(ctx, p, 'rd_expenses') !== null
        ? sgaRdToRevenue
        : sgaToRevenue,
    ),
    lvgi: index(debtToAssets),
    tata: ratio(sub(netProfit, ctx.line(t, 'cash_flow', 'net_cf_operating')), positiveAssets(ctx, t)),
  };
}

// Piotroski's year ratios: returns and turnover on beginning-of-year total assets (Piotroski 2000).
const returnOnAssets: YearRatio = (ctx, y) =>
  ratio(incomeOf(ctx, y, 'net_profit'), positiveAssets(ctx, y - 1));
const longTermLeverage: YearRatio = (ctx, y) =>
  ratio(longTermDebt(ctx, y), average(positiveAssets(ctx, y - 1), positiveAssets(ctx, y)));
const currentRatio: YearRatio = (ctx, y) =>
  ratio(balanceAt(ctx, y, 'total_current_assets'), balanceAt(ctx, y, 'total_current_liabilities'));
const assetTurnover: YearRatio = (ctx, y) => ratio(incomeOf(ctx, y, 'revenue'), positiveAssets(ctx, y - 1));

function piotroskiSignals(ctx: ReportContext, t: number): PiotroskiSignal[] {
  const p = t - 1;
  const at = (f: YearRatio, y: number) => ctx.memo(f, y);
  const cfo = ctx.line(t, 'cash_flow', 'net_cf_operating');
  const cfoToAssets = ratio(cfo, positiveAssets(ctx, p));
  const contributed = (y: number) =>
    sumPresent([balanceAt(ctx, y, 'paid_in_capital'), balanceAt(ctx, y, 'capital_reserve')]);

  const roaT = at(returnOnAssets, t);
  const deltaRoa = sub(roaT, at(returnOnAssets, p));
  const accrual = sub(roaT, cfoToAssets);
  const [levT, levP] = [at(longTermLeverage, t), at(longTermLeverage, p)];
  const deltaLeverage = sub(levT, levP);
  const deltaCurrent = sub(at(currentRatio, t), at(currentRatio, p));
  const equityIncrease = sub(contributed(t), contributed(p));
  const deltaMargin = sub(at(grossMargin, t), at(grossMargin, p));
  const deltaTurnover = sub(at(assetTurnover, t), at(assetTurnover, p));
  const test = (v: Num, pass: (d: Decimal) => boolean): boolean | null => (v === null ? null : pass(v));
  const pctOf = (v: Num) => mul(v, HUNDRED);

  return [
    { key: 'roa', label: '总资产收益率为正', value: pctOf(roaT), pass: test(roaT, (d) => d.greaterThan(0)) },
    {
      key: 'cfo',
      label: '经营活动现金流量净额为正',
      value: pctOf(cfoToAssets),
      pass: test(cfo, (d) => d.greaterThan(0)),
    },
    {
      key: 'delta_roa',
      label: '总资产收益率提高',
      value: pctOf(deltaRoa),
      pass: test(deltaRoa, (d) => d.greaterThan(0)),
    },
    {
      key: 'accrual',
      label: '经营现金回报高于总资产收益率',
      value: pctOf(accrual),
      pass: test(accrual, (d) => d.lessThan(0)),
    },
    {
      key: 'delta_leverage',
      label: '长期负债率下降',
      value: pctOf(deltaLeverage),
      // No long-term debt in either year has not raised leverage: counted as a pass.
      pass: test(deltaLeverage, (d) => d.lessThan(0) || (levT!.isZero() && levP!.isZero())),
    },
    {
      key: 'delta_current_ratio',
      label: '流动比率提高',
      value: deltaCurrent,
      pass: test(deltaCurrent, (d) => d.greaterThan(0)),
    },
    {
      key: 'equity_offer',
      label: '未增发股本（实收资本与资本公积未增加）',
      value: toWan(equityIncrease),
      pass: test(equityIncrease, (d) => d.lessThanOrEqualTo(0)),
    },
    {
      key: 'delta_gross_margin',
      label: '毛利率提高',
      value: pctOf(deltaMargin),
      pass: test(deltaMargin, (d) => d.greaterThan(0)),
    },
    {
      key: 'delta_asset_turnover',
      label: '总资产周转率提高',
      value: deltaTurnover,
      pass: test(deltaTurnover, (d) => d.greaterThan(0)),
    },
  ];
}

function scoresFor(ctx: ReportContext, year: number): YearScores {
  const x = altmanInputs(ctx, year);
  const beneish = beneishInputs(ctx, year);
  const piotroski = piotroskiSignals(ctx, year);
  const complete = piotroski.every((s) => s.pass !== null);
  return {
    x,
    zPrime: altmanZPrime(x),
    zDoublePrime: altmanZDoublePrime(x),
    beneish,
    m: beneishM(beneish),
    priorReceivablesShare: ctx.memo(receivablesToRevenue, year - 1),
    piotroski,
    f: complete ? piotroski.filter((s) => s.pass).length : null,
  };
}

export type AltmanModel = 'z_prime' | 'z_double_prime';

/** Manufacturing (GB/T 4754 门类 C) → Z′, everything else (or no industry given) → Z''. */
export function headlineModel(ctx: ReportContext): AltmanModel {
  const code = ctx.report.enterpriseInfo?.industry_sector_code?.trim().toUpperCase();
  return code === 'C' ? 'z_prime' : 'z_double_prime';
}

const MODEL_NAMES: Record<AltmanModel, string> = {
  z_prime: "Altman Z'值（制造业非上市公司模型，账面所有者权益）",
  z_double_prime: "Altman Z''值（非制造业/新兴市场模型）",
};

const headlineOf = (scores: YearScores, model: AltmanModel): Num =>
  model === 'z_prime' ? scores.zPrime : scores.zDoublePrime;
const cutoffsOf = (model: AltmanModel) => (model === 'z_prime' ? Z_PRIME_CUTOFFS : Z_DOUBLE_PRIME_CUTOFFS);

const BENEISH_KEYS = ['dsri', 'gmi', 'aqi', 'sgi', 'depi', 'sgai', 'lvgi', 'tata'] as const;

function yearValues(scores: YearScores, model: AltmanModel): Record<string, unknown> {
  const headline = headlineOf(scores, model);
  const cutoffs = cutoffsOf(model);
  const out: Record<string, unknown> = {
    altman_headline_model: model,
    altman_headline_score: round2(headline),
    altman_headline_zone: zoneOf(headline, cutoffs),
    altman_x1: round2(scores.x.x1),
    altman_x2: round2(scores.x.x2),
    altman_x3: round2(scores.x.x3),
    altman_x4: round2(scores.x.x4),
    altman_x5: round2(scores.x.x5),
    // The 1968 Z needs the market value of equity, which no statement line carries.
    altman_z: null,
    altman_z_zone: null,
    altman_z_prime: round2(scores.zPrime),
    altman_z_prime_zone: zoneOf(scores.zPrime, Z_PRIME_CUTOFFS),
    altman_z_double_prime: round2(scores.zDoublePrime),
    altman_z_double_prime_zone: zoneOf(scores.zDoublePrime, Z_DOUBLE_PRIME_CUTOFFS),
  };
  for (const key of BENEISH_KEYS) out[`beneish_${key}`] = round2(scores.beneish[key]);
  out.beneish_m = round2(scores.m);
  for (const s of scores.piotroski) {
    out[`piotroski_${s.key}`] = round2(s.value);
    out[`piotroski_${s.key}_signal`] = s.pass === null ? null : s.pass ? 1 : 0;
  }
  out.piotroski_signals_available = scores.piotroski.filter((s) => s.pass !== null).length;
  out.piotroski_signals_passed = scores.piotroski.filter((s) => s.pass === true).length;
  out.piotroski_f = scores.f;
  return out;
}

// ——— risk rules (evaluated on the released year) ———

export const ALTMAN_Z_PRIME_ZONE_RULE: RiskRuleDoc = {
  code: 'distress_signals.altman_z_prime_zone',
  tiers: [
    { level: 'danger', threshold: Z_PRIME_CUTOFFS.distress },
    { level: 'warning', threshold: Z_PRIME_CUTOFFS.safe },
  ],
  description:
    "制造业企业（行业门类C）以Altman Z'值（非上市公司模型，X4为账面所有者权益÷负债合计）为主：低于1.23处于困境区为危险，1.23至2.90处于灰色区为警告。",
  message: '{year}年{model}为{value}，{zone}，{advice}。',
};

export const ALTMAN_Z_DOUBLE_PRIME_ZONE_RULE: RiskRuleDoc = {
  code: 'distress_signals.altman_z_double_prime_zone',
  tiers: [
    { level: 'danger', threshold: Z_DOUBLE_PRIME_CUTOFFS.distress },
    { level: 'warning', threshold: Z_DOUBLE_PRIME_CUTOFFS.safe },
  ],
  description: "非制造业企业以Altman Z''值为主：低于1.10处于困境区为危险，1.10至2.60处于灰色区为警告。",
  message: '{year}年{model}为{value}，{zone}，{advice}。',
};

export const ALTMAN_SAFE_RULE: RiskRuleDoc = {
  code: 'distress_signals.altman_safe',
  tiers: [{ level: 'info', threshold: 0 }],
  description: 'Altman主模型分值处于安全区（积极信号，列入 strengths，不计入风险）。',
  message: '{year}年{model}为{value}，高于{threshold}，处于安全区。',
  role: 'strength',
};

export const BENEISH_RULE: RiskRuleDoc = {
  code: 'distress_signals.beneish_m_high',
  tiers: [{ level: 'warning', threshold: BENEISH_CUTOFF }],
  description:
    'Beneish M值高于−1.78（Beneish 1999）提示可能存在盈余操纵。折旧数据缺失，DEPI按1计；上年应收账款占营业收入比例很小时DSRI易被放大，消息中予以提示。',
  message: '{year}年Beneish M值为{value}，高于{threshold}，存在盈余操纵的可能（{components}）{caveat}。',
};

export const PIOTROSKI_WEAK_RULE: RiskRuleDoc = {
  code: 'distress_signals.piotroski_f_low',
  tiers: [{ level: 'warning', threshold: 2 }],
  description: 'Piotroski F值（9项信号得分）不高于2分，财务基本面偏弱。',
  message:
    '{year}年Piotroski F值为{value}分（满分9分），不高于{threshold}分，财务基本面偏弱；未通过的信号：{failed}。',
};

export const PIOTROSKI_STRONG_RULE: RiskRuleDoc = {
  code: 'distress_signals.piotroski_f_high',
  tiers: [{ level: 'info', threshold: 8 }],
  description: 'Piotroski F值达到8分及以上，财务基本面强健（积极信号，列入 strengths，不计入风险）。',
  role: 'strength',
  message: '{year}年Piotroski F值为{value}分（满分9分），达到{threshold}分及以上，财务基本面强健。',
};

/** Prior-year receivables below this share of revenue make DSRI a ratio of tiny numbers. */
const TINY_RECEIVABLES_PCT = 1;

function risks(ctx: ReportContext, scores: YearScores, model: AltmanModel): RiskItem[] {
  const year = String(ctx.latestYear);
  const items: RiskItem[] = [];

  const headline = headlineOf(scores, model);
  const cutoffs = cutoffsOf(model);
  const zone = zoneOf(headline, cutoffs);
  if (headline !== null && zone === 'safe') {
    items.push({
      level: 'info',
      code: ALTMAN_SAFE_RULE.code,
      message: fillTemplate(ALTMAN_SAFE_RULE.message, {
        year,
        model: MODEL_NAMES[model],
        value: format2(headline),
        threshold: cutoffs.safe.toFixed(2),
      }),
    });
  }
  if (headline !== null && (zone === 'distress' || zone === 'grey')) {
    const rule = model === 'z_prime' ? ALTMAN_Z_PRIME_ZONE_RULE : ALTMAN_Z_DOUBLE_PRIME_ZONE_RULE;
    items.push({
      level: zone === 'distress' ? 'danger' : 'warning',
      code: rule.code,
      message: fillTemplate(rule.message, {
        year,
        model: MODEL_NAMES[model],
        value: format2(headline),
        zone:
          zone === 'distress'
            ? `低于${cutoffs.distress.toFixed(2)}，处于困境区`
            : `介于${cutoffs.distress.toFixed(2)}与${cutoffs.safe.toFixed(2)}之间，处于灰色区`,
        advice: zone === 'distress' ? '财务困境风险较高' : '需关注财务状况恶化的可能',
      }),
    });
  }

  const m = scores.m;
  if (m?.greaterThan(num(BENEISH_CUTOFF))) {
    const b = scores.beneish;
    const components = BENEISH_KEYS.map((k) => `${k.toUpperCase()} ${format2(b[k]!)}`).join('、');
    const sharePct = mul(scores.priorReceivablesShare, HUNDRED);
    items.push({
      level: 'warning',
      code: BENEISH_RULE.code,
      message: fillTemplate(BENEISH_RULE.message, {
        year,
        value: format2(m),
        threshold: String(BENEISH_CUTOFF),
        components,
        caveat: sharePct?.lessThan(num(TINY_RECEIVABLES_PCT))
          ? `；上年应收账款仅占营业收入的${format2(sharePct)}%，DSRI可能因基数过小而被放大，请结合应收账款实际规模判断`
          : '',
      }),
    });
  }

  const f = scores.f;
  if (f !== null && f <= PIOTROSKI_WEAK_RULE.tiers[0]!.threshold) {
    items.push({
      level: 'warning',
      code: PIOTROSKI_WEAK_RULE.code,
      message: fillTemplate(PIOTROSKI_WEAK_RULE.message, {
        year,
        value: String(f),
        threshold: String(PIOTROSKI_WEAK_RULE.tiers[0]!.threshold),
        failed: scores.piotroski
          .filter((s) => s.pass === false)
          .map((s) => s.label)
          .join('、'),
      }),
    });
  } else if (f !== null && f >= PIOTROSKI_STRONG_RULE.tiers[0]!.threshold) {
    items.push({
      level: 'info',
      code: PIOTROSKI_STRONG_RULE.code,
      message: fillTemplate(PIOTROSKI_STRONG_RULE.message, {
        year,
        value: String(f),
        threshold: String(PIOTROSKI_STRONG_RULE.tiers[0]!.threshold),
      }),
    });
  }
  return items;
}

function computeDistressSignals(ctx: ReportContext): ModuleResult {
  const model = headlineModel(ctx);
  const scores = new Map(ctx.years.map((y) => [y, scoresFor(ctx, y)]));
  const latest = scores.get(ctx.latestYear)!;
  const sp_result = seriesLayout(ctx, (year) => yearValues(scores.get(year)!, model));
  return { sp_result, risk_items: risks(ctx, latest, model) };
}

// ——— field documentation ———

const BAL = (k: string): LineRef => `balance.${k}`;
const INC = (k: string): LineRef => `income.${k}`;
const CF = (k: string): LineRef => `cash_flow.${k}`;

const ALTMAN_INPUTS: readonly LineRef[] = [
  BAL('total_current_assets'),
  BAL('total_current_liabilities'),
  BAL('surplus_reserve'),
  BAL('retained_earnings'),
  BAL('total_assets'),
  BAL('total_shareholders_equity'),
  BAL('total_liabilities'),
  INC('total_profit'),
  INC('interest_expense'),
  INC('revenue'),
];

const BENEISH_INPUTS: readonly LineRef[] = [
  BAL('accounts_receivable'),
  BAL('total_current_assets'),
  BAL('fixed_assets_net'),
  BAL('total_assets'),
  BAL('total_current_liabilities'),
  BAL('long_term_borrowings'),
  BAL('bonds_payable'),
  INC('revenue'),
  INC('operating_cost'),
  INC('sales_expenses'),
  INC('administrative_expenses'),
  INC('net_profit'),
  INC('continuing_ops_net_profit'),
  CF('net_cf_operating'),
];

const ZONE_NOTE = '文本取值：safe（安全区）、grey（灰色区）、distress（困境区）；分值缺失时为空。';

const PIOTROSKI_DOCS: readonly (Omit<FieldDoc, 'key'> & { key: string; signal: string })[] = [
  {
    key: 'roa',
    label: 'F1 总资产收益率',
    unit: '%',
    formula: '净利润 ÷ 年初资产总计 × 100',
    inputs: [INC('net_profit'), BAL('total_assets')],
    signal: '总资产收益率 > 0 得1分',
  },
  {
    key: 'cfo',
    label: 'F2 经营现金回报率',
    unit: '%',
    formula: '经营活动现金流量净额 ÷ 年初资产总计 × 100',
    inputs: [CF('net_cf_operating'), BAL('total_assets')],
    signal: '经营活动现金流量净额 > 0 得1分',
  },
  {
    key: 'delta_roa',
    label: 'F3 总资产收益率变动',
    unit: '个百分点',
    formula: '本年总资产收益率 − 上年总资产收益率（均以年初资产总计为分母）',
    inputs: [INC('net_profit'), BAL('total_assets')],
    signal: '变动 > 0 得1分',
  },
  {
    key: 'accrual',
    label: 'F4 应计项目',
    unit: '个百分点',
    formula: '总资产收益率 − 经营现金回报率',
    inputs: [INC('net_profit'), CF('net_cf_operating'), BAL('total_assets')],
    signal: '< 0（经营现金回报高于总资产收益率）得1分',
  },
  {
    key: 'delta_leverage',
    label: 'F5 长期负债率变动',
    unit: '个百分点',
    formula: '(长期借款 + 应付债券) ÷ 平均资产总计 × 100 的本年值 − 上年值',
    inputs: [BAL('long_term_borrowings'), BAL('bonds_payable'), BAL('total_assets')],
    signal: '变动 < 0 得1分；两年均无长期借款和应付债券时亦得1分',
  },
  {
    key: 'delta_current_ratio',
    label: 'F6 流动比率变动',
    unit: '倍',
    formula: '本年末流动比率 − 上年末流动比率',
    inputs: [BAL('total_current_assets'), BAL('total_current_liabilities')],
    signal: '变动 > 0 得1分',
  },
  {
    key: 'equity_offer',
    label: 'F7 实收资本与资本公积增加额',
    unit: '万元',
    formula: '(本年末实收资本 + 资本公积) − (上年末实收资本 + 资本公积)，÷ 10000',
    inputs: [BAL('paid_in_capital'), BAL('capital_reserve')],
    signal: '增加额 ≤ 0（未增发股本）得1分；以实收资本与资本公积代替股数',
  },
  {
    key: 'delta_gross_margin',
    label: 'F8 毛利率变动',
    unit: '个百分点',
    formula: '本年毛利率 − 上年毛利率，毛利率 = (营业收入 − 营业成本) ÷ 营业收入 × 100',
    inputs: [INC('revenue'), INC('operating_cost')],
    signal: '变动 > 0 得1分',
  },
  {
    key: 'delta_asset_turnover',
    label: 'F9 总资产周转率变动',
    unit: '次',
    formula: '本年(营业收入 ÷ 年初资产总计) − 上年(营业收入 ÷ 年初资产总计)',
    inputs: [INC('revenue'), BAL('total_assets')],
    signal: '变动 > 0 得1分',
  },
];

const FIELDS: readonly FieldDoc[] = [
  {
    key: 'altman_headline_model',
    label: 'Altman主模型',
    unit: '倍',
    formula:
      "企业信息行业门类代码为C（制造业）时取 Altman Z'值（非上市制造业模型），否则取 Altman Z''值（非制造业模型）",
    inputs: ['balance.total_assets'],
    note: '文本取值（z_prime / z_double_prime），非数值。',
  },
  {
    key: 'altman_headline_score',
    label: 'Altman主模型分值',
    unit: '倍',
    formula: "主模型为Z'时等于Altman Z'值，否则等于Altman Z''值",
    inputs: ALTMAN_INPUTS,
  },
  {
    key: 'altman_headline_zone',
    label: 'Altman主模型区间',
    unit: '',
    formula: '按主模型的临界值划分',
    inputs: ALTMAN_INPUTS,
    note: ZONE_NOTE,
  },
  {
    key: 'altman_x1',
    label: 'X1 营运资本/资产总计',
    unit: '倍',
    formula: '(年末流动资产合计 − 年末流动负债合计) ÷ 年末资产总计',
    inputs: [BAL('total_current_assets'), BAL('total_current_liabilities'), BAL('total_assets')],
    note: '资产总计小于或等于零时为空（以下各比率同）。',
  },
  {
    key: 'altman_x2',
    label: 'X2 留存收益/资产总计',
    unit: '倍',
    formula: '(年末盈余公积 + 年末未分配利润) ÷ 年末资产总计',
    inputs: [BAL('surplus_reserve'), BAL('retained_earnings'), BAL('total_assets')],
    note: '缺失的一项按零计，两项均缺失时为空。',
  },
  {
    key: 'altman_x3',
    label: 'X3 息税前利润/资产总计',
    unit: '倍',
    formula: '(利润总额 + 利息费用) ÷ 年末资产总计',
    inputs: [INC('total_profit'), INC('interest_expense'), BAL('total_assets')],
    note: '利息费用缺失时按零计。',
  },
  {
    key: 'altman_x4',
    label: 'X4 所有者权益/负债合计',
    unit: '倍',
    formula: '年末所有者权益合计（账面值）÷ 年末负债合计',
    inputs: [BAL('total_shareholders_equity'), BAL('total_liabilities')],
    note: "账面值，为Z'与Z''模型的定义（不是1968年Z模型的股权市值）；负债合计为零时为空，Z'与Z''随之为空。",
  },
  {
    key: 'altman_x5',
    label: 'X5 营业收入/资产总计',
    unit: '倍',
    formula: '营业收入 ÷ 年末资产总计',
    inputs: [INC('revenue'), BAL('total_assets')],
  },
  {
    key: 'altman_z',
    label: 'Altman Z值（1968年上市公司模型）',
    unit: '倍',
    formula: '1.2X1 + 1.4X2 + 3.3X3 + 0.6X4 + 1.0X5，X4 = 股权市值 ÷ 负债合计',
    inputs: ALTMAN_INPUTS,
    note: '需要股权市值，报表不含该数据，恒为空（altman_z_zone 同）；临界值 2.99 / 1.81。',
  },
  {
    key: 'altman_z_zone',
    label: 'Altman Z值区间',
    unit: '',
    formula: '高于2.99为安全区；低于1.81为困境区；其余为灰色区',
    inputs: ALTMAN_INPUTS,
    note: `恒为空（见 altman_z）。${ZONE_NOTE}`,
  },
  {
    key: 'altman_z_prime',
    label: "Altman Z'值（非上市公司/制造业，账面权益）",
    unit: '倍',
    formula: '0.717X1 + 0.847X2 + 3.107X3 + 0.420X4 + 0.998X5（由未取整的X计算）',
    inputs: ALTMAN_INPUTS,
    note: '临界值：> 2.90 安全区，1.23–2.90 灰色区，< 1.23 困境区（Altman 1983）。',
  },
  {
    key: 'altman_z_prime_zone',
    label: "Altman Z'值区间",
    unit: '',
    formula: '高于2.90为安全区；低于1.23为困境区；其余为灰色区',
    inputs: ALTMAN_INPUTS,
    note: ZONE_NOTE,
  },
  {
    key: 'altman_z_double_prime',
    label: "Altman Z''值（非制造业/新兴市场）",
    unit: '倍',
    formula: '6.56X1 + 3.26X2 + 6.72X3 + 1.05X4（由未取整的X计算）',
    inputs: ALTMAN_INPUTS,
    note: '临界值：> 2.60 安全区，1.10–2.60 灰色区，< 1.10 困境区（Altman 2000）。',
  },
  {
    key: 'altman_z_double_prime_zone',
    label: "Altman Z''值区间",
    unit: '',
    formula: '高于2.60为安全区；低于1.10为困境区；其余为灰色区',
    inputs: ALTMAN_INPUTS,
    note: ZONE_NOTE,
  },
  {
    key: 'beneish_dsri',
    label: 'DSRI 应收账款指数',
    unit: '倍',
    formula: '(本年末应收账款 ÷ 本年营业收入) ÷ (上年末应收账款 ÷ 上年营业收入)',
    inputs: [BAL('accounts_receivable'), INC('revenue')],
    note: '上年数取上一提交年度，首个年度取本年报表的年初余额/上年金额栏；上年应收账款极小时该指数会被放大。',
  },
  {
    key: 'beneish_gmi',
    label: 'GMI 毛利率指数',
    unit: '倍',
    formula: '上年毛利率 ÷ 本年毛利率',
    inputs: [INC('revenue'), INC('operating_cost')],
  },
  {
    key: 'beneish_aqi',
    label: 'AQI 资产质量指数',
    unit: '倍',
    formula: '[1 − (流动资产合计 + 固定资产) ÷ 资产总计]本年 ÷ [同]上年',
    inputs: [BAL('total_current_assets'), BAL('fixed_assets_net'), BAL('total_assets')],
    note: '固定资产缺失时按零计。',
  },
  {
    key: 'beneish_sgi',
    label: 'SGI 营业收入增长指数',
    unit: '倍',
    formula: '本年营业收入 ÷ 上年营业收入',
    inputs: [INC('revenue')],
  },
  {
    key: 'beneish_depi',
    label: 'DEPI 折旧率指数',
    unit: '倍',
    formula: '恒为1',
    inputs: [BAL('fixed_assets_net')],
    note: '报表未提供折旧额，按中性值1计（常用处理）。',
  },
  {
    key: 'beneish_sgai',
    label: 'SGAI 销售管理费用指数',
    unit: '倍',
    formula: '[(销售费用 + 管理费用 [+ 研发费用]) ÷ 营业收入]本年 ÷ [同]上年',
    inputs: [INC('sales_expenses'), INC('administrative_expenses'), INC('rd_expenses'), INC('revenue')],
    note: '两年中任一年单独列示研发费用时，两年均加入研发费用（同一口径；2018年格式起研发费用从管理费用中拆出）；缺失的一项按零计，全部缺失时为空。',
  },
  {
    key: 'beneish_lvgi',
    label: 'LVGI 财务杠杆指数',
    unit: '倍',
    formula: '[(流动负债合计 + 长期借款 + 应付债券) ÷ 资产总计]本年 ÷ [同]上年',
    inputs: [
      BAL('total_current_liabilities'),
      BAL('long_term_borrowings'),
      BAL('bonds_payable'),
      BAL('total_assets'),
    ],
    note: '长期借款、应付债券缺失时按零计。',
  },
  {
    key: 'beneish_tata',
    label: 'TATA 总应计/资产总计',
    unit: '倍',
    formula: '(持续经营净利润（缺失时取净利润） − 经营活动现金流量净额) ÷ 年末资产总计',
    inputs: [
      INC('continuing_ops_net_profit'),
      INC('net_profit'),
      CF('net_cf_operating'),
      BAL('total_assets'),
    ],
    note: '未提交现金流量表时为空，M值随之为空。',
  },
  {
    key: 'beneish_m',
    label: 'Beneish M值',
    unit: '倍',
    formula:
      '−4.84 + 0.920DSRI + 0.528GMI + 0.404AQI + 0.892SGI + 0.115DEPI − 0.172SGAI + 4.679TATA − 0.327LVGI（由未取整的指数计算）',
    inputs: BENEISH_INPUTS,
    note: '> −1.78 提示可能存在盈余操纵（Beneish 1999）；任一指数为空时为空。',
  },
  ...PIOTROSKI_DOCS.flatMap(({ signal, ...doc }): FieldDoc[] => [
    { ...doc, key: `piotroski_${doc.key}` },
    {
      key: `piotroski_${doc.key}_signal`,
      label: `${doc.label}得分`,
      unit: '分',
      formula: signal,
      inputs: doc.inputs,
      note: '1为通过，0为未通过，无法计算时为空。',
    },
  ]),
  {
    key: 'piotroski_signals_available',
    label: '可计算的F信号数',
    unit: '个',
    formula: '9项信号中可计算的项数',
    inputs: [INC('net_profit'), CF('net_cf_operating'), BAL('total_assets')],
  },
  {
    key: 'piotroski_signals_passed',
    label: '通过的F信号数',
    unit: '个',
    formula: '9项信号中得1分的项数',
    inputs: [INC('net_profit'), CF('net_cf_operating'), BAL('total_assets')],
  },
  {
    key: 'piotroski_f',
    label: 'Piotroski F值',
    unit: '分',
    formula: '9项信号得分之和（0–9分）',
    inputs: [INC('net_profit'), CF('net_cf_operating'), BAL('total_assets')],
    note: '9项信号均可计算时才给出；首个年度缺少前两年资产数据、未提交现金流量表时为空。≤ 2 偏弱，≥ 8 强健。',
  },
];

export const distressSignalsModule: AnalysisModule = {
  slug: 'distress_signals',
  label: '财务困境与操纵风险信号',
  section: 'comprehensive_analysis',
  description:
    "Altman Z'/Z''财务困境评分、Beneish M盈余操纵评分与Piotroski F基本面评分，列示各组成指标与逐年序列。",
  kind: 'indicator',
  fields: FIELDS,
  riskRules: [
    ALTMAN_Z_PRIME_ZONE_RULE,
    ALTMAN_Z_DOUBLE_PRIME_ZONE_RULE,
    ALTMAN_SAFE_RULE,
    BENEISH_RULE,
    PIOTROSKI_WEAK_RULE,
    PIOTROSKI_STRONG_RULE,
  ],
  compute: computeDistressSignals,
};
