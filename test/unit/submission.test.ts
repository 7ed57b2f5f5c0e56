/** The submission schema: every rule, error paths and messages, the value returned, speed. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ValidationError } from 'yup';
import {
  type FieldError,
  LIMITS,
  submissionSchema,
  toFieldErrors,
  validateSubmission,
} from '../../schema/submission.ts';

type Json = Record<string, unknown>;

const FIXTURE_DIR = new URL('../fixtures/', import.meta.url);
const FIXTURES = readdirSync(FIXTURE_DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({ file, body: JSON.parse(readFileSync(new URL(file, FIXTURE_DIR), 'utf8')) as Json }));

function flowItem(
  item_name: string,
  current_year_amount: unknown = '100.00',
  last_year_amount: unknown = '90.00',
) {
  return { item_name, current_year_amount, last_year_amount };
}

function balanceItem(
  item_name: string,
  ending_balance: unknown = '100.00',
  beginning_balance: unknown = '90.00',
) {
  return { item_name, ending_balance, beginning_balance };
}

function yearOf(year: number, withCashFlow = true): Json {
  const sheets: Json[] = [
    { sheet_type: 'income', items: [flowItem('revenue'), flowItem('net_profit', '-5.5', null)] },
    { sheet_type: 'balance', items: [balanceItem('cash_and_equivalents'), balanceItem('total_assets', '0')] },
  ];
  if (withCashFlow) sheets.push({ sheet_type: 'cash_flow', items: [flowItem('sales_cash')] });
  return { year, sheets };
}

/** A valid general_new body for 2022–2023; `overrides` replaces top-level fields (undefined deletes one). */
function bodyOf(overrides: Json = {}): Json {
  const body: Json = {
    enterprise_name: '示例企业',
    accounting_standard: 'general_new',
    year_start: 2022,
    year_end: 2023,
    years_data: [yearOf(2022), yearOf(2023)],
    ...overrides,
  };
  for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete body[key];
  return body;
}

/** The body's first year's sheet `j` (0 income, 1 balance, 2 cash_flow). */
function sheetOf(body: Json, j: number, i = 0): { sheet_type: unknown; items: unknown[] } & Json {
  return ((body.years_data as Json[])[i]!.sheets as Json[])[j] as {
    sheet_type: unknown;
    items: unknown[];
  } & Json;
}

function errorsOf(body: unknown): FieldError[] {
  const result = validateSubmission(body);
  if (result.ok) throw new Error('expected validation to fail');
  return result.errors;
}

function expectOk(body: unknown) {
  const result = validateSubmission(body);
  if (!result.ok) throw new Error(`expected no errors, got ${JSON.stringify(result.errors)}`);
  return result.value;
}

/** Asserts the body fails with exactly one error, at `path`, whose message matches `message`. */
function expectOnlyError(body: unknown, path: string, message: RegExp) {
  const errors = errorsOf(body);
  expect(errors).toEqual([{ path, message: expect.stringMatching(message) }]);
}

const ITEM0 = 'years_data[0].sheets[0].items[0]';
const BALANCE_ITEM0 = 'years_data[0].sheets[1].items[0]';

describe('fixtures', () => {
  it.each(FIXTURES)('$file validates with no errors', ({ body }) => {
    const value = expectOk(body);
    expect(value.years_data).toEqual(body.years_data);
    expect(value.ai_auto_analysis).toBe(body.ai_auto_analysis);
  });
});

describe('body', () => {
  it.each([null, [], 'text', 42, true, undefined])('rejects %j as a whole', (body) => {
    expectOnlyError(body, '', /^must be a JSON object$/);
  });

  it('reports every missing required field', () => {
    expect(errorsOf({}).map((error) => [error.path, error.message])).toEqual([
      ['accounting_standard', 'is required'],
      ['year_end', 'is required'],
      ['year_start', 'is required'],
      ['years_data', 'is required'],
    ]);
  });

  it('rejects unknown top-level fields at their own path, quoting dotted names like yup', () => {
    const errors = errorsOf(bodyOf({ extra: 1, 'a.b': 2 }));
    expect(errors).toEqual([
      { path: '["a.b"]', message: expect.stringMatching(/^is not a field of the submission/) },
      { path: 'extra', message: expect.stringMatching(/allowed: enterprise_name, accounting_standard/) },
    ]);
  });

  it('returns the value without coercing it and without touching the input', () => {
    const body = bodyOf({ enterprise_name: '  示例企业  ' });
    const before = structuredClone(body);
    const value = expectOk(body);
    expect(body).toEqual(before);
    expect(value.years_data).toEqual(before.years_data);
    expect(value.year_start).toBe(2022);
  });
});

describe('enterprise_name', () => {
  it.each([
    ['absent', undefined, null],
    ['null', null, null],
    ['blank', '   ', null],
    ['padded', '  示例企业  ', '示例企业'],
  ])('%s → %j in the value (the normaliser names it later)', (_label, name, expected) => {
    expect(expectOk(bodyOf({ enterprise_name: name })).enterprise_name).toBe(expected);
  });

  it('must be a string', () => {
    expectOnlyError(bodyOf({ enterprise_name: 12 }), 'enterprise_name', /^must be a string$/);
  });

  it(`is at most ${LIMITS.maxNameLength} characters after trimming`, () => {
    expectOk(bodyOf({ enterprise_name: ` ${'企'.repeat(LIMITS.maxNameLength)} ` }));
    expectOnlyError(
      bodyOf({ enterprise_name: 'x'.repeat(LIMITS.maxNameLength + 1) }),
      'enterprise_name',
      /at most 200/,
    );
  });
});

describe('accounting_standard', () => {
  it.each(['small_enterprise', 'general_new', 'general_old'])('accepts %s', (standard) => {
    expect(expectOk(bodyOf({ accounting_standard: standard })).accounting_standard).toBe(standard);
  });

  it.each([
    [undefined, /^is required$/],
    [null, /^is required$/],
    ['general', /^must be one of: small_enterprise, general_new, general_old$/],
    ['GENERAL_NEW', /^must be one of/],
    [1, /^must be one of/],
  ])('rejects %j', (standard, message) => {
    expectOnlyError(bodyOf({ accounting_standard: standard }), 'accounting_standard', message);
  });
});

describe('year_start and year_end', () => {
  it.each([
    ['year_start', '2022', /^must be an integer/],
    ['year_start', 2021.5, /^must be an integer/],
    ['year_start', null, /^is required$/],
    ['year_end', '2023', /^must be an integer/],
    ['year_end', 2023.5, /^must be an integer/],
    ['year_end', undefined, /^is required$/],
  ])('%s = %j is an error', (field, value, message) => {
    const errors = errorsOf(bodyOf({ [field]: value }));
    expect(errors).toContainEqual({ path: field, message: expect.stringMatching(message) });
    expect(errors.every((error) => error.path === field)).toBe(true);
  });

  it(`must lie within ${LIMITS.minYear}–${LIMITS.maxYear}`, () => {
    const low = bodyOf({ year_start: 1949, year_end: 1950, years_data: [yearOf(1949), yearOf(1950)] });
    expectOnlyError(low, 'year_start', /^must be between 1950 and 2100$/);
    const high = bodyOf({ year_start: 2100, year_end: 2101, years_data: [yearOf(2100), yearOf(2101)] });
    expectOnlyError(high, 'year_end', /^must be between 1950 and 2100$/);
    expectOk(bodyOf({ year_start: 1950, year_end: 1951, years_data: [yearOf(1950), yearOf(1951)] }));
    expectOk(bodyOf({ year_start: 2099, year_end: 2100, years_data: [yearOf(2099), yearOf(2100)] }));
  });

  it('year_end must be greater than year_start', () => {
    expectOnlyError(
      bodyOf({ year_end: 2022, years_data: [yearOf(2022)] }),
      'year_end',
      /^must be greater than year_start$/,
    );
    const reversed = errorsOf(bodyOf({ year_start: 2023, year_end: 2022 }));
    expect(reversed).toEqual([{ path: 'year_end', message: 'must be greater than year_start' }]);
  });

  it(`spans at most ${LIMITS.maxYears} years`, () => {
    const years = (start: number, count: number) =>
      Array.from({ length: count }, (_, i) => yearOf(start + i));
    expectOk(bodyOf({ year_start: 1990, year_end: 2019, years_data: years(1990, 30) }));
    const tooMany = errorsOf(bodyOf({ year_start: 1990, year_end: 2020, years_data: years(1990, 31) }));
    expect(tooMany).toContainEqual({
      path: 'year_end',
      message: expect.stringMatching(/spans 31 years.*at most 30/),
    });
    expect(tooMany).toContainEqual({ path: 'years_data', message: 'must hold at most 30 years' });
  });
});

describe('years_data', () => {
  it.each([
    [undefined, /^is required$/],
    [null, /^is required$/],
    [{}, /^must be an array$/],
  ])('rejects %j', (years, message) => {
    expectOnlyError(bodyOf({ years_data: years }), 'years_data', message);
  });

  it('reports each missing year at years_data, naming it', () => {
    const errors = errorsOf(bodyOf({ year_end: 2024, years_data: [yearOf(2023)] }));
    expect(errors).toEqual([
      { path: 'years_data', message: expect.stringMatching(/^year 2022 is missing/) },
      {
        path: 'years_data',
        message: expect.stringMatching(/^year 2024 is missing: every year from 2022 to 2024/),
      },
    ]);
  });

  it('reports a duplicated year at the later entry', () => {
    const errors = errorsOf(bodyOf({ years_data: [yearOf(2022), yearOf(2023), yearOf(2022)] }));
    expect(errors).toEqual([
      { path: 'years_data[2].year', message: 'year 2022 appears more than once (first at years_data[0])' },
    ]);
  });

  it('reports a year outside year_start..year_end at that entry', () => {
    const errors = errorsOf(bodyOf({ years_data: [yearOf(2022), yearOf(2023), yearOf(2025)] }));
    expect(errors).toEqual([
      { path: 'years_data[2].year', message: expect.stringMatching(/^year 2025 is outside .*2022–2023/) },
    ]);
  });

  it('accepts the years in any order', () => {
    expectOk(bodyOf({ years_data: [yearOf(2023), yearOf(2022)] }));
  });

  it('checks each year object: an object with an integer year, a sheets array and no other fields', () => {
    const body = bodyOf();
    const years = body.years_data as unknown[];
    years.push('2024', { year: '2025', sheets: {} }, { ...yearOf(2026), note: 'x' }, { year: 2027 });
    const errors = errorsOf(body).filter((error) => error.path !== 'years_data');
    expect(errors).toEqual([
      { path: 'years_data[2]', message: 'must be an object' },
      { path: 'years_data[3].sheets', message: 'must be an array' },
      { path: 'years_data[3].year', message: expect.stringMatching(/^must be an integer/) },
      { path: 'years_data[4].note', message: 'is not a field of a year object (allowed: year, sheets)' },
      { path: 'years_data[4].year', message: expect.stringMatching(/^year 2026 is outside/) },
      { path: 'years_data[5].sheets', message: 'is required' },
      { path: 'years_data[5].year', message: expect.stringMatching(/^year 2027 is outside/) },
    ]);
  });
});

describe('sheets', () => {
  it('needs income and balance every year; cash_flow is optional', () => {
    expectOk(bodyOf({ years_data: [yearOf(2022, false), yearOf(2023, false)] }));
    const body = bodyOf();
    const sheets = (body.years_data as Json[])[1]!.sheets as Json[];
    sheets.splice(0, 2);
    expect(errorsOf(body)).toEqual([
      { path: 'years_data[1].sheets', message: expect.stringMatching(/^year 2023 has no income sheet/) },
      { path: 'years_data[1].sheets', message: expect.stringMatching(/^year 2023 has no balance sheet/) },
    ]);
  });

  it('allows each sheet_type once a year', () => {
    const body = bodyOf({ years_data: [yearOf(2022, false), yearOf(2023, false)] });
    ((body.years_data as Json[])[0]!.sheets as Json[]).push({ sheet_type: 'balance', items: [] });
    expectOnlyError(
      body,
      'years_data[0].sheets[2].sheet_type',
      /^duplicates the balance sheet of sheets\[1\]/,
    );
  });

  it('counts sheets before looking at them: a fourth sheet is one error, its sheets unchecked', () => {
    const body = bodyOf();
    const sheets = (body.years_data as Json[])[0]!.sheets as Json[];
    for (let i = 0; i < 5000; i++) sheets.push({ sheet_type: 'nope', items: [{}] });
    expectOnlyError(body, 'years_data[0].sheets', /^must hold at most 3 sheets$/);
  });

  it('counts years before looking at them, and bounds what one sheet of bad items reports', () => {
    const body = bodyOf();
    (body.years_data as Json[]).push(...Array.from({ length: 40 }, () => ({ junk: 1 })));
    expectOnlyError(body, 'years_data', /^must hold at most 30 years$/);
    const garbage = bodyOf();
    const sheet = ((garbage.years_data as Json[])[0]!.sheets as Json[])[0]!;
    sheet.items = Array.from({ length: 300 }, () => ({ item_name: 1, current_year_amount: 1, x: 1 }));
    const errors = errorsOf(garbage);
    expect(errors.length).toBe(101);
    expect(errors.filter((e) => e.message.startsWith('has more problems than listed'))).toHaveLength(1);
  });

  it.each([
    [
      'sheet_type',
      'cashflow',
      'years_data[0].sheets[2].sheet_type',
      /^must be one of: income, balance, cash_flow$/,
    ],
    ['sheet_type', undefined, 'years_data[0].sheets[2].sheet_type', /^is required$/],
    ['sheet_type', 3, 'years_data[0].sheets[2].sheet_type', /^must be one of: income, balance, cash_flow$/],
    ['items', undefined, 'years_data[0].sheets[2].items', /^is required$/],
    ['items', {}, 'years_data[0].sheets[2].items', /^must be an array$/],
    [
      'title',
      'x',
      'years_data[0].sheets[2].title',
      /^is not a field of a sheet \(allowed: sheet_type, items\)$/,
    ],
  ])('%s = %j is an error', (field, value, path, message) => {
    const body = bodyOf();
    const sheet = sheetOf(body, 2);
    if (value === undefined) delete sheet[field];
    else sheet[field] = value;
    expectOnlyError(body, path, message);
  });

  it('rejects a sheet that is not an object', () => {
    const body = bodyOf();
    ((body.years_data as Json[])[0]!.sheets as unknown[])[2] = 'cash_flow';
    expectOnlyError(body, 'years_data[0].sheets[2]', /^must be an object$/);
  });

  it(`holds at most ${LIMITS.maxItemsPerSheet} items`, () => {
    const body = bodyOf();
    const names = (n: number) => Array.from({ length: n }, (_, k) => flowItem(`line_${k}`));
    sheetOf(body, 0).items = names(LIMITS.maxItemsPerSheet);
    expectOk(body);
    sheetOf(body, 0).items = names(LIMITS.maxItemsPerSheet + 1);
    expectOnlyError(body, 'years_data[0].sheets[0].items', /^must hold at most 300 items$/);
  });
});

describe('items', () => {
  it('rejects an item that is not an object', () => {
    const body = bodyOf();
    sheetOf(body, 0).items[0] = ['revenue', '1'];
    expectOnlyError(body, ITEM0, /^must be an object$/);
  });

  it('allows only the fields of the sheet type, reporting each unknown one at its own path', () => {
    const body = bodyOf();
    sheetOf(body, 0).items[0] = { ...flowItem('revenue'), ending_balance: '1' };
    sheetOf(body, 1).items[0] = { ...balanceItem('cash_and_equivalents'), current_year_amount: '1' };
    sheetOf(body, 2).items[0] = { ...flowItem('sales_cash'), unit: 'yuan' };
    expect(errorsOf(body)).toEqual([
      {
        path: `${ITEM0}.ending_balance`,
        message:
          'is not a field of an income item (allowed: item_name, current_year_amount, last_year_amount)',
      },
      {
        path: `${BALANCE_ITEM0}.current_year_amount`,
        message: 'is not a field of a balance item (allowed: item_name, ending_balance, beginning_balance)',
      },
      {
        path: 'years_data[0].sheets[2].items[0].unit',
        message: expect.stringMatching(/^is not a field of a cash_flow/),
      },
    ]);
  });

  it.each([
    [undefined, /^is required$/],
    [null, /^is required$/],
    [7, /^must be a string$/],
    ['', /^must not be empty$/],
    ['   ', /^must not be empty$/],
    ['x'.repeat(LIMITS.maxNameLength + 1), /^must be at most 200 characters long$/],
  ])('item_name %j is an error', (name, message) => {
    const body = bodyOf();
    sheetOf(body, 0).items[0] = { ...flowItem('revenue'), item_name: name };
    expectOnlyError(body, `${ITEM0}.item_name`, message);
  });

  it('rejects an item_name used twice in one sheet, at the second one', () => {
    const body = bodyOf();
    sheetOf(body, 0).items.push(flowItem('revenue'));
    expectOnlyError(
      body,
      'years_data[0].sheets[0].items[2].item_name',
      /^duplicates the item_name of items\[0\]/,
    );
  });

  it('allows the same item_name in different sheets and years', () => {
    const body = bodyOf();
    sheetOf(body, 2).items.push(flowItem('revenue'));
    expectOk(body);
  });

  it('does not reject an item_name the catalogue does not know', () => {
    const body = bodyOf();
    sheetOf(body, 0).items.push(flowItem('no_such_line'));
    expectOk(body);
  });

  it('requires the current amount of each sheet type', () => {
    const body = bodyOf();
    sheetOf(body, 0).items[0] = { item_name: 'revenue', last_year_amount: '1' };
    sheetOf(body, 1).items[0] = { item_name: 'cash_and_equivalents', ending_balance: null };
    expect(errorsOf(body)).toEqual([
      { path: `${ITEM0}.current_year_amount`, message: 'is required' },
      { path: `${BALANCE_ITEM0}.ending_balance`, message: 'is required' },
    ]);
  });

  it('lets the comparative amount be omitted or null', () => {
    const body = bodyOf();
    sheetOf(body, 0).items[0] = { item_name: 'revenue', current_year_amount: '1' };
    sheetOf(body, 1).items[0] = {
      item_name: 'cash_and_equivalents',
      ending_balance: '1',
      beginning_balance: null,
    };
    expectOk(body);
  });

  it.each([
    '0',
    '-0',
    '1234.56',
    '-1234.56',
    '007',
    '0.000001',
    '9'.repeat(LIMITS.maxIntegerDigits),
    `-${'9'.repeat(LIMITS.maxIntegerDigits)}.${'9'.repeat(LIMITS.maxFractionDigits)}`,
  ])('accepts the amount %j', (amount) => {
    const body = bodyOf();
    sheetOf(body, 0).items[0] = flowItem('revenue', amount, amount);
    sheetOf(body, 1).items[0] = balanceItem('cash_and_equivalents', amount, amount);
    const value = expectOk(body);
    expect(value.years_data[0]!.sheets[0]!.items[0]).toEqual(flowItem('revenue', amount, amount));
  });

  const PLAIN_DECIMAL = /^must be a string holding a plain decimal number, e\.g\. "-1234\.56"/;
  it.each([
    ['+1', PLAIN_DECIMAL],
    ['1,234.56', PLAIN_DECIMAL],
    [' 1', PLAIN_DECIMAL],
    ['1 ', PLAIN_DECIMAL],
    ['1e5', PLAIN_DECIMAL],
    ['.5', PLAIN_DECIMAL],
    ['5.', PLAIN_DECIMAL],
    ['1.2.3', PLAIN_DECIMAL],
    ['', PLAIN_DECIMAL],
    ['-', PLAIN_DECIMAL],
    ['--1', PLAIN_DECIMAL],
    ['１２', PLAIN_DECIMAL],
    ['12元', PLAIN_DECIMAL],
    ['NaN', PLAIN_DECIMAL],
    ['1\n', PLAIN_DECIMAL],
    [true, PLAIN_DECIMAL],
    [{}, PLAIN_DECIMAL],
    [12.5, /^must be a string, not a JSON number/],
    [0, /^must be a string, not a JSON number/],
    ['1'.repeat(LIMITS.maxIntegerDigits + 1), /^must have at most 18 digits before the decimal point$/],
    [
      `-1.${'5'.repeat(LIMITS.maxFractionDigits + 1)}`,
      /^must have at most 6 digits after the decimal point$/,
    ],
  ])('rejects the amount %j', (amount, message) => {
    for (const field of ['current_year_amount', 'last_year_amount']) {
      const body = bodyOf();
      sheetOf(body, 0).items[0] = { ...flowItem('revenue'), [field]: amount };
      expectOnlyError(body, `${ITEM0}.${field}`, message);
    }
    for (const field of ['ending_balance', 'beginning_balance']) {
      const body = bodyOf();
      sheetOf(body, 1).items[0] = { ...balanceItem('cash_and_equivalents'), [field]: amount };
      expectOnlyError(body, `${BALANCE_ITEM0}.${field}`, message);
    }
  });
});

describe('ai_auto_analysis', () => {
  it('defaults to 0 and keeps 0 or 1', () => {
    expect(expectOk(bodyOf()).ai_auto_analysis).toBe(0);
    expect(expectOk(bodyOf({ ai_auto_analysis: 0 })).ai_auto_analysis).toBe(0);
    expect(expectOk(bodyOf({ ai_auto_analysis: 1 })).ai_auto_analysis).toBe(1);
  });

  it.each([2, -1, 0.5, '1', true, null])('rejects %j', (flag) => {
    expectOnlyError(bodyOf({ ai_auto_analysis: flag }), 'ai_auto_analysis', /^must be 0 or 1$/);
  });
});

describe('enterprise_info', () => {
  const full = {
    province: '浙江省',
    city: '杭州市',
    area: '余杭区',
    industry_sector_code: 'C',
    industry_sector: '制造业',
    industry_division_code: 'C39',
    industry_division: '计算机、通信和其他电子设备制造业',
    employee_count: '320',
    taxpayer_qualification: '一般纳税人',
    is_vat_taxpayer: 1,
    enterprise_type: '有限责任公司',
    is_sme: 0,
  };

  it('is optional and may be null, empty, full or all nulls', () => {
    expect(expectOk(bodyOf()).enterprise_info).toBeUndefined();
    expect(expectOk(bodyOf({ enterprise_info: null })).enterprise_info).toBeNull();
    expect(expectOk(bodyOf({ enterprise_info: {} })).enterprise_info).toEqual({});
    expect(expectOk(bodyOf({ enterprise_info: full })).enterprise_info).toEqual(full);
    const nulls = Object.fromEntries(Object.keys(full).map((key) => [key, null]));
    expectOk(bodyOf({ enterprise_info: nulls }));
  });

  it.each([
    [[], 'enterprise_info', /^must be an object$/],
    ['浙江', 'enterprise_info', /^must be an object$/],
    [{ province: 330000 }, 'enterprise_info.province', /^must be a string$/],
    [{ employee_count: 320 }, 'enterprise_info.employee_count', /^must be a string$/],
    [
      { city: 'x'.repeat(LIMITS.maxNameLength + 1) },
      'enterprise_info.city',
      /^must be at most 200 characters/,
    ],
    [{ is_vat_taxpayer: '1' }, 'enterprise_info.is_vat_taxpayer', /^must be 0 or 1$/],
    [{ is_sme: 2 }, 'enterprise_info.is_sme', /^must be 0 or 1$/],
    [{ is_sme: false }, 'enterprise_info.is_sme', /^must be 0 or 1$/],
    [
      { website: 'x' },
      'enterprise_info.website',
      /^is not a field of enterprise_info \(allowed: province, city/,
    ],
  ])('rejects %j', (info, path, message) => {
    expectOnlyError(bodyOf({ enterprise_info: info }), path, message);
  });
});

describe('error list', () => {
  function messyBody(): Json {
    const years = Array.from({ length: 12 }, (_, i) => yearOf(2000 + i));
    const body = bodyOf({ year_start: 2000, year_end: 2011, years_data: years, accounting_standard: 'x' });
    for (const i of [10, 2])
      ((years[i]!.sheets as Json[])[0]!.items as unknown[]).push(flowItem('bad', '1,0'));
    ((years[2]!.sheets as Json[])[1]!.items as unknown[]).push(balanceItem('bad', 5, '+1'));
    body.ai_auto_analysis = 'yes';
    return body;
  }

  it('collects every error, once each, ordered by location (indices numerically)', () => {
    const errors = errorsOf(messyBody());
    expect(errors.map((error) => error.path)).toEqual([
      'accounting_standard',
      'ai_auto_analysis',
      'years_data[2].sheets[0].items[2].current_year_amount',
      'years_data[2].sheets[1].items[2].beginning_balance',
      'years_data[2].sheets[1].items[2].ending_balance',
      'years_data[10].sheets[0].items[2].current_year_amount',
    ]);
    const keys = errors.map((error) => `${error.path} ${error.message}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('puts a parent path before its children and is the same every time', () => {
    const body = messyBody();
    (body.years_data as Json[]).pop();
    const errors = errorsOf(body);
    const missing = errors.findIndex((error) => error.path === 'years_data');
    expect(missing).toBeGreaterThan(-1);
    expect(errors.slice(missing + 1).every((error) => error.path.startsWith('years_data['))).toBe(true);
    expect(errorsOf(body)).toEqual(errors);
  });

  it('drops repeated path + message pairs and sorts what is left', () => {
    const leaf = (path: string | undefined, message: string) => new ValidationError(message, undefined, path);
    const error = new ValidationError([
      leaf('years_data[10].year', 'a'),
      leaf('years_data[2].year', 'b'),
      leaf('years_data[10].year', 'a'),
      leaf('years_data[10].year', 'c'),
      leaf(undefined, 'must be a JSON object'),
    ]);
    expect(toFieldErrors(error)).toEqual([
      { path: '', message: 'must be a JSON object' },
      { path: 'years_data[2].year', message: 'b' },
      { path: 'years_data[10].year', message: 'a' },
      { path: 'years_data[10].year', message: 'c' },
    ]);
  });
});

describe('submissionSchema through Standard Schema', () => {
  it('applies the same strict rules with the same paths', async () => {
    const standard = submissionSchema['~standard'];
    const fixture = FIXTURES[0]!.body;
    expect(await standard.validate(fixture)).toEqual({ value: fixture });
    const body = bodyOf({ year_start: '2022' });
    sheetOf(body, 0).items[0] = flowItem('revenue', 12);
    const result = await standard.validate(body);
    expect(result.issues?.map((issue) => issue.path)).toEqual(
      expect.arrayContaining([
        ['year_start'],
        ['years_data', '0', 'sheets', '0', 'items', '0', 'current_year_amount'],
      ]),
    );
  });
});

describe('large bodies', () => {
  // Timing is measured by `npm run bench`, never asserted in a test; this checks a maximal-shape body passes.
  it('accepts a 20-year body with 3 sheets of 90 items', () => {
    const years = Array.from({ length: 20 }, (_, i) => ({
      year: 2000 + i,
      sheets: [
        {
          sheet_type: 'income',
          items: Array.from({ length: 90 }, (_, k) => flowItem(`line_${k}`, `${k}.25`)),
        },
        {
          sheet_type: 'balance',
          items: Array.from({ length: 90 }, (_, k) => balanceItem(`line_${k}`, `-${k}`)),
        },
        {
          sheet_type: 'cash_flow',
          items: Array.from({ length: 90 }, (_, k) => flowItem(`line_${k}`, '0', null)),
        },
      ],
    }));
    expectOk(bodyOf({ year_start: 2000, year_end: 2019, years_data: years }));
  });
});
