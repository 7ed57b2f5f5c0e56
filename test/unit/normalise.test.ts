/** The normaliser: catalogue filtering, warnings, the single sign convention, exact amounts. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type SubmissionInput, validateSubmission } from '../../schema/submission.ts';
import { findLineItem } from '../../worker/catalogue/lineItems.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';
import type { AccountingStandard, SheetLines } from '../../worker/types.ts';

const FIXTURE_DIR = new URL('../fixtures/', import.meta.url);

function fixture(file: string): SubmissionInput {
  const result = validateSubmission(JSON.parse(readFileSync(new URL(file, FIXTURE_DIR), 'utf8')));
  if (!result.ok) throw new Error(`${file} is invalid: ${JSON.stringify(result.errors)}`);
  return result.value;
}

const FIXTURES = readdirSync(FIXTURE_DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => ({ file, input: fixture(file) }));

type Item = [name: string, current: string, previous?: string | null];

/** A validated input; each year gets the given income items, a one-line balance sheet and optionally cash flow. */
function inputOf(
  standard: AccountingStandard,
  years: { year: number; income?: Item[]; cashFlow?: boolean }[],
  extra: Partial<SubmissionInput> = {},
): SubmissionInput {
  const body = {
    accounting_standard: standard,
    year_start: Math.min(...years.map((entry) => entry.year)),
    year_end: Math.max(...years.map((entry) => entry.year)),
    years_data: years.map(({ year, income = [['revenue', '100']], cashFlow = true }) => ({
      year,
      sheets: [
        {
          sheet_type: 'income',
          items: income.map(([item_name, current_year_amount, last_year_amount]) =>
            last_year_amount === undefined
              ? { item_name, current_year_amount }
              : { item_name, current_year_amount, last_year_amount },
          ),
        },
        {
          sheet_type: 'balance',
          items: [{ item_name: 'total_assets', ending_balance: '10', beginning_balance: '9' }],
        },
        ...(cashFlow
          ? [{ sheet_type: 'cash_flow', items: [{ item_name: 'sales_cash', current_year_amount: '5' }] }]
          : []),
      ],
    })),
    ...extra,
  };
  const result = validateSubmission(body);
  if (!result.ok) throw new Error(`test input is invalid: ${JSON.stringify(result.errors)}`);
  return result.value;
}

function micros(amount: string): bigint {
  const negative = amount.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? amount.slice(1) : amount).split('.');
  const value = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  return negative ? -value : value;
}

/** Operating profit rebuilt from the catalogue groups: revenue − cost − expense + other_gains (signed lines). */
function operatingProfitFromGroups(lines: SheetLines): bigint {
  let sum = 0n;
  for (const [key, { current }] of Object.entries(lines)) {
    const line = findLineItem('income', key)!;
    if (['revenue', 'cost', 'expense', 'other_gains'].includes(line.group)) {
      sum += line.sign === 'deduction' ? -micros(current) : micros(current);
    }
  }
  return sum;
}

describe('fixtures', () => {
  it.each(FIXTURES)('$file keeps every line and every year, ascending', ({ input }) => {
    const { report, warnings } = normaliseSubmission(input);
    expect(warnings.filter((warning) => warning.code !== 'cash_flow_missing')).toEqual([]);
    expect(report.standard).toBe(input.accounting_standard);
    expect(report.enterpriseName).toBe(input.enterprise_name);
    expect(report.enterpriseInfo).toEqual(input.enterprise_info);
    expect(report.years.map((year) => year.year)).toEqual(
      input.years_data.map((year) => year.year).sort((a, b) => a - b),
    );
    input.years_data.forEach((yearInput) => {
      const year = report.years.find((entry) => entry.year === yearInput.year)!;
      for (const sheet of yearInput.sheets) {
        expect(Object.keys(year.sheets[sheet.sheet_type]!)).toEqual(
          sheet.items.map((item) => item.item_name),
        );
      }
    });
    // Plain data: it must survive the structured clone to the worker thread unchanged.
    expect(structuredClone(report)).toEqual(report);
  });

  it('warns once that the small-enterprise fixture has no cash flow statement at all', () => {
    const { report, warnings } = normaliseSubmission(fixture('small_enterprise-2y-no-cash-flow.json'));
    expect(warnings).toEqual([
      {
        code: 'cash_flow_missing',
        path: 'years_data',
        message: expect.stringMatching(
          /^no year has a cash_flow sheet \(2023, 2024\).*cash-flow analyses will be empty/,
        ),
      },
    ]);
    expect(report.years.every((year) => year.sheets.cash_flow === undefined)).toBe(true);
  });

  it.each(['general_new-3y.json', 'general_old-5y-ai.json', 'general_new-4y-inconsistent.json'])(
    '%s has no warnings',
    (file) => {
      expect(normaliseSubmission(fixture(file)).warnings).toEqual([]);
    },
  );

  it('negates general_old asset_impairment and leaves every other amount as submitted', () => {
    const input = fixture('general_old-5y-ai.json');
    const { report } = normaliseSubmission(input);
    for (const yearInput of input.years_data) {
      const year = report.years.find((entry) => entry.year === yearInput.year)!;
      for (const sheet of yearInput.sheets) {
        for (const item of sheet.items) {
          const [current, previous] =
            'ending_balance' in item
              ? [item.ending_balance, item.beginning_balance]
              : [item.current_year_amount, item.last_year_amount];
          const line = year.sheets[sheet.sheet_type]![item.item_name]!;
          if (item.item_name === 'asset_impairment') {
            expect(current.startsWith('-')).toBe(false);
            expect(line).toEqual({ current: `-${current}`, previous: `-${previous}` });
          } else {
            expect(line).toEqual({ current, previous: previous ?? null });
          }
        }
      }
    }
  });

  // With one sign convention, the same group arithmetic gives operating profit for both general formats.
  it.each(['general_new-3y.json', 'general_old-5y-ai.json', 'small_enterprise-2y-no-cash-flow.json'])(
    '%s: revenue − cost − expense + other_gains = operating_profit after normalisation',
    (file) => {
      const { report } = normaliseSubmission(fixture(file));
      for (const year of report.years) {
        const income = year.sheets.income!;
        expect(operatingProfitFromGroups(income), String(year.year)).toBe(
          micros(income.operating_profit!.current),
        );
      }
    },
  );
});

describe('items left out', () => {
  it('warns about an unrecognised item_name with its path, and leaves it out', () => {
    const input = inputOf('general_new', [
      { year: 2022 },
      {
        year: 2023,
        income: [
          ['revenue', '1'],
          ['magic_income', '2'],
        ],
      },
    ]);
    const { report, warnings } = normaliseSubmission(input);
    expect(warnings).toEqual([
      {
        code: 'unrecognised_item',
        path: 'years_data[1].sheets[0].items[1].item_name',
        message: expect.stringMatching(/"magic_income" is not a known income line/),
      },
    ]);
    expect(report.years[1]!.sheets.income).toEqual({ revenue: { current: '1', previous: null } });
  });

  it('treats a line submitted on the wrong sheet as unrecognised, saying where it belongs', () => {
    const input = inputOf('general_new', [{ year: 2022, income: [['total_assets', '1']] }, { year: 2023 }]);
    const { report, warnings } = normaliseSubmission(input);
    expect(warnings).toEqual([
      {
        code: 'unrecognised_item',
        path: 'years_data[0].sheets[0].items[0].item_name',
        message: expect.stringMatching(/"total_assets" is not a known income line \(it is a balance line\)/),
      },
    ]);
    expect(report.years[0]!.sheets.income).toEqual({});
  });

  it.each([
    ['general_old', 'credit_impairment'],
    ['general_new', 'oci_afs_fv_change'],
    ['general_new', 'made_up_line'],
    ['small_enterprise', 'asset_impairment'],
    ['small_enterprise', 'rd_expenses'],
  ] as const)('%s: %s is left out with one warning per item', (standard, name) => {
    const input = inputOf(standard, [
      { year: 2022, income: [[name, '-3']] },
      { year: 2023, income: [[name, '-4']] },
    ]);
    const { report, warnings } = normaliseSubmission(input);
    const known = findLineItem('income', name) !== undefined;
    expect(warnings).toEqual(
      [0, 1].map((i) => ({
        code: known ? 'item_not_in_standard' : 'unrecognised_item',
        path: `years_data[${i}].sheets[0].items[0].item_name`,
        message: expect.stringContaining(
          known ? `not a line of the ${standard} income statement` : `"${name}"`,
        ),
      })),
    );
    expect(report.years.map((year) => year.sheets.income)).toEqual([{}, {}]);
  });
});

describe('cash_flow_missing', () => {
  it('warns per year, at that year, when only some years lack the cash flow statement', () => {
    const input = inputOf('general_new', [
      { year: 2024, cashFlow: false },
      { year: 2022 },
      { year: 2023, cashFlow: false },
    ]);
    const { report, warnings } = normaliseSubmission(input);
    expect(warnings).toEqual([
      {
        code: 'cash_flow_missing',
        path: 'years_data[2].sheets',
        message: expect.stringMatching(/^year 2023 has no cash_flow sheet.*null/),
      },
      {
        code: 'cash_flow_missing',
        path: 'years_data[0].sheets',
        message: expect.stringMatching(/^year 2024 /),
      },
    ]);
    expect(report.years.map((year) => Object.keys(year.sheets))).toEqual([
      ['income', 'balance', 'cash_flow'],
      ['income', 'balance'],
      ['income', 'balance'],
    ]);
  });

  it('says nothing when every year has one', () => {
    expect(normaliseSubmission(inputOf('general_new', [{ year: 2022 }, { year: 2023 }])).warnings).toEqual(
      [],
    );
  });
});

describe('amounts and signs', () => {
  it('keeps amount strings exactly, only dropping the sign of a negative zero', () => {
    const input = inputOf('general_new', [
      {
        year: 2022,
        income: [
          ['revenue', '00012.3400', '-0'],
          ['operating_cost', '-0.00', null],
          ['net_profit', '123456789012345678.123456'],
        ],
      },
      { year: 2023 },
    ]);
    expect(normaliseSubmission(input).report.years[0]!.sheets.income).toEqual({
      revenue: { current: '00012.3400', previous: '0' },
      operating_cost: { current: '0.00', previous: null },
      net_profit: { current: '123456789012345678.123456', previous: null },
    });
  });

  it('negates asset_impairment for general_old only, keeping zero and null as they are', () => {
    const income: Item[] = [
      ['asset_impairment', '1234.50', '-7'],
      ['fair_value_change', '-3'],
    ];
    const old = normaliseSubmission(inputOf('general_old', [{ year: 2022, income }, { year: 2023 }]));
    expect(old.report.years[0]!.sheets.income).toEqual({
      asset_impairment: { current: '-1234.50', previous: '7' },
      fair_value_change: { current: '-3', previous: null },
    });
    const zero = inputOf('general_old', [
      { year: 2022, income: [['asset_impairment', '0.00', null]] },
      { year: 2023, income: [['asset_impairment', '-0']] },
    ]);
    expect(
      normaliseSubmission(zero).report.years.map((year) => year.sheets.income!.asset_impairment),
    ).toEqual([
      { current: '0.00', previous: null },
      { current: '0', previous: null },
    ]);
    const recent = normaliseSubmission(inputOf('general_new', [{ year: 2022, income }, { year: 2023 }]));
    expect(recent.report.years[0]!.sheets.income!.asset_impairment).toEqual({
      current: '1234.50',
      previous: '-7',
    });
  });

  it('reads ending_balance / beginning_balance for the balance sheet', () => {
    const { report } = normaliseSubmission(inputOf('general_new', [{ year: 2022 }, { year: 2023 }]));
    expect(report.years[0]!.sheets.balance).toEqual({ total_assets: { current: '10', previous: '9' } });
    expect(report.years[0]!.sheets.cash_flow).toEqual({ sales_cash: { current: '5', previous: null } });
  });
});

describe('enterprise', () => {
  it.each([
    [undefined, '匿名企业'],
    [null, '匿名企业'],
    ['  ', '匿名企业'],
    ['  杭州示例  ', '杭州示例'],
  ])('enterprise_name %j → %j', (name, expected) => {
    const input = { ...inputOf('general_new', [{ year: 2022 }, { year: 2023 }]), enterprise_name: name };
    expect(normaliseSubmission(input).report.enterpriseName).toBe(expected);
  });

  it('passes enterprise_info through as a copy, or null', () => {
    const info = { province: '浙江省', is_sme: 1 as const };
    const years = [{ year: 2022 }, { year: 2023 }];
    const withInfo = normaliseSubmission(inputOf('general_new', years, { enterprise_info: info })).report;
    expect(withInfo.enterpriseInfo).toEqual(info);
    expect(withInfo.enterpriseInfo).not.toBe(info);
    expect(
      normaliseSubmission(inputOf('general_new', years, { enterprise_info: null })).report.enterpriseInfo,
    ).toBe(null);
    expect(normaliseSubmission(inputOf('general_new', years)).report.enterpriseInfo).toBeNull();
  });
});
