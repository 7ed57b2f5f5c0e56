/**
 * The import's matching rules and amount reading, on their own (docs/import.md, "Matching rules"): pure
 * functions over labels and cells.
 */
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { readAmount } from '../../server/import/amounts.ts';
import { matchRows, normaliseLabel } from '../../server/import/matchLines.ts';
import { decodeCsv } from '../../server/import/readFiles.ts';

const rows = (...labels: string[]) => labels.map((label) => ({ label, lineNo: null, hasAmounts: true }));

describe('label normalisation', () => {
  it.each([
    ['一、营业收入', '营业收入'],
    ['  减：营业成本', '营业成本'],
    ['（一）持续经营净利润（净亏损以“－”号填列）', '持续经营净利润'],
    ['△其中：利息费用', '利息费用'],
    ['*加：投资收益(损失以"-"号填列)', '投资收益'],
    ['货币\n资金', '货币资金'],
    ['　实收资本（或股本）', '实收资本'],
    ['ＡＢＣ１２３：', 'ABC123'],
  ])('%j → %j', (label, expected) => {
    expect(normaliseLabel(label)).toBe(expected);
  });
});

describe('matching', () => {
  it('takes 利息收入 as a 其中 line of 财务费用 only under it', () => {
    const under = matchRows(
      'income',
      'general_new',
      rows('营业收入', '财务费用', '其中：利息费用', '利息收入'),
      null,
    );
    expect(under.map((m) => (m.status === 'matched' ? m.key : m.status))).toEqual([
      'revenue',
      'financial_expenses',
      'interest_expense',
      'interest_income',
    ]);
    const consolidated = matchRows(
      'income',
      'general_new',
      rows('营业总收入', '其中：营业收入', '利息收入'),
      null,
    );
    expect(consolidated.map((m) => m.status)).toEqual(['heading', 'matched', 'ambiguous']);
  });

  it('reads 应收票据及应收账款 as accounts_receivable only when the sheet has no 应收账款 row', () => {
    const merged = matchRows('balance', 'general_new', rows('货币资金', '应收票据及应收账款'), null);
    expect(merged[1]).toMatchObject({ status: 'matched', key: 'accounts_receivable', via: 'fallback' });
    const split = matchRows(
      'balance',
      'general_new',
      rows('应收票据及应收账款', '应收票据', '应收账款'),
      null,
    );
    expect(split.map((m) => m.status)).toEqual(['heading', 'matched', 'matched']);
  });

  it('says when a line belongs to another standard’s format, and when a line comes twice', () => {
    const [interest] = matchRows('balance', 'general_new', rows('应收利息'), null);
    expect(interest).toMatchObject({ status: 'unknown' });
    const twice = matchRows('balance', 'general_new', rows('存货', '存货'), null);
    expect(twice.map((m) => m.status)).toEqual(['matched', 'ambiguous']);
  });

  it('matches by 行次 only when told the sheet numbers lines as the form does', () => {
    const input = [{ label: '某某自定义行', lineNo: 1, hasAmounts: true }];
    expect(matchRows('balance', 'small_enterprise', input, null)[0]!.status).toBe('unknown');
    expect(
      matchRows('balance', 'small_enterprise', input, new Map([[1, 'cash_and_equivalents']]))[0],
    ).toMatchObject({
      status: 'matched',
      key: 'cash_and_equivalents',
      via: 'line_no',
    });
  });
});

describe('amounts and encodings', () => {
  it.each([
    [{ kind: 'text', text: '1,234,567.50' }, '1234567.50'],
    [{ kind: 'text', text: '(1,234.00)' }, '-1234.00'],
    [{ kind: 'text', text: '－' }, '0'],
    [{ kind: 'text', text: '￥ 12' }, '12'],
    [{ kind: 'number', value: 0.1 + 0.2, decimals: null }, '0.3'],
    [{ kind: 'number', value: 255168195159.9, decimals: 2 }, '255168195159.90'],
    [{ kind: 'empty' }, null],
  ] as const)('%j → %j', (cell, value) => {
    expect(readAmount(cell).value).toBe(value);
  });

  it('reports text that is no amount and a formula without a value', () => {
    expect(readAmount({ kind: 'text', text: '见附注' }).error).toMatch(/not an amount/);
    expect(readAmount({ kind: 'formula_without_result', formula: 'SUM(A1:A2)' }).error).toMatch(/formula/);
  });

  it('decodes UTF-8 (with or without BOM) and GB18030', () => {
    const text = '项目,本期金额\n营业收入,1';
    expect(decodeCsv(Buffer.from(text))).toEqual({ text, encoding: 'UTF-8' });
    expect(decodeCsv(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])).text).toBe(text);
    expect(decodeCsv(iconv.encode(text, 'gb18030'))).toEqual({ text, encoding: 'GB18030' });
  });
});
