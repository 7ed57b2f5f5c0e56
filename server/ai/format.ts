/**
 * How figures are written in interpretation text: engine values (already rounded to 2 decimals, amounts in
 * 万元, percentages × 100) with thousands separators and the catalogue unit. Tests format an item's figures
 * with the same function to find them in the text.
 */

/** Units of counts: written without decimals when whole. */
const COUNT_UNITS = new Set(['个', '条', '分']);

/** `8925.77` → `8,925.77`; counts (`个`, `条`) without decimals when whole; 2 decimals otherwise. */
export function formatNumber(value: number, unit = ''): string {
  if (COUNT_UNITS.has(unit) && Number.isInteger(value)) return String(value);
  const fixed = Math.abs(value).toFixed(2);
  const [whole = '0', fraction = '00'] = fixed.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  // −0.001 rounds to 0.00: no minus sign in front of a zero.
  const negative = value < 0 && fixed !== '0.00';
  return `${negative ? '-' : ''}${grouped}.${fraction}`;
}

/** A value with its unit: `8,925.77万元`, `42.63%`, `2.37倍`, `3个`. */
export function formatFigure(value: number, unit: string): string {
  return `${formatNumber(value, unit)}${unit}`;
}

/** Rounds to 2 decimals (for changes the writer derives from a series). */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** `较2023年增长9.98%` / `较2023年下降7.24%` / `与2023年持平`. */
export function rateChangePhrase(rate: number, priorYear: number): string {
  if (rate === 0) return `与${priorYear}年持平`;
  return `较${priorYear}年${rate > 0 ? '增长' : '下降'}${formatNumber(Math.abs(rate))}%`;
}

/** `较2023年上升12.14个百分点` / `较2023年下降0.50个百分点` / `与2023年持平`. */
export function pointChangePhrase(points: number, priorYear: number): string {
  if (points === 0) return `与${priorYear}年持平`;
  return `较${priorYear}年${points > 0 ? '上升' : '下降'}${formatNumber(Math.abs(points))}个百分点`;
}

/** Drops the sentence-final punctuation of a message that is about to be embedded in a longer sentence. */
export function clause(text: string): string {
  return text.trim().replace(/[。；;.，,\s]+$/u, '');
}

export const LEVEL_NAMES: Readonly<Record<string, string>> = {
  danger: '危险',
  warning: '警告',
  info: '提示',
};
