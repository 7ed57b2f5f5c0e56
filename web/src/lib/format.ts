/**
 * Number, value and date formatting for the report (pure: also used by the chart builders, the Excel export
 * and unit tests). The display rule (also in README.md, "Using the API"):
 * - tables and charts: amounts in 万元 as the API gives them, thousands separators, two decimals;
 * - cards and running text (headline figures, risk texts, data gaps): an amount of 1 亿元 (10,000 万元) or more
 *   in 亿元, below that in 万元, always with thousands separators;
 * - counts (unit 个): whole numbers; missing values: "—";
 * - one minus sign everywhere: the ASCII hyphen-minus "-" that Intl.NumberFormat writes.
 */

export const EMPTY = '—';

const TWO_DECIMALS = new Intl.NumberFormat('zh-CN', {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const WHOLE = new Intl.NumberFormat('zh-CN', { maximumFractionDigits: 0 });
const AXIS = new Intl.NumberFormat('zh-CN', { maximumFractionDigits: 2 });
/** Numbers in texts keep their own decimals (0–2): one formatter each, made once (a constructor is not cheap). */
const IN_TEXT = [
  WHOLE,
  new Intl.NumberFormat('zh-CN', { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
  TWO_DECIMALS,
];

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
  return isWholeCount(value, unit) ? WHOLE.format(value) : TWO_DECIMALS.format(value);
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
    return `${TWO_DECIMALS.format(value / WAN_PER_YI)} 亿元`;
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
      const number = IN_TEXT[decimals]!.format(value);
      return unit ? `${number}${unit === '%' ? '' : space}${unit}` : number;
    },
  );
}

/** Axis ticks: separators, at most two decimals, no padding zeros. */
export function formatAxis(value: number): string {
  return AXIS.format(value);
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

const DATE_TIME = new Intl.DateTimeFormat('zh-CN', {
  timeZone: 'Asia/Shanghai',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
});

/** An ISO timestamp in Beijing time: `2026-11-21 13:59`. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return EMPTY;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return EMPTY;
  const parts = Object.fromEntries(DATE_TIME.formatToParts(date).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
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
  const number = TWO_DECIMALS.format(Math.abs(change.value));
  if (change.as === '%') return `${sign}${number}%`;
  if (change.as === 'pp') return `${sign}${number} 个百分点`;
  return `${sign}${number}`;
}
