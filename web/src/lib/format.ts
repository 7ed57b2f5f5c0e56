/**
 * Number, value and date formatting for the report (pure: also used by the chart builders, the Excel export
 * and unit tests). The display rule (also in README.md, "Using the API"):
 * - tables and charts: amounts in 万元 as the API gives them, thousands separators, two decimals;
 * - cards and running text (headline figures, risk texts, data gaps): an amount of 1 亿元 (10,000 万元) or more
 *   in 亿元, below that in 万元, always with thousands separators;
 * - counts (unit 个): whole numbers; missing values: "—";
 * - one minus sign everywhere: the ASCII hyphen-minus "-" (as Intl.NumberFormat writes it).
 */

export const EMPTY = '—';

/** Whole-number digits in groups of three: `1234567` → `1,234,567`. */
const GROUPS = /\B(?=(\d{3})+$)/g;

/**
 * `abs` (≥ 0, < 1e21) rounded to `decimals` places half away from zero on its shortest decimal form (what
 * `String(abs)` writes: 1.005, not the double's exact 1.00499999…), as V8's Intl.NumberFormat rounds.
 */
function roundDecimal(abs: number, decimals: number): string {
  const text = String(abs);
  // Only values below 1e-6 are written with an exponent here: zero at any of our decimals.
  if (text.includes('e')) return decimals > 0 ? `0.${'0'.repeat(decimals)}` : '0';
  const [whole, fraction = ''] = text.split('.') as [string, string?];
  if (fraction.length <= decimals) return decimals > 0 ? `${whole}.${fraction.padEnd(decimals, '0')}` : whole;
  let digits = BigInt(whole + fraction.slice(0, decimals));
  if (fraction[decimals]! >= '5') digits += 1n;
  const rounded = digits.toString().padStart(decimals + 1, '0');
  return decimals > 0 ? `${rounded.slice(0, -decimals)}.${rounded.slice(-decimals)}` : rounded;
}

/**
 * A number as zh-CN's Intl.NumberFormat writes it — groups of three with ",", "-" for minus (negative zero and
 * values rounding to zero included), between `minDecimals` and `maxDecimals` decimals — without Intl: making the
 * first Intl formatter loads the locale's ICU data, a 130 ms task on bench:web's throttled phone, in the first
 * screen's path. test/unit/shareFormat.test.ts compares the two on random values. From 1e21 on Intl is asked.
 */
export function formatFixed(value: number, minDecimals: number, maxDecimals = minDecimals): string {
  const abs = Math.abs(value);
  if (abs >= 1e21) {
    return new Intl.NumberFormat('zh-CN', {
      minimumFractionDigits: minDecimals,
      maximumFractionDigits: maxDecimals,
    }).format(value);
  }
  let text = roundDecimal(abs, maxDecimals);
  if (maxDecimals > minDecimals) {
    const keep = text.length - (maxDecimals - minDecimals);
    let end = text.length;
    while (end > keep && text[end - 1] === '0') end -= 1;
    text = text.slice(0, end);
    if (text.endsWith('.')) text = text.slice(0, -1);
  }
  const dot = text.indexOf('.');
  const whole = dot === -1 ? text : text.slice(0, dot);
  const fraction = dot === -1 ? '' : text.slice(dot);
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  return `${sign}${whole.replace(GROUPS, ',')}${fraction}`;
}

const twoDecimals = (value: number) => formatFixed(value, 2);

export function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Whether a value is a whole count or a whole score (Piotroski's 0–9): shown, and exported, without decimals. */
export function isWholeCount(value: number, unit?: string): boolean {
  return unit === '个' || (unit === '分' && Number.isInteger(value));
}

/** A number as the report shows it: `12,345.67`; counts (unit 个) as `12`; null/undefined/NaN as `—`. */
export function formatNumber(value: unknown, unit?: string): string {
  if (!isNumber(value)) return EMPTY;
  return isWholeCount(value, unit) ? formatFixed(value, 0) : twoDecimals(value);
}

/** A number with its unit for tooltips and labels: `12,345.67 万元`, `23.35%`, `1.25 倍`. */
export function formatWithUnit(value: unknown, unit: string): string {
  if (!isNumber(value)) return EMPTY;
  const number = formatNumber(value, unit);
  if (unit === '%') return `${number}%`;
  if (unit === '个' || unit === '') return number;
  return `${number} ${unit}`;
}

/** 万元 per 亿元. */
const WAN_PER_YI = 10_000;

/**
 * An amount for a card or a sentence: `1,981.53 亿元` from 19,815,302.75 万元, `3,520.10 万元` below 1 亿元;
 * other units as formatWithUnit.
 */
export function formatAmount(value: unknown, unit: string): string {
  if (unit === '万元' && isNumber(value) && Math.abs(value) >= WAN_PER_YI) {
    return `${twoDecimals(value / WAN_PER_YI)} 亿元`;
  }
  return formatWithUnit(value, unit);
}

/** A number the engine wrote into a message (`12540071.53万元`, `-3.5%`, `1234567元`). */
const NUMBER_IN_TEXT = /(?<![\d.,])([-−]?)(\d+(?:\.\d+)?)(\s*)(亿元|万元|元|%|倍|天|次)?/g;

/**
 * Numbers in a risk text or note as the page shows them: thousands separators, amounts of 1 亿元 or more in 亿元,
 * one minus sign. Digits inside words or codes (F1–F9, Z″, 2019年) are left alone: only numbers of five or more
 * integer digits, or followed by a unit, are rewritten.
 */
export function formatNumbersInText(text: string): string {
  return text.replace(
    NUMBER_IN_TEXT,
    (match, minus: string, digits: string, space: string, unit?: string) => {
      const integer = digits.split('.')[0]!;
      if (!unit && integer.length < 5) return match.replace('−', '-');
      const value = Number(digits) * (minus ? -1 : 1);
      if (unit === '万元') return formatAmount(value, '万元');
      const decimals = digits.includes('.') ? Math.min(digits.split('.')[1]!.length, 2) : 0;
      const number = formatFixed(value, decimals);
      return unit ? `${number}${unit === '%' ? '' : space}${unit}` : number;
    },
  );
}

/** Axis ticks: separators, at most two decimals, no padding zeros. */
export function formatAxis(value: number): string {
  return formatFixed(value, 0, 2);
}

/** Text values some sp_result keys carry, in Chinese. */
const TEXT_VALUES: Record<string, string> = {
  safe: '安全区',
  grey: '灰色区',
  distress: '困境区',
  z: 'Z（上市制造业）',
  z_prime: 'Z′（非上市制造业）',
  z_double_prime: 'Z″（非制造业）',
  danger: '危险',
  warning: '警告',
  info: '提示',
};

/** Any sp_result value: numbers formatted, known codes translated, booleans as 是/否, missing as "—". */
export function formatValue(value: unknown, unit?: string): string {
  if (value === null || value === undefined || value === '') return EMPTY;
  if (typeof value === 'number') return formatNumber(value, unit);
  if (typeof value === 'boolean') return value ? '是' : '否';
  if (typeof value === 'string') return TEXT_VALUES[value] ?? value;
  return EMPTY;
}

export const LEVEL_LABELS = { danger: '危险', warning: '警告', info: '提示' } as const;

export const STANDARD_LABELS: Record<string, string> = {
  small_enterprise: '小企业会计准则',
  general_new: '企业会计准则（一般企业财务报表格式·新）',
  general_old: '企业会计准则（一般企业财务报表格式·旧）',
};

/** Beijing time is UTC+8 all year (no daylight saving since 1991). */
const BEIJING_OFFSET_MS = 8 * 60 * 60 * 1000;

/** An ISO timestamp in Beijing time: `2026-11-21 13:59` (no Intl: see formatFixed). */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return EMPTY;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return EMPTY;
  // The instant shifted by eight hours, read in UTC: Beijing's wall clock.
  return new Date(date.getTime() + BEIJING_OFFSET_MS).toISOString().slice(0, 16).replace('T', ' ');
}

/** 1/0 flags of enterprise_info. */
export function formatFlag(value: number | null | undefined): string {
  if (value === 1) return '是';
  if (value === 0) return '否';
  return EMPTY;
}

/** Shown where a value is not meaningful (contract 2), with the reason's explanation beside it. */
export const NOT_MEANINGFUL = 'n.m.';

/** Explanations of the reason codes, used when the report does not carry the catalogue's own (older servers). */
export const NULL_REASON_TEXT: Record<string, string> = {
  tiny_base: '上年基数过小（接近零），增长率没有意义',
  sign_change: '前后两年正负号不同（由负转正或由正转负），增长率没有意义',
  zero_base: '上年为零，无法计算增长率',
  negative_base: '上年为负数，增长率没有意义',
  zero_denominator: '分母为零，无法计算',
  negative_denominator: '分母为负数，比率没有意义',
};

export function nullReasonText(code: string, catalogue?: Record<string, string> | null): string {
  return catalogue?.[code] ?? NULL_REASON_TEXT[code] ?? `数值没有意义（${code}）`;
}

/** A change against the prior year: `+12.34%`, `-1.20 个百分点`, `+0.12`; "n.m." when not meaningful. */
export function formatChange(change: { value: number | null; as: '%' | 'pp' | 'abs' } | null): string {
  if (!change) return EMPTY;
  if (change.value === null) return NOT_MEANINGFUL;
  const sign = change.value > 0 ? '+' : change.value < 0 ? '-' : '';
  const number = twoDecimals(Math.abs(change.value));
  if (change.as === '%') return `${sign}${number}%`;
  if (change.as === 'pp') return `${sign}${number} 个百分点`;
  return `${sign}${number}`;
}
