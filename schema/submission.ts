/**
 * Input contract of POST /api/v1/developer/reports/financial: the yup schema (strict, nothing is coerced) and
 * `validateSubmission`, which collects every error as { path, message } with yup's path format.
 * Line items are checked by a hand-written loop inside a yup test: per-item yup schemas made a 20-year body
 * (3 sheets × 90 items, 437 kB) take 45–75 ms instead of 2–3 ms.
 * Whether an item_name is in the catalogue is not checked here: the normaliser warns about unknown ones.
 *
 * Bounded whatever the input: every array's length is checked before its elements (an over-long array is
 * one error and its elements are not looked at), and one sheet's items yield at most
 * LIMITS.maxItemErrorsPerSheet errors plus one that counts the rest. So a body within the size limit yields
 * at most a few thousand errors, of which the ValidationError returns the first 100 (server/errors.ts).
 */

import * as yup from 'yup';
import type { AccountingStandard, EnterpriseInfo, SheetType } from '../worker/types.ts';
import { ACCOUNTING_STANDARDS, SHEET_TYPES } from '../worker/types.ts';
import { textProblem } from './text.ts';

export const LIMITS = {
  maxYears: 30,
  maxSheetsPerYear: 3,
  maxItemsPerSheet: 300,
  /** Errors built for one sheet's items; beyond it one summary error counts the rest. */
  maxItemErrorsPerSheet: 100,
  maxNameLength: 200,
  minYear: 1950,
  maxYear: 2100,
  maxIntegerDigits: 18,
  maxFractionDigits: 6,
} as const;

/** An income or cash_flow line. */
export interface FlowItemInput {
  item_name: string;
  current_year_amount: string;
  last_year_amount?: string | null;
}

/** A balance-sheet line. */
export interface BalanceItemInput {
  item_name: string;
  ending_balance: string;
  beginning_balance?: string | null;
}

export type ItemInput = FlowItemInput | BalanceItemInput;

export interface SheetInput {
  sheet_type: SheetType;
  items: ItemInput[];
}

export interface YearInput {
  year: number;
  sheets: SheetInput[];
}

/** A body that passed validation. `validateSubmission` fills in `ai_auto_analysis` (default 0). */
export interface SubmissionInput {
  /** Trimmed; null or absent when the client sent none or only blanks (the service then uses 匿名企业). */
  enterprise_name?: string | null;
  accounting_standard: AccountingStandard;
  year_start: number;
  year_end: number;
  years_data: YearInput[];
  enterprise_info?: EnterpriseInfo | null;
  ai_auto_analysis?: 0 | 1;
}

export interface FieldError {
  path: string;
  message: string;
}

/** Amount fields per sheet type: the current amount is required, the comparative one may be omitted or null. */
const AMOUNT_FIELDS = {
  income: { current: 'current_year_amount', previous: 'last_year_amount' },
  balance: { current: 'ending_balance', previous: 'beginning_balance' },
  cash_flow: { current: 'current_year_amount', previous: 'last_year_amount' },
} as const satisfies Record<SheetType, { current: string; previous: string }>;

const ITEM_FIELDS: Record<SheetType, readonly string[]> = {
  income: ['item_name', AMOUNT_FIELDS.income.current, AMOUNT_FIELDS.income.previous],
  balance: ['item_name', AMOUNT_FIELDS.balance.current, AMOUNT_FIELDS.balance.previous],
  cash_flow: ['item_name', AMOUNT_FIELDS.cash_flow.current, AMOUNT_FIELDS.cash_flow.previous],
};

const REQUIRED_SHEETS: readonly SheetType[] = ['income', 'balance'];

const AMOUNT_PATTERN = /^-?\d+(\.\d+)?$/;
const AMOUNT_FORMAT =
  'must be a string holding a plain decimal number, e.g. "-1234.56" ' +
  '(optional minus sign; no plus sign, thousands separators, spaces, units or exponent)';

const MSG = {
  required: 'is required',
  string: 'must be a string',
  integer: 'must be an integer (a JSON number, not a string)',
  flag: 'must be 0 or 1',
  object: 'must be an object',
  array: 'must be an array',
  body: 'must be a JSON object',
  year: `must be between ${LIMITS.minYear} and ${LIMITS.maxYear}`,
  nameLength: `must be at most ${LIMITS.maxNameLength} characters long`,
} as const;

/** A yup test applying the clean-text rule (schema/text.ts) to a string. */
const cleanText = {
  name: 'cleanText',
  skipAbsent: true,
  test(value: unknown, ctx: yup.TestContext) {
    const problem = typeof value === 'string' ? textProblem(value) : undefined;
    return problem ? fieldError(ctx.path, problem) : true;
  },
};

/**
 * An array whose length is checked before its elements: over `max` it is one error and `element` never
 * runs (yup's array().of().max() validates every element first, which is how one body used to produce
 * millions of errors).
 */
function boundedArray<S extends yup.Schema>(max: number, what: string, of: () => S): S {
  const tooLong = yup.array().required(MSG.required).max(max, `must hold at most ${max} ${what}`);
  const element = of();
  return yup.lazy((value: unknown) =>
    Array.isArray(value) && value.length > max ? tooLong : element,
  ) as unknown as S;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSheetType(value: unknown): value is SheetType {
  return (SHEET_TYPES as readonly unknown[]).includes(value);
}

/** Appends a field name to a yup path the way yup does (bracket-quoted when the name contains a dot). */
function fieldPath(parent: string | undefined, key: string): string {
  if (key.includes('.')) return `${parent ?? ''}["${key}"]`;
  return parent ? `${parent}.${key}` : key;
}

/**
 * Builds an error directly rather than through ctx.createError, which interpolates `${...}` in the message and
 * captures a stack trace: a body with thousands of bad amounts would pay for both.
 */
function fieldError(path: string, message: string): yup.ValidationError {
  return new yup.ValidationError(message, undefined, path, 'submission', true);
}

function result(errors: yup.ValidationError[]): true | yup.ValidationError {
  return errors.length === 0 ? true : new yup.ValidationError(errors, undefined, undefined, undefined, true);
}

/** A yup test rejecting fields outside `allowed`, one error at each unknown field's own path. */
function onlyFields(allowed: readonly string[], what: string) {
  const known = new Set(allowed);
  const message = `is not a field of ${what} (allowed: ${allowed.join(', ')})`;
  return {
    name: 'onlyFields',
    skipAbsent: true,
    test(value: unknown, ctx: yup.TestContext) {
      if (!isPlainObject(value)) return true;
      const errors: yup.ValidationError[] = [];
      for (const key of Object.keys(value)) {
        if (!known.has(key)) errors.push(fieldError(fieldPath(ctx.path, key), message));
      }
      return result(errors);
    },
  };
}

/** yup.object(shape) that also rejects fields the shape does not name. */
function closedObject<S extends yup.ObjectShape>(shape: S, what: string) {
  return yup.object(shape).test(onlyFields(Object.keys(shape), what));
}

/** Why `value` is not a valid amount string, or undefined when it is one. */
function amountProblem(value: unknown): string | undefined {
  if (typeof value === 'number') return 'must be a string, not a JSON number: quote it, e.g. "-1234.56"';
  if (typeof value !== 'string' || !AMOUNT_PATTERN.test(value)) return AMOUNT_FORMAT;
  const digits = value.startsWith('-') ? value.slice(1) : value;
  const point = digits.indexOf('.');
  const integerDigits = point === -1 ? digits.length : point;
  if (integerDigits > LIMITS.maxIntegerDigits) {
    return `must have at most ${LIMITS.maxIntegerDigits} digits before the decimal point`;
  }
  if (point !== -1 && digits.length - point - 1 > LIMITS.maxFractionDigits) {
    return `must have at most ${LIMITS.maxFractionDigits} digits after the decimal point`;
  }
  return undefined;
}

/**
 * Checks the items of one sheet. Without a valid sheet_type the amount field names are unknown, so only
 * item_name is checked then (the sheet_type error is reported by its own schema).
 */
function itemErrors(items: readonly unknown[], sheetType: SheetType | undefined, path: string) {
  const errors: yup.ValidationError[] = [];
  const firstIndexOfName = new Map<string, number>();
  const fields = sheetType && ITEM_FIELDS[sheetType];
  const allowed = fields && new Set(fields);
  const unknownField =
    fields &&
    `is not a field of ${sheetType === 'income' ? 'an' : 'a'} ${sheetType} item (allowed: ${fields.join(', ')})`;
  for (let k = 0; k < items.length; k++) {
    const item = items[k];
    const itemPath = `${path}[${k}]`;
    if (!isPlainObject(item)) {
      errors.push(fieldError(itemPath, MSG.object));
      continue;
    }
    if (allowed && unknownField) {
      for (const key of Object.keys(item)) {
        if (!allowed.has(key)) errors.push(fieldError(fieldPath(itemPath, key), unknownField));
      }
    }

    const name = item.item_name;
    const namePath = `${itemPath}.item_name`;
    if (name === undefined || name === null) errors.push(fieldError(namePath, MSG.required));
    else if (typeof name !== 'string') errors.push(fieldError(namePath, MSG.string));
    else if (name.trim() === '') errors.push(fieldError(namePath, 'must not be empty'));
    else if (name.length > LIMITS.maxNameLength) errors.push(fieldError(namePath, MSG.nameLength));
    else if (textProblem(name)) errors.push(fieldError(namePath, textProblem(name)!));
    else {
      const first = firstIndexOfName.get(name);
      if (first === undefined) firstIndexOfName.set(name, k);
      else errors.push(fieldError(namePath, `duplicates the item_name of items[${first}] in the same sheet`));
    }

    if (!sheetType) continue;
    const { current, previous } = AMOUNT_FIELDS[sheetType];
    const currentValue = item[current];
    if (currentValue === undefined || currentValue === null) {
      errors.push(fieldError(`${itemPath}.${current}`, MSG.required));
    } else {
      const problem = amountProblem(currentValue);
      if (problem) errors.push(fieldError(`${itemPath}.${current}`, problem));
    }
    const previousValue = item[previous];
    if (previousValue !== undefined && previousValue !== null) {
      const problem = amountProblem(previousValue);
      if (problem) errors.push(fieldError(`${itemPath}.${previous}`, problem));
    }
    if (errors.length > LIMITS.maxItemErrorsPerSheet) {
      // Stop building errors (a sheet of garbage would otherwise answer thousands); count what is left.
      const rest = items.length - k - 1;
      const kept = errors.slice(0, LIMITS.maxItemErrorsPerSheet);
      kept.push(
        fieldError(
          path,
          `has more problems than listed: ${errors.length - kept.length} more in items[..${k}]` +
            (rest > 0 ? ` and the ${rest} items after items[${k}] were not checked` : ''),
        ),
      );
      return kept;
    }
  }
  return errors;
}

/**
 * A required enum value. mixed + oneOf compares with ===, so a non-string gets the one "must be one of" error
 * (string().oneOf() would add a second, type error).
 */
function oneOf<T extends string>(values: readonly T[]) {
  return yup
    .mixed<T>()
    .required(MSG.required)
    .oneOf(values, `must be one of: ${values.join(', ')}`);
}

const itemsSchema = yup
  .array()
  .required(MSG.required)
  .typeError(MSG.array)
  .max(LIMITS.maxItemsPerSheet, `must hold at most ${LIMITS.maxItemsPerSheet} items`)
  .test({
    name: 'items',
    skipAbsent: true,
    test(items, ctx) {
      // Past the limit the max test has already failed; checking every item would only amplify the reply.
      if (items.length > LIMITS.maxItemsPerSheet) return true;
      const sheetType = isPlainObject(ctx.parent) ? ctx.parent.sheet_type : undefined;
      return result(itemErrors(items, isSheetType(sheetType) ? sheetType : undefined, ctx.path));
    },
  });

const sheetSchema = closedObject(
  {
    sheet_type: oneOf(SHEET_TYPES),
    items: itemsSchema,
  },
  'a sheet',
)
  .required(MSG.object)
  .typeError(MSG.object);

const yearSchema = closedObject(
  {
    year: yup.number().required(MSG.required).typeError(MSG.integer).integer(MSG.integer),
    sheets: boundedArray(LIMITS.maxSheetsPerYear, 'sheets', () =>
      yup
        .array()
        .of(sheetSchema)
        .required(MSG.required)
        .typeError(MSG.array)
        .test({
          name: 'sheetTypes',
          skipAbsent: true,
          test(sheets, ctx) {
            const errors: yup.ValidationError[] = [];
            const firstIndexOfType = new Map<SheetType, number>();
            sheets.forEach((sheet, j) => {
              const type: unknown = isPlainObject(sheet) ? sheet.sheet_type : undefined;
              if (!isSheetType(type)) return;
              const first = firstIndexOfType.get(type);
              if (first === undefined) firstIndexOfType.set(type, j);
              else {
                const message = `duplicates the ${type} sheet of sheets[${first}]: each sheet_type at most once a year`;
                errors.push(fieldError(`${ctx.path}[${j}].sheet_type`, message));
              }
            });
            const year: unknown = isPlainObject(ctx.parent) ? ctx.parent.year : undefined;
            const which = Number.isInteger(year) ? `year ${year}` : 'this year';
            for (const type of REQUIRED_SHEETS) {
              if (!firstIndexOfType.has(type)) {
                const message = `${which} has no ${type} sheet (income and balance are required every year)`;
                errors.push(fieldError(ctx.path, message));
              }
            }
            return result(errors);
          },
        }),
    ),
  },
  'a year object',
)
  .required(MSG.object)
  .typeError(MSG.object);

const yearBound = () =>
  yup
    .number()
    .required(MSG.required)
    .typeError(MSG.integer)
    .integer(MSG.integer)
    .min(LIMITS.minYear, MSG.year)
    .max(LIMITS.maxYear, MSG.year);

/** The submitted year range when year_start and year_end are both valid, else undefined. */
function yearRange(root: unknown): { start: number; end: number } | undefined {
  if (!isPlainObject(root)) return undefined;
  const { year_start: start, year_end: end } = root;
  const valid = (year: unknown): year is number =>
    Number.isInteger(year) && (year as number) >= LIMITS.minYear && (year as number) <= LIMITS.maxYear;
  if (!valid(start) || !valid(end) || end <= start || end - start + 1 > LIMITS.maxYears) return undefined;
  return { start, end };
}

const infoString = () =>
  yup.string().nullable().typeError(MSG.string).max(LIMITS.maxNameLength, MSG.nameLength).test(cleanText);
/** 0 or 1 exactly: mixed + oneOf compares with ===, so "1" and true are rejected, and the type is 0 | 1. */
const flag = () => yup.mixed<0 | 1>().oneOf([0, 1], MSG.flag);

const enterpriseInfoSchema = closedObject(
  {
    province: infoString(),
    city: infoString(),
    area: infoString(),
    industry_sector_code: infoString(),
    industry_sector: infoString(),
    industry_division_code: infoString(),
    industry_division: infoString(),
    employee_count: infoString(),
    taxpayer_qualification: infoString(),
    is_vat_taxpayer: flag().nullable(),
    enterprise_type: infoString(),
    is_sme: flag().nullable(),
  },
  'enterprise_info',
)
  .nullable()
  .typeError(MSG.object);

/**
 * The submission body schema. Strict: a string never becomes a number, defaults are not applied, unknown
 * fields are errors. Usable directly through Standard Schema (`submissionSchema['~standard']`); only
 * `validateSubmission` adds the post-processing (trimmed name, ai_auto_analysis default).
 */
export const submissionSchema: yup.ObjectSchema<SubmissionInput> = closedObject(
  {
    enterprise_name: yup
      .string()
      .nullable()
      .typeError(MSG.string)
      .test({
        name: 'nameLength',
        skipAbsent: true,
        message: MSG.nameLength,
        test: (name) => name == null || name.trim().length <= LIMITS.maxNameLength,
      })
      .test(cleanText),
    accounting_standard: oneOf(ACCOUNTING_STANDARDS),
    year_start: yearBound(),
    year_end: yearBound().test({
      name: 'yearOrder',
      skipAbsent: true,
      test(end, ctx) {
        const start: unknown = ctx.parent.year_start;
        if (!Number.isInteger(start) || !Number.isInteger(end)) return true;
        if (end <= (start as number)) return fieldError(ctx.path, 'must be greater than year_start');
        const span = end - (start as number) + 1;
        if (span > LIMITS.maxYears) {
          return fieldError(
            ctx.path,
            `spans ${span} years from year_start; at most ${LIMITS.maxYears} are allowed`,
          );
        }
        return true;
      },
    }),
    years_data: boundedArray(LIMITS.maxYears, 'years', () =>
      yup
        .array()
        .of(yearSchema)
        .required(MSG.required)
        .typeError(MSG.array)
        .test({
          name: 'yearCoverage',
          skipAbsent: true,
          test(years, ctx) {
            const range = yearRange(ctx.parent);
            const errors: yup.ValidationError[] = [];
            const firstIndexOfYear = new Map<number, number>();
            years.forEach((entry, i) => {
              const year: unknown = isPlainObject(entry) ? entry.year : undefined;
              if (typeof year !== 'number' || !Number.isInteger(year)) return;
              const path = `${ctx.path}[${i}].year`;
              const first = firstIndexOfYear.get(year);
              if (first !== undefined) {
                errors.push(
                  fieldError(path, `year ${year} appears more than once (first at years_data[${first}])`),
                );
                return;
              }
              firstIndexOfYear.set(year, i);
              if (range && (year < range.start || year > range.end)) {
                errors.push(
                  fieldError(
                    path,
                    `year ${year} is outside year_start..year_end (${range.start}–${range.end})`,
                  ),
                );
              }
            });
            if (range) {
              for (let year = range.start; year <= range.end; year++) {
                if (!firstIndexOfYear.has(year)) {
                  const message = `year ${year} is missing: every year from ${range.start} to ${range.end} is required once`;
                  errors.push(fieldError(ctx.path, message));
                }
              }
            }
            return result(errors);
          },
        }),
    ),
    enterprise_info: enterpriseInfoSchema,
    ai_auto_analysis: flag().nonNullable(MSG.flag),
  },
  'the submission',
)
  .required(MSG.body)
  .typeError(MSG.body)
  .strict();

/** Splits a yup path into segments; indices become numbers so that [10] sorts after [9]. */
function pathSegments(path: string): (string | number)[] {
  const segments: (string | number)[] = [];
  for (const match of path.matchAll(/\[(\d+)\]|\["([^"]*)"\]|([^.[\]]+)/g)) {
    segments.push(match[1] !== undefined ? Number(match[1]) : (match[2] ?? match[3] ?? ''));
  }
  return segments;
}

/** Document order by location: a parent before its children, indices numerically, field names by name. */
function comparePaths(a: (string | number)[], b: (string | number)[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * Flattens a yup ValidationError into unique { path, message } pairs sorted by location (stable for equal
 * paths); the whole body is path ''.
 */
export function toFieldErrors(error: yup.ValidationError): FieldError[] {
  const seen = new Set<string>();
  const unique: { error: FieldError; segments: (string | number)[] }[] = [];
  for (const leaf of error.inner.length > 0 ? error.inner : [error]) {
    const path = leaf.path ?? '';
    for (const message of leaf.errors) {
      const key = `${path}\u0000${message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      unique.push({ error: { path, message }, segments: pathSegments(path) });
    }
  }
  unique.sort((a, b) => comparePaths(a.segments, b.segments));
  return unique.map((entry) => entry.error);
}

/**
 * Validates a parsed JSON body against the submission contract, collecting every error.
 * On success the value is the body with `enterprise_name` trimmed (null when absent or blank) and
 * `ai_auto_analysis` defaulted to 0; item names are not checked against the catalogue here.
 */
export function validateSubmission(
  body: unknown,
): { ok: true; value: SubmissionInput } | { ok: false; errors: FieldError[] } {
  let valid: SubmissionInput;
  try {
    valid = submissionSchema.validateSync(body, { abortEarly: false, strict: true, disableStackTrace: true });
  } catch (error) {
    if (error instanceof yup.ValidationError) return { ok: false, errors: toFieldErrors(error) };
    throw error;
  }
  const name = valid.enterprise_name?.trim();
  return {
    ok: true,
    value: { ...valid, enterprise_name: name ? name : null, ai_auto_analysis: valid.ai_auto_analysis ?? 0 },
  };
}
