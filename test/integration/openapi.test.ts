/**
 * schema/openapi.yaml against the running app: every response the tests provoke (each documented status of
 * each operation, happy paths and errors) must be documented, with its content type, headers and body valid
 * against the document's schemas; every request body sent is checked against the request schema first. The
 * document's routes, limits and enums are compared with the code, and its examples with its schemas, so
 * the document cannot drift from the service.
 */
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LIMITS, validateSubmission } from '../../schema/submission.ts';
import { buildApp } from '../../server/app.ts';
import { Account } from '../../server/db/entities/account.entity.ts';
import { REPORT_STATUSES } from '../../server/db/entities/report.entity.ts';
import { TASK_STATUSES, TASK_STEPS } from '../../server/db/entities/task.entity.ts';
import { buildTemplate, type TemplateBody } from '../../server/import/template.ts';
import { consoleRoutes, SIGN_UP_LIMIT } from '../../server/rest/consoleRoutes.ts';
import { developerRoutes } from '../../server/rest/developerRoutes.ts';
import { docsRouter, loadOpenApiDocument } from '../../server/rest/docsRoutes.ts';
import { forgetApiKeys } from '../../server/services/readCache.ts';
import { analysisCatalogue } from '../../worker/catalogue/analysisCatalogue.ts';
import { SECTIONS } from '../../worker/engine/module.ts';
import { ACCOUNTING_STANDARDS, RISK_LEVELS, SHEET_TYPES } from '../../worker/types.ts';
import { holdIdempotencyKey, insertReport } from '../helpers/records.ts';
import {
  type ApiResponse,
  FIXTURES,
  fixture,
  type SubmissionBody,
  startTestService,
  type TestService,
  waitForReport,
} from '../helpers/service.ts';

// ---- The document, as plain data with just enough typing to walk it --------------------------------------

type Schema = { [keyword: string]: unknown };
interface Ref {
  $ref: string;
}
interface MediaType {
  schema: Schema;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Header {
  required?: boolean;
  schema: Schema;
}
interface Response {
  description: string;
  headers?: Record<string, Header | Ref>;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  security?: unknown[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, Response | Ref>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Schema> };
}

const SUBMIT = '/api/v1/developer/reports/financial';
const LIST = '/api/v1/developer/reports';
const REPORT = '/api/v1/developer/reports/{report_id}';
const TASK = '/api/v1/developer/tasks/{task_id}';
const ANALYSIS = '/api/v1/developer/reports/{report_id}/analysis';
const ITEM = '/api/v1/developer/reports/{report_id}/analysis/{slug}';
const CATALOGUE = '/api/v1/developer/catalogue';
const BENCHMARKS = '/api/v1/developer/benchmarks';
const AI_REPORT = '/api/v1/developer/reports/{report_id}/ai-analysis';
const AI_ITEM = '/api/v1/developer/reports/{report_id}/analysis/{slug}/ai-analysis';
const SHARED = '/api/v1/shared/reports/{share_token}';
const SHARED_XLSX = '/api/v1/shared/reports/{share_token}/export.xlsx';
const SIGNUP = '/api/v1/console/signup';
const LOGIN = '/api/v1/console/login';
const LOGOUT = '/api/v1/console/logout';
const SESSION = '/api/v1/console/session';
const PASSWORD = '/api/v1/console/password';
const HEALTH = '/healthz';
const READY = '/readyz';
const OPENAPI = '/api/v1/openapi.json';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const doc = loadOpenApiDocument() as unknown as Document;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Follows a local `#/...` JSON pointer. */
function resolvePointer(ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local refs are used: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), doc);
}

/** An OpenAPI object that may be a `$ref` (responses, headers), resolved. */
function deref<T>(node: T | Ref): T {
  let current: unknown = node;
  while (isObject(current) && typeof current.$ref === 'string') current = resolvePointer(current.$ref);
  if (current === undefined) throw new Error(`unresolved ref ${JSON.stringify(node)}`);
  return current as T;
}

function operations(): Array<{ path: string; method: string; operation: Operation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => method in item).map((method) => ({
      path,
      method,
      operation: item[method] as Operation,
    })),
  );
}

function operation(method: string, path: string): Operation {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`${method.toUpperCase()} ${path} is not in the document`);
  return found as Operation;
}

// ---- Schemas, compiled with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) ---------------------------

const SCHEMAS_ID = 'https://openapi.test/components.json';

/** Copies a schema, pointing `#/components/schemas/X` at the schema resource that holds the components. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (!isObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')
        ? `${SCHEMAS_ID}#/$defs/${value.slice('#/components/schemas/'.length)}`
        : rewriteRefs(value),
    ]),
  );
}

/**
 * The document leaves response objects open (clients must ignore new fields, docs/api-behaviour.md), but a
 * field the service sends and the document does not name is drift: the tests close every object schema that
 * lists properties. `contains` and `allOf` fragments constrain part of an object and stay open.
 */
function closeObjects(schema: unknown): void {
  if (!isObject(schema)) return;
  // An object built by `allOf` (an analysis item: AnalysisItemBase + its slug's part) is closed as a whole.
  if (
    schema.type === 'object' &&
    Array.isArray(schema.allOf) &&
    schema.allOf.some((part) => isObject(part) && isObject(part.properties))
  ) {
    schema.unevaluatedProperties ??= false;
    for (const part of schema.allOf)
      if (isObject(part) && isObject(part.properties)) Object.values(part.properties).forEach(closeObjects);
  }
  if (isObject(schema.properties)) {
    schema.additionalProperties ??= false;
    for (const property of Object.values(schema.properties)) closeObjects(property);
  }
  closeObjects(schema.items);
  for (const member of [schema.oneOf, schema.anyOf]) if (Array.isArray(member)) member.forEach(closeObjects);
}

const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: true, allowUnionTypes: true });
// ajv-formats is CommonJS: under nodenext its default export is reached through `.default`.
ajvFormats.default(ajv);
// An OpenAPI annotation: oneOf does the validating.
ajv.addKeyword('discriminator');
const components = rewriteRefs(doc.components.schemas) as Record<string, Schema>;
/** Schemas that are parts of an `allOf` stay open themselves: the whole they are part of is closed. */
const allOfParts = new Set(
  Object.values(doc.components.schemas).flatMap((schema) =>
    Array.isArray((schema as Schema).allOf)
      ? ((schema as Schema).allOf as Schema[]).flatMap((part) =>
          typeof part.$ref === 'string' ? [part.$ref.slice('#/components/schemas/'.length)] : [],
        )
      : [],
  ),
);
for (const [name, schema] of Object.entries(components)) {
  if (allOfParts.has(name) && isObject(schema) && isObject(schema.properties))
    Object.values(schema.properties).forEach(closeObjects);
  else closeObjects(schema);
}
ajv.addSchema({ $id: SCHEMAS_ID, $defs: components });

const compiled = new WeakMap<object, ValidateFunction>();
function validator(schema: Schema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(rewriteRefs(schema) as Schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function schemaErrors(schema: Schema, value: unknown): string | null {
  const validate = validator(schema);
  if (validate(value)) return null;
  return (validate.errors ?? [])
    .map((error) => `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`)
    .join('\n');
}

const submissionSchema = () => operation('post', SUBMIT).requestBody!.content['application/json']!.schema;

function expectValidRequest(body: unknown): void {
  expect(schemaErrors(submissionSchema(), body)).toBeNull();
}

function expectInvalidRequest(body: unknown): void {
  expect(schemaErrors(submissionSchema(), body), 'the request schema rejects this body').not.toBeNull();
}

// ---- Responses --------------------------------------------------------------------------------------------

/** Every (operation, status) a test has seen, to prove each documented response is really produced. */
const seen = new Set<string>();

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Asserts the response is documented for the operation, and matches its content type, headers and body. */
function expectDocumented(method: string, path: string, response: ApiResponse): void {
  const where = `${method.toUpperCase()} ${path} → ${response.status} ${response.text.slice(0, 300)}`;
  const documented = operation(method, path).responses[String(response.status)];
  expect(documented, `undocumented response: ${where}`).toBeDefined();
  seen.add(`${method} ${path} ${response.status}`);
  const spec = deref(documented!);
  for (const [name, headerOrRef] of Object.entries(spec.headers ?? {})) {
    const header = deref(headerOrRef);
    const value = response.headers.get(name);
    if (header.required) expect(value, `header ${name}: ${where}`).not.toBeNull();
    if (value !== null) expect(schemaErrors(header.schema, value), `header ${name}: ${where}`).toBeNull();
  }
  const content = spec.content ?? {};
  if (Object.keys(content).length === 0) {
    expect(response.text, where).toBe('');
    return;
  }
  const type = mediaType(response.headers.get('content-type'));
  expect(Object.keys(content), `content type ${type}: ${where}`).toContain(type);
  expect(schemaErrors(content[type]!.schema, response.body), where).toBeNull();
}

// ---- The tests --------------------------------------------------------------------------------------------

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** The request examples of the submission, by name. */
function submissionExample(name: string): SubmissionBody {
  const examples = operation('post', SUBMIT).requestBody!.content['application/json']!.examples!;
  return structuredClone(examples[name]!.value) as SubmissionBody;
}

describe('the OpenAPI document', () => {
  let service: TestService;
  let key: string;
  let accountId: string;
  /** A finished report: its receipt. */
  let done: { report_id: string; task_id: string };

  const get = (path: string, init: { key?: string; headers?: Record<string, string> } = {}) =>
    service.request(path, init);

  beforeAll(async () => {
    // A 1 MB limit keeps the 413 request small.
    service = await startTestService('pglite', { bodyLimitBytes: 1024 * 1024 });
    const email = `openapi-${Date.now()}@example.com`;
    key = await service.newKey('test', email);
    accountId = (await service.services.db.orm.em.fork().findOneOrFail(Account, { email })).id;
  });
  afterAll(async () => {
    await service?.close();
  });

  it('is served at /api/v1/openapi.json without a key, as schema/openapi.yaml parsed', async () => {
    const response = await get(OPENAPI);
    expectDocumented('get', OPENAPI, response);
    expect(response.body).toEqual(doc);
    // fetch adds `Cache-Control: no-cache` to a conditional request unless told otherwise; a browser revalidates so.
    const again = await get(OPENAPI, {
      headers: { 'If-None-Match': response.headers.get('etag')!, 'Cache-Control': 'max-age=0' },
    });
    expect(again.status).toBe(304);
    expectDocumented('get', OPENAPI, again);
  });

  it('is OpenAPI 3.1 whose refs resolve, whose schemas compile and whose examples are valid', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    const refs: string[] = [];
    (function collect(node: unknown): void {
      if (Array.isArray(node)) node.forEach(collect);
      else if (isObject(node)) {
        if (typeof node.$ref === 'string') refs.push(node.$ref);
        Object.values(node).forEach(collect);
      }
    })(doc);
    for (const ref of refs) expect(resolvePointer(ref), ref).toBeDefined();

    let examples = 0;
    const check = (schema: Schema, media: MediaType, where: string) => {
      if (media.example !== undefined) {
        examples++;
        expect(schemaErrors(schema, media.example), where).toBeNull();
      }
      for (const [name, example] of Object.entries(media.examples ?? {})) {
        examples++;
        expect(schemaErrors(schema, example.value), `${where} ${name}`).toBeNull();
      }
    };
    for (const { path, method, operation } of operations()) {
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {}))
        check(media.schema, media, `${method} ${path} request ${type}`);
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(deref(response).content ?? {})) {
          check(media.schema, media, `${method} ${path} ${status} ${type}`);
        }
      }
    }
    expect(examples).toBeGreaterThan(15);
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses))
        expect(deref(response).headers, `${method} ${path} ${status}`).toHaveProperty('X-Request-Id');
    }
    // The examples themselves must also be what the service accepts.
    expect(validateSubmission(submissionExample('small_enterprise')).ok).toBe(true);
    expect(validateSubmission(submissionExample('partial_general_new')).ok).toBe(true);
    expect(submissionExample('small_enterprise')).toEqual(fixture('small_enterprise-2y-no-cash-flow'));
  });

  it('states the limits and enums the code enforces', () => {
    const s = doc.components.schemas;
    const prop = (schema: string, name: string) => (s[schema]!.properties as Record<string, Schema>)[name]!;
    expect(prop('Submission', 'years_data').maxItems).toBe(LIMITS.maxYears);
    expect(s.Year).toMatchObject({ minimum: LIMITS.minYear, maximum: LIMITS.maxYear });
    expect(prop('Submission', 'enterprise_name').maxLength).toBe(LIMITS.maxNameLength);
    expect(s.ItemName!.maxLength).toBe(LIMITS.maxNameLength);
    expect(s.InfoText!.maxLength).toBe(LIMITS.maxNameLength);
    for (const sheet of ['IncomeSheet', 'BalanceSheet', 'CashFlowSheet'])
      expect(prop(sheet, 'items').maxItems, sheet).toBe(LIMITS.maxItemsPerSheet);
    const amount = `^-?\\d{1,${LIMITS.maxIntegerDigits}}(\\.\\d{1,${LIMITS.maxFractionDigits}})?$`;
    expect(s.Amount!.pattern).toBe(amount);
    expect(s.ComparativeAmount!.pattern).toBe(amount);

    expect(s.AccountingStandard!.enum).toEqual([...ACCOUNTING_STANDARDS]);
    expect(Object.keys((s.Sheet!.discriminator as { mapping: object }).mapping)).toEqual([...SHEET_TYPES]);
    expect(prop('CatalogueLine', 'sheet').enum).toEqual([...SHEET_TYPES]);
    expect(s.RiskLevel!.enum).toEqual([...RISK_LEVELS]);
    expect(s.ReportStatus!.enum).toEqual([...REPORT_STATUSES]);
    expect(prop('Task', 'status').enum).toEqual([...TASK_STATUSES]);
    expect(prop('Task', 'step').enum).toEqual([...TASK_STEPS]);
    expect(s.SectionId!.enum).toEqual(Object.keys(SECTIONS));
    const kinds = new Set(analysisCatalogue().items.map((item) => item.kind));
    expect(new Set(prop('CatalogueItem', 'kind').enum as string[])).toEqual(kinds);
  });

  it('agrees with the service validator on what a valid submission is', () => {
    type Mutation = (body: SubmissionBody) => void;
    const base = () => fixture('small_enterprise-2y-no-cash-flow');
    const income = (body: SubmissionBody) => body.years_data[0]!.sheets[0]!;
    const balance = (body: SubmissionBody) => body.years_data[0]!.sheets[1]!;
    const firstItem = (body: SubmissionBody) => income(body).items[0]!;
    const both: Array<[string, Mutation, boolean]> = [
      ['as it is', () => {}, true],
      ['no enterprise_name', (b) => delete b.enterprise_name, true],
      ['null enterprise_name', (b) => Object.assign(b, { enterprise_name: null }), true],
      ['null enterprise_info', (b) => Object.assign(b, { enterprise_info: null }), true],
      ['no ai_auto_analysis', (b) => delete b.ai_auto_analysis, true],
      ['null comparative amount', (b) => Object.assign(firstItem(b), { last_year_amount: null }), true],
      ['no comparative amount', (b) => delete firstItem(b).last_year_amount, true],
      ['negative amount', (b) => Object.assign(firstItem(b), { current_year_amount: '-0.5' }), true],
      [
        '18.6-digit amount',
        (b) => Object.assign(firstItem(b), { current_year_amount: `${'9'.repeat(18)}.123456` }),
        true,
      ],
      [
        'a cash_flow sheet',
        (b) =>
          b.years_data[1]!.sheets.push({
            sheet_type: 'cash_flow',
            items: [{ item_name: 'sales_cash', current_year_amount: '1', last_year_amount: '2' }],
          }),
        true,
      ],
      ['an unknown item_name', (b) => Object.assign(firstItem(b), { item_name: 'mystery_line' }), true],
      ['unknown standard', (b) => Object.assign(b, { accounting_standard: 'ifrs' }), false],
      ['year as a string', (b) => Object.assign(b, { year_start: '2023' }), false],
      ['year before 1950', (b) => Object.assign(b, { year_start: 1949 }), false],
      ['unknown top-level field', (b) => Object.assign(b, { extra: 1 }), false],
      ['unknown year field', (b) => Object.assign(b.years_data[0]!, { note: 'x' }), false],
      ['unknown sheet field', (b) => Object.assign(income(b), { unit: 'yuan' }), false],
      ['unknown item field', (b) => Object.assign(firstItem(b), { note: 'x' }), false],
      ['balance field on an income item', (b) => Object.assign(firstItem(b), { ending_balance: '1' }), false],
      [
        'amount with separators',
        (b) => Object.assign(firstItem(b), { current_year_amount: '1,234.00' }),
        false,
      ],
      ['amount as a number', (b) => Object.assign(firstItem(b), { current_year_amount: 1234 }), false],
      ['amount with a plus sign', (b) => Object.assign(firstItem(b), { current_year_amount: '+1' }), false],
      ['amount with an exponent', (b) => Object.assign(firstItem(b), { current_year_amount: '1e5' }), false],
      [
        '19 integer digits',
        (b) => Object.assign(firstItem(b), { current_year_amount: '9'.repeat(19) }),
        false,
      ],
      ['7 fraction digits', (b) => Object.assign(firstItem(b), { current_year_amount: '1.1234567' }), false],
      ['missing current amount', (b) => delete firstItem(b).current_year_amount, false],
      ['missing ending balance', (b) => delete balance(b).items[0]!.ending_balance, false],
      ['blank item_name', (b) => Object.assign(firstItem(b), { item_name: '  ' }), false],
      ['no balance sheet', (b) => b.years_data[0]!.sheets.splice(1, 1), false],
      ['unknown sheet_type', (b) => Object.assign(balance(b), { sheet_type: 'equity' }), false],
      [
        'too many items',
        (b) => {
          income(b).items = Array.from({ length: LIMITS.maxItemsPerSheet + 1 }, (_, i) => ({
            item_name: `line_${i}`,
            current_year_amount: '1',
          }));
        },
        false,
      ],
      ['ai_auto_analysis 2', (b) => Object.assign(b, { ai_auto_analysis: 2 }), false],
      ['ai_auto_analysis null', (b) => Object.assign(b, { ai_auto_analysis: null }), false],
      ['is_sme "1"', (b) => Object.assign(b.enterprise_info as object, { is_sme: '1' }), false],
      [
        'unknown enterprise_info field',
        (b) => Object.assign(b.enterprise_info as object, { ceo: 'x' }),
        false,
      ],
    ];
    // Rules across fields that JSON Schema cannot state: the document describes them, the service enforces them.
    const serviceOnly: Array<[string, Mutation]> = [
      ['year_end not after year_start', (b) => Object.assign(b, { year_start: 2024, year_end: 2024 })],
      ['a year missing from the range', (b) => Object.assign(b, { year_end: 2025 })],
      ['a duplicate item_name', (b) => Object.assign(income(b).items[1]!, { item_name: 'revenue' })],
      // Which sheets a year holds: `contains` could state it, but client generators then type `sheets` unknown.
      ['two income sheets', (b) => b.years_data[0]!.sheets.push(structuredClone(income(b)))],
    ];
    for (const [name, mutate, valid] of both) {
      const body = base();
      mutate(body);
      expect(validateSubmission(body).ok, `service: ${name}`).toBe(valid);
      expect(schemaErrors(submissionSchema(), body) === null, `document: ${name}`).toBe(valid);
    }
    for (const body of [[], 'report', 42, null]) {
      expect(validateSubmission(body).ok).toBe(false);
      expect(schemaErrors(submissionSchema(), body)).not.toBeNull();
    }
    for (const [name, mutate] of serviceOnly) {
      const body = base();
      mutate(body);
      expect(validateSubmission(body).ok, `service: ${name}`).toBe(false);
      expect(schemaErrors(submissionSchema(), body), `document: ${name}`).toBeNull();
    }
  });

  it('lists exactly the routes the app serves under /api/v1', async () => {
    // Parameter names differ (`:reportId` in the router, the spec's `{report_id}` here): compare shapes.
    const shape = (path: string) => path.replace(/:\w+|\{\w+\}/g, '{}');
    const routed = [
      ...developerRoutes(service.services).stack,
      ...consoleRoutes(service.services).stack,
      ...docsRouter().stack,
    ]
      .filter((layer) => typeof layer.path === 'string' && layer.path.startsWith('/api/v1'))
      .flatMap((layer) =>
        layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${shape(layer.path as string)}`),
      );
    const documented = operations().filter(({ path }) => path.startsWith('/api/v1'));
    expect(routed.length).toBeGreaterThan(0);
    expect(documented.map(({ method, path }) => `${method.toUpperCase()} ${shape(path)}`)).toEqual(
      expect.arrayContaining(routed),
    );
    // The other way round, including routes outside those two routers (the web app's share endpoint): the
    // app answers every documented operation with something other than "no such endpoint".
    for (const { method, path } of documented) {
      const url = path.replace(/\{\w+\}/g, 'x');
      const response = await service.request(url, { method: method.toUpperCase(), key });
      expect(response.body?.code, `${method.toUpperCase()} ${path}`).not.toBe('route_not_found');
    }
    for (const { path, operation } of operations()) {
      // The developer API needs the key; signing out and "who am I" the console's cookie; the other
      // endpoints say they need nothing.
      const expected = path.startsWith('/api/v1/developer')
        ? undefined
        : path === LOGOUT || path === SESSION || path === PASSWORD
          ? [{ ConsoleSession: [] }]
          : [];
      expect(operation.security, path).toEqual(expected);
    }
  });

  it('describes the flow: submission, report, task, analysis list and item, catalogue, health', async () => {
    const bodies = [...FIXTURES.map((name) => fixture(name)), submissionExample('partial_general_new')];
    const receipts: Array<{ report_id: string; task_id: string }> = [];
    for (const body of bodies) {
      expectValidRequest(body);
      const response = await service.request(SUBMIT, { method: 'POST', key, body });
      expectDocumented('post', SUBMIT, response);
      expect(response.status).toBe(202);
      expect(response.headers.get('location')).toBe(`/api/v1/developer/reports/${response.body.report_id}`);
      receipts.push(response.body);
    }
    // The error tests below read this report: set before anything else here can fail.
    done = receipts[0]!;
    for (const receipt of receipts) {
      const report = await waitForReport(service, key, receipt.report_id);
      expectDocumented('get', REPORT, report);
      expect(report.body.status).toBe('success');
      expectDocumented('get', TASK, await get(`/api/v1/developer/tasks/${receipt.task_id}`, { key }));
      const list = await get(`/api/v1/developer/reports/${receipt.report_id}/analysis`, { key });
      expectDocumented('get', ANALYSIS, list);
      expect(list.status).toBe(200);
    }
    for (const slug of ['core_risk_insight', 'revenue', 'balance_sheet']) {
      const item = await get(`/api/v1/developer/reports/${done.report_id}/analysis/${slug}`, { key });
      expectDocumented('get', ITEM, item);
      expect(item.status).toBe(200);
    }
    // general_old-5y-ai asked for AI text (ai_content: a string once the AI step writes it).
    expectDocumented(
      'get',
      ITEM,
      await get(`/api/v1/developer/reports/${receipts[2]!.report_id}/analysis/revenue`, { key }),
    );

    const share = (await get(`/api/v1/developer/reports/${done.report_id}`, { key })).body.share;
    const shared = await get(`/api/v1/shared/reports/${share.share_token}`);
    expectDocumented('get', SHARED, shared);
    expect(shared.status).toBe(200);
    const workbook = await get(`/api/v1/shared/reports/${share.share_token}/export.xlsx`);
    expectDocumented('get', SHARED_XLSX, workbook);
    expect(workbook.status).toBe(200);

    const aiItem = await service.request(
      `/api/v1/developer/reports/${done.report_id}/analysis/revenue/ai-analysis`,
      {
        method: 'POST',
        key,
      },
    );
    expectDocumented('post', AI_ITEM, aiItem);
    expect(aiItem.body.ai_content).toEqual(expect.any(String));
    const aiReport = await service.request(`/api/v1/developer/reports/${done.report_id}/ai-analysis`, {
      method: 'POST',
      key,
    });
    expectDocumented('post', AI_REPORT, aiReport);
    expect(aiReport.status).toBe(200);
    // The report now counts the AI runs: ai_usage is an object.
    const used = await get(`/api/v1/developer/reports/${done.report_id}`, { key });
    expectDocumented('get', REPORT, used);
    expect(used.body.ai_usage).toEqual(expect.any(Object));

    expectDocumented('get', CATALOGUE, await get(CATALOGUE, { key }));
    expectDocumented('get', BENCHMARKS, await get(BENCHMARKS, { key }));

    // Conditional reads: each answers 304 to its own ETag.
    for (const [path, url] of [
      [REPORT, `/api/v1/developer/reports/${done.report_id}`],
      [TASK, `/api/v1/developer/tasks/${done.task_id}`],
      [ANALYSIS, `/api/v1/developer/reports/${done.report_id}/analysis`],
      [ITEM, `/api/v1/developer/reports/${done.report_id}/analysis/revenue`],
      [CATALOGUE, CATALOGUE],
    ] as const) {
      const etag = (await get(url, { key })).headers.get('etag')!;
      const notModified = await get(url, { key, headers: { 'If-None-Match': etag } });
      expectDocumented('get', path, notModified);
      expect(notModified.status, path).toBe(304);
    }

    // Every item's sp_result has the layout the document generates for its slug (schema/spResultSchemas.ts).
    const all = await get(`/api/v1/developer/reports/${done.report_id}/analysis`, { key });
    for (const item of all.body.items as Array<{ slug: string; sp_result: unknown }>) {
      const schema = doc.components.schemas[`SpResult_${item.slug}`];
      expect(schema, item.slug).toBeDefined();
      expect(
        schemaErrors({ $ref: `#/components/schemas/SpResult_${item.slug}` }, item.sp_result),
        item.slug,
      ).toBeNull();
    }

    // The list, and an idempotent submission replayed.
    const list = await get(`${LIST}?limit=2`, { key });
    expectDocumented('get', LIST, list);
    expect(list.body.data).toHaveLength(2);
    const idempotent = { key, headers: { 'Idempotency-Key': `openapi-${Date.now()}` } };
    const first = await service.request(SUBMIT, {
      method: 'POST',
      body: fixture('general_new-3y'),
      ...idempotent,
    });
    const replayed = await service.request(SUBMIT, {
      method: 'POST',
      body: fixture('general_new-3y'),
      ...idempotent,
    });
    expectDocumented('post', SUBMIT, replayed);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.report_id).toBe(first.body.report_id);
    const reused = await service.request(SUBMIT, {
      method: 'POST',
      body: { ...fixture('general_new-3y'), enterprise_name: '另一家' },
      ...idempotent,
    });
    expectDocumented('post', SUBMIT, reused);
    expect(reused.body.code).toBe('idempotency_key_reused');
    await holdIdempotencyKey(
      service.services,
      accountId,
      'held-by-another-request',
      fixture('general_new-3y'),
    );
    const conflict = await service.request(SUBMIT, {
      method: 'POST',
      key,
      body: fixture('general_new-3y'),
      headers: { 'Idempotency-Key': 'held-by-another-request' },
    });
    expectDocumented('post', SUBMIT, conflict);
    expect(conflict.status).toBe(409);

    const health = await get(HEALTH, { headers: { 'X-Request-Id': 'trace-me' } });
    expectDocumented('get', HEALTH, health);
    expect(health.headers.get('x-request-id')).toBe('trace-me');
  });

  it('describes the states before success: a pending and a failed report', async () => {
    const pending = await insertReport(service.services, accountId, { status: 'pending' });
    const failed = await insertReport(service.services, accountId, {
      status: 'failed',
      errorMessage: 'The analysis job did not finish after all its attempts.',
    });
    for (const { reportId, taskId } of [pending, failed]) {
      expectDocumented('get', REPORT, await get(`/api/v1/developer/reports/${reportId}`, { key }));
      expectDocumented('get', TASK, await get(`/api/v1/developer/tasks/${taskId}`, { key }));
      const list = await get(`/api/v1/developer/reports/${reportId}/analysis`, { key });
      expectDocumented('get', ANALYSIS, list);
      expect(list.status).toBe(409);
      const item = await get(`/api/v1/developer/reports/${reportId}/analysis/revenue`, { key });
      expectDocumented('get', ITEM, item);
      expect(item.status).toBe(409);
      for (const [path, url] of [
        [AI_REPORT, `/api/v1/developer/reports/${reportId}/ai-analysis`],
        [AI_ITEM, `/api/v1/developer/reports/${reportId}/analysis/revenue/ai-analysis`],
      ] as const) {
        const response = await service.request(url, { method: 'POST', key });
        expectDocumented('post', path, response);
        expect(response.status).toBe(409);
      }
    }
  });

  it('describes every client error', async () => {
    const expectStatus = (response: ApiResponse, status: number) => expect(response.status).toBe(status);
    // 401: every developer endpoint, without a key and with a malformed one.
    const developer: Array<[string, string, string]> = [
      ['post', SUBMIT, SUBMIT],
      ['get', REPORT, `/api/v1/developer/reports/${UNKNOWN_ID}`],
      ['get', TASK, `/api/v1/developer/tasks/${UNKNOWN_ID}`],
      ['get', ANALYSIS, `/api/v1/developer/reports/${UNKNOWN_ID}/analysis`],
      ['get', ITEM, `/api/v1/developer/reports/${UNKNOWN_ID}/analysis/revenue`],
      ['post', AI_REPORT, `/api/v1/developer/reports/${UNKNOWN_ID}/ai-analysis`],
      ['post', AI_ITEM, `/api/v1/developer/reports/${UNKNOWN_ID}/analysis/revenue/ai-analysis`],
      ['get', CATALOGUE, CATALOGUE],
      ['get', BENCHMARKS, BENCHMARKS],
      ['get', LIST, LIST],
      ['post', '/api/v1/developer/imports', '/api/v1/developer/imports'],
      ['get', '/api/v1/developer/templates/{file}', '/api/v1/developer/templates/general_new.xlsx'],
    ];
    for (const [method, path, url] of developer) {
      for (const badKey of [undefined, 'ek_test_not-a-key']) {
        const body = path === SUBMIT ? fixture('general_new-3y') : undefined;
        const response = await service.request(url, { method: method.toUpperCase(), key: badKey, body });
        expectDocumented(method, path, response);
        expectStatus(response, 401);
      }
    }
    // 404: unknown and malformed ids, an unknown slug.
    for (const [method, path, url] of [
      ['post', AI_REPORT, `/api/v1/developer/reports/${UNKNOWN_ID}/ai-analysis`],
      ['post', AI_ITEM, `/api/v1/developer/reports/${UNKNOWN_ID}/analysis/revenue/ai-analysis`],
      ['post', AI_ITEM, `/api/v1/developer/reports/${done.report_id}/analysis/no_such_slug/ai-analysis`],
      ['get', SHARED, `/api/v1/shared/reports/${'x'.repeat(43)}`],
      ['get', SHARED_XLSX, `/api/v1/shared/reports/${'x'.repeat(43)}/export.xlsx`],
      ['get', REPORT, `/api/v1/developer/reports/${UNKNOWN_ID}`],
      ['get', REPORT, '/api/v1/developer/reports/not-a-uuid'],
      ['get', TASK, `/api/v1/developer/tasks/${UNKNOWN_ID}`],
      ['get', ANALYSIS, `/api/v1/developer/reports/${UNKNOWN_ID}/analysis`],
      ['get', ITEM, `/api/v1/developer/reports/${UNKNOWN_ID}/analysis/revenue`],
      ['get', ITEM, `/api/v1/developer/reports/${done.report_id}/analysis/no_such_slug`],
    ] as const) {
      const response = await service.request(url, { method: method.toUpperCase(), key });
      expectDocumented(method, path, response);
      expectStatus(response, 404);
    }
    // 400, 413, 415, 422 on submission; the bodies are not valid requests either.
    const malformed = '{"accounting_standard": ';
    const tooLarge = { ...fixture('general_new-3y'), padding: 'x'.repeat(1024 * 1024 + 10) };
    expectInvalidRequest(tooLarge);
    const invalid = fixture('general_new-3y');
    invalid.accounting_standard = 'ifrs';
    invalid.years_data[1]!.sheets[0]!.items[3]!.current_year_amount = '1,234.00';
    expectInvalidRequest(invalid);
    const cases: Array<[number, Parameters<TestService['request']>[1]]> = [
      [400, { method: 'POST', key, body: malformed }],
      [413, { method: 'POST', key, body: tooLarge }],
      [
        415,
        {
          method: 'POST',
          key,
          body: 'accounting_standard=general_new',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        },
      ],
      [422, { method: 'POST', key, body: invalid }],
      [422, { method: 'POST', key, body: '[]' }],
      [
        400,
        {
          method: 'POST',
          key,
          body: fixture('general_new-3y'),
          headers: { 'Idempotency-Key': ' spaced key ' },
        },
      ],
    ];
    for (const [status, init] of cases) {
      const response = await service.request(SUBMIT, init);
      expectDocumented('post', SUBMIT, response);
      expectStatus(response, status);
    }
    const badList = await get(`${LIST}?limit=1000`, { key });
    expectDocumented('get', LIST, badList);
    expectStatus(badList, 422);
  });

  it('describes the console’s sign-in: session cookie, CSRF, conflicts and throttling', async () => {
    const credentialsSchema = () =>
      operation('post', SIGNUP).requestBody!.content['application/json']!.schema;
    const console = (path: string, init: Parameters<TestService['request']>[1] = {}) =>
      service.request(path, { method: 'POST', ...init });
    const email = `openapi-console-${Date.now()}@example.com`;
    const credentials = { email, password: 'correct horse battery staple' };
    expect(schemaErrors(credentialsSchema(), credentials)).toBeNull();
    expect(schemaErrors(credentialsSchema(), { email })).not.toBeNull();

    const signedUp = await console(SIGNUP, { body: credentials });
    expectDocumented('post', SIGNUP, signedUp);
    expect(signedUp.status).toBe(201);
    let cookie = signedUp.headers.get('set-cookie')!.split(';')[0]!;
    let csrf = signedUp.body.csrf_token as string;
    const taken = await console(SIGNUP, { body: credentials });
    expectDocumented('post', SIGNUP, taken);
    expect(taken.status).toBe(409);

    const session = await get(SESSION, { headers: { Cookie: cookie } });
    expectDocumented('get', SESSION, session);
    expect(session.status).toBe(200);
    const loggedIn = await console(LOGIN, { body: credentials });
    expectDocumented('post', LOGIN, loggedIn);
    expect(loggedIn.status).toBe(200);

    // The client errors both sign-in endpoints share.
    for (const path of [SIGNUP, LOGIN]) {
      const cases: Array<[number, Parameters<TestService['request']>[1]]> = [
        [400, { body: '{"email": ' }],
        [403, { body: credentials, headers: { Origin: 'https://elsewhere.example' } }],
        [413, { body: { email, password: 'x'.repeat(20 * 1024) } }],
        [415, { body: 'email=a', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }],
        [422, { body: '[]' }],
      ];
      for (const [status, init] of cases) {
        const response = await console(path, init);
        expectDocumented('post', path, response);
        expect(response.status, `${path} ${status}`).toBe(status);
      }
    }
    const shortPassword = await console(SIGNUP, { body: { email: `x-${email}`, password: 'short' } });
    expectDocumented('post', SIGNUP, shortPassword);
    expect(shortPassword.body.errors).toEqual([{ path: 'password', message: expect.any(String) }]);

    // Changing the password: each documented answer, produced.
    const signedIn = { Cookie: cookie, 'X-CSRF-Token': csrf };
    const newPassword = 'Plum-orchard 7 violet kettles';
    const passwordCases: Array<[number, Parameters<TestService['request']>[1]]> = [
      [401, { body: { current_password: 'x', new_password: newPassword } }],
      [403, { headers: { Cookie: cookie }, body: { current_password: 'x', new_password: newPassword } }],
      [400, { headers: signedIn, body: '{"current_password": ' }],
      [413, { headers: signedIn, body: { current_password: 'x'.repeat(20 * 1024) } }],
      [415, { headers: { ...signedIn, 'Content-Type': 'text/plain' }, body: 'x' }],
      [422, { headers: signedIn, body: { current_password: 'wrong password', new_password: newPassword } }],
      [
        200,
        { headers: signedIn, body: { current_password: credentials.password, new_password: newPassword } },
      ],
      [
        200,
        { headers: signedIn, body: { current_password: newPassword, new_password: credentials.password } },
      ],
    ];
    for (const [status, init] of passwordCases) {
      const response = await console(PASSWORD, init);
      expectDocumented('post', PASSWORD, response);
      expect(response.status, `${PASSWORD} ${status}`).toBe(status);
      if (response.status === 200) {
        // Every session ended: the page goes on with the new one the answer carries.
        cookie = response.headers.get('set-cookie')!.split(';')[0]!;
        csrf = response.body.csrf_token;
        signedIn.Cookie = cookie;
        signedIn['X-CSRF-Token'] = csrf;
      }
    }
    // Wrong current passwords are throttled per account (a success resets the count): 10, then 429.
    for (let i = 0; i < 10; i++) {
      await console(PASSWORD, {
        headers: signedIn,
        body: { current_password: `wrong ${i}`, new_password: newPassword },
      });
    }
    const passwordThrottled = await console(PASSWORD, {
      headers: signedIn,
      body: { current_password: credentials.password, new_password: newPassword },
    });
    expectDocumented('post', PASSWORD, passwordThrottled);
    expect(passwordThrottled.status).toBe(429);
    expect(
      schemaErrors(operation('post', PASSWORD).requestBody!.content['application/json']!.schema, {}),
    ).not.toBeNull();

    const forged = await console(LOGOUT, { headers: { Cookie: cookie } });
    expectDocumented('post', LOGOUT, forged);
    expect(forged.status).toBe(403);
    const loggedOut = await console(LOGOUT, { headers: { Cookie: cookie, 'X-CSRF-Token': csrf } });
    expectDocumented('post', LOGOUT, loggedOut);
    expect(loggedOut.status).toBe(204);
    const ended = await get(SESSION, { headers: { Cookie: cookie } });
    expectDocumented('get', SESSION, ended);
    expect(ended.status).toBe(401);

    // Throttling of failed log-ins for one email (sign-ups: below, after the 500s that need sign-up).
    for (let i = 0; i < 10; i++) {
      const wrong = await console(LOGIN, { body: { email, password: `wrong password ${i}` } });
      expectDocumented('post', LOGIN, wrong);
      expect(wrong.status).toBe(401);
    }
    const throttled = await console(LOGIN, { body: credentials });
    expectDocumented('post', LOGIN, throttled);
    expect(throttled.status).toBe(429);
  });

  it('describes deleting a report, back-pressure on submissions and readiness', async () => {
    const submitted = await service.request(SUBMIT, { method: 'POST', key, body: fixture('general_new-3y') });
    expect(submitted.status).toBe(202);
    const path = `/api/v1/developer/reports/${submitted.body.report_id}`;
    const anonymous = await service.request(path, { method: 'DELETE' });
    expectDocumented('delete', REPORT, anonymous);
    expect(anonymous.status).toBe(401);
    const deleted = await service.request(path, { method: 'DELETE', key });
    expectDocumented('delete', REPORT, deleted);
    expect(deleted.status).toBe(204);
    const again = await service.request(path, { method: 'DELETE', key });
    expectDocumented('delete', REPORT, again);
    expect(again.status).toBe(404);

    const config = service.services.config;
    const limit = config.maxQueuedJobs;
    config.maxQueuedJobs = 0;
    try {
      const full = await service.request(SUBMIT, { method: 'POST', key, body: fixture('general_new-3y') });
      expectDocumented('post', SUBMIT, full);
      expect(full.status).toBe(503);
      expect(full.body.code).toBe('queue_full');
    } finally {
      config.maxQueuedJobs = limit;
    }

    const ready = await get(READY);
    expectDocumented('get', READY, ready);
    expect(ready.status).toBe(200);
  });

  it('describes the server errors: 500 on every API endpoint, 503 from /readyz', async () => {
    const em = service.services.db.orm.em;
    const developer: Array<[string, string, string]> = [
      ['post', SUBMIT, SUBMIT],
      ['get', REPORT, `/api/v1/developer/reports/${done.report_id}`],
      ['delete', REPORT, `/api/v1/developer/reports/${UNKNOWN_ID}`],
      ['get', TASK, `/api/v1/developer/tasks/${done.task_id}`],
      ['get', ANALYSIS, `/api/v1/developer/reports/${done.report_id}/analysis`],
      ['get', ITEM, `/api/v1/developer/reports/${done.report_id}/analysis/revenue`],
      ['post', AI_REPORT, `/api/v1/developer/reports/${done.report_id}/ai-analysis`],
      ['post', AI_ITEM, `/api/v1/developer/reports/${done.report_id}/analysis/revenue/ai-analysis`],
      ['get', CATALOGUE, CATALOGUE],
      ['get', BENCHMARKS, BENCHMARKS],
      ['get', LIST, LIST],
      ['post', '/api/v1/developer/imports', '/api/v1/developer/imports'],
      ['get', '/api/v1/developer/templates/{file}', '/api/v1/developer/templates/general_new.xlsx'],
    ];
    const share = (await get(`/api/v1/developer/reports/${done.report_id}`, { key })).body.share;
    // The share endpoint has no key: its first database access is the one to fail.
    developer.push(['get', SHARED, `/api/v1/shared/reports/${share.share_token}`]);
    developer.push(['get', SHARED_XLSX, `/api/v1/shared/reports/${share.share_token}/export.xlsx`]);
    // The console's endpoints: the first database access after the checks that need none.
    const cookie = `fra_session=${'a'.repeat(43)}`;
    const consoleCases: Array<[string, string, Parameters<TestService['request']>[1]]> = [
      [
        'post',
        SIGNUP,
        { method: 'POST', body: { email: 'fault@example.com', password: 'long enough password' } },
      ],
      [
        'post',
        LOGIN,
        { method: 'POST', body: { email: 'fault@example.com', password: 'long enough password' } },
      ],
      ['post', LOGOUT, { method: 'POST', headers: { Cookie: cookie } }],
      ['get', SESSION, { headers: { Cookie: cookie } }],
      [
        'post',
        PASSWORD,
        { method: 'POST', headers: { Cookie: cookie }, body: { current_password: 'x', new_password: 'y' } },
      ],
    ];
    // Every request whose key is not in the read cache starts by forking the entity manager (to authenticate,
    // or to find the shared report): a fault there is an unexpected error.
    const fork = vi.spyOn(em, 'fork');
    try {
      for (const [method, path, url] of developer) {
        // A key verified moments ago is trusted from memory (readCache.ts): forgotten here, so that the request
        // looks it up and its first database access is the one that fails (else the catalogue needs none).
        forgetApiKeys();
        fork.mockImplementationOnce(() => {
          throw new Error('injected fault');
        });
        const body = path === SUBMIT ? fixture('small_enterprise-2y-no-cash-flow') : undefined;
        const response = await service.request(url, { method: method.toUpperCase(), key, body });
        expectDocumented(method, path, response);
        expect(response.status).toBe(500);
      }
      for (const [method, path, init] of consoleCases) {
        fork.mockImplementationOnce(() => {
          throw new Error('injected fault');
        });
        const response = await service.request(path, init);
        expectDocumented(method, path, response);
        expect(response.status, path).toBe(500);
      }
      fork.mockImplementationOnce(
        () =>
          ({
            getConnection: () => ({
              execute: async () => {
                throw new Error('injected: database unreachable');
              },
            }),
          }) as unknown as ReturnType<typeof em.fork>,
      );
      const ready = await get(READY);
      expectDocumented('get', READY, ready);
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database).toBe('failed');
    } finally {
      fork.mockRestore();
    }
    expect((await get(READY)).status).toBe(200);
  });

  it('describes sign-up throttling: 429 with Retry-After', async () => {
    let signUp: ApiResponse;
    let attempts = 0;
    do {
      signUp = await service.request(SIGNUP, {
        method: 'POST',
        body: { email: 'not an email', password: 'whatever it is' },
      });
      attempts++;
    } while (signUp.status === 422 && attempts <= SIGN_UP_LIMIT);
    expectDocumented('post', SIGNUP, signUp);
    expect(signUp.status).toBe(429);
  });

  it('is rendered at /docs by Swagger UI served from this server, without a key', async () => {
    const page = await get('/docs');
    expect(page.status).toBe(200);
    expect(mediaType(page.headers.get('content-type'))).toBe('text/html');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const urls = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(urls.length).toBeGreaterThanOrEqual(3);
    for (const url of urls) {
      // Same-origin paths only: no CDN, no protocol-relative URL.
      expect(url, url).toMatch(/^\/(?!\/)/);
      const asset = await get(url);
      expect(asset.status, url).toBe(200);
      if (url.includes('/assets/')) expect(asset.headers.get('cache-control'), url).toContain('immutable');
      if (url.endsWith('.js'))
        expect(mediaType(asset.headers.get('content-type')), url).toMatch(/javascript/);
      if (url.endsWith('.css')) expect(mediaType(asset.headers.get('content-type')), url).toBe('text/css');
      if (url.endsWith('swagger-initializer.js')) {
        expect(asset.text).toContain(`"url":"${OPENAPI}"`);
        expect(asset.text).toContain('"validatorUrl":null');
      }
    }
    const version = urls.find((url) => url.includes('/assets/'))!.split('/')[3];
    for (const missing of [
      `/docs/assets/${version}/package.json`,
      `/docs/assets/${version}/..%2Fpackage.json`,
      '/docs/assets/0.0.0/swagger-ui.css',
    ]) {
      const response = await get(missing);
      expect(response.status, missing).toBe(404);
      expect(mediaType(response.headers.get('content-type'))).toBe('application/problem+json');
    }
  });

  it('describes the rate limits (429 with RateLimit headers) and the body timeout (408)', async () => {
    const { config } = service.services;
    const one = { points: 1, windowSeconds: 3600 };
    const app: Server = buildApp({
      ...service.services,
      config: {
        ...config,
        bodyTimeoutMs: 300,
        rateLimits: {
          ...config.rateLimits,
          reads: one,
          submissions: one,
          ai_regeneration: one,
          share_exports: one,
          share_reads: one,
        },
      },
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => app.once('listening', resolve));
    const port = (app.address() as AddressInfo).port;
    const toResponse = (status: number, headers: Headers, text: string): ApiResponse => {
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {}
      return { status, headers, body, text };
    };
    try {
      // The budget of one fresh key: its first request spends it, the second is 429.
      const limited = await service.newKey('test');
      const id = done.report_id;
      const calls: Array<[string, string, string]> = [
        ['post', SUBMIT, SUBMIT],
        ['get', REPORT, `/api/v1/developer/reports/${id}`],
        // Deleting spends the submissions budget the submission above used up: refused, nothing deleted.
        ['delete', REPORT, `/api/v1/developer/reports/${id}`],
        ['get', TASK, `/api/v1/developer/tasks/${done.task_id}`],
        ['get', ANALYSIS, `/api/v1/developer/reports/${id}/analysis`],
        ['get', ITEM, `/api/v1/developer/reports/${id}/analysis/revenue`],
        ['get', CATALOGUE, CATALOGUE],
        ['get', BENCHMARKS, BENCHMARKS],
        ['post', AI_REPORT, `/api/v1/developer/reports/${id}/ai-analysis`],
        ['post', AI_ITEM, `/api/v1/developer/reports/${id}/analysis/revenue/ai-analysis`],
        ['get', '/api/v1/developer/reports', '/api/v1/developer/reports'],
        // No key needed: counted per client address (the header is ignored), a wrong link (404) too.
        ['get', SHARED_XLSX, `/api/v1/shared/reports/${'x'.repeat(43)}/export.xlsx`],
        ['get', SHARED, `/api/v1/shared/reports/${'x'.repeat(43)}`],
      ];
      // Webhook endpoints: reads spend the reads budget, changes the submissions budget (both spent above).
      const WH = '/api/v1/developer/webhook-endpoints';
      const ONE = `${WH}/{endpoint_id}`;
      const at = (template: string) =>
        template.replace('{endpoint_id}', UNKNOWN_ID).replace('{delivery_id}', UNKNOWN_ID);
      for (const [method, template] of [
        ['post', WH],
        ['get', WH],
        ['get', ONE],
        ['patch', ONE],
        ['delete', ONE],
        ['post', `${ONE}/test`],
        ['post', `${ONE}/rotate-secret`],
        ['get', `${ONE}/deliveries`],
        ['get', `${ONE}/deliveries/{delivery_id}`],
        ['post', `${ONE}/deliveries/{delivery_id}/redeliver`],
      ] as const)
        calls.push([method, template, at(template)]);
      for (const [method, template, path] of calls) {
        for (let attempt = 0; attempt < 2; attempt++) {
          const response = await fetch(`http://127.0.0.1:${port}${path}`, {
            method: method.toUpperCase(),
            headers: { 'X-API-Key': limited, 'Content-Type': 'application/json' },
            body: (method === 'post' && template === SUBMIT) || method === 'patch' ? '{}' : undefined,
          });
          const text = await response.text();
          if (attempt === 1) {
            expect(response.status, path).toBe(429);
            expect(response.headers.get('ratelimit'), path).toMatch(/;r=0;/);
            expectDocumented(method, template, toResponse(response.status, response.headers, text));
          }
        }
      }
      // A body that never arrives: 408 (REST's problem body) and the connection closed.
      const fresh = await service.newKey('test');
      for (const [path, key] of [
        [SUBMIT, fresh],
        [SIGNUP, ''],
        [LOGIN, ''],
      ] as const) {
        const raw = await new Promise<string>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1');
          let data = '';
          socket.setEncoding('utf8');
          socket.on('data', (chunk) => {
            data += chunk;
          });
          socket.on('error', reject);
          socket.on('close', () => resolve(data));
          socket.write(
            `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
              `${key ? `X-API-Key: ${key}\r\n` : ''}Content-Length: 100\r\n\r\n{"a":`,
          );
        });
        const [head = '', text = ''] = raw.split('\r\n\r\n');
        const [statusLine, ...headerLines] = head.split('\r\n');
        const headers = new Headers(
          headerLines.map((line) => [
            line.slice(0, line.indexOf(':')),
            line.slice(line.indexOf(':') + 1).trim(),
          ]),
        );
        const status = Number(statusLine!.split(' ')[1]);
        expect(status, path).toBe(408);
        expect(headers.get('connection'), path).toBe('close');
        expectDocumented('post', path, toResponse(status, headers, text));
      }
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it('describes webhook endpoints and their delivery log', async () => {
    const WH = '/api/v1/developer/webhook-endpoints';
    const ONE = `${WH}/{endpoint_id}`;
    const paths = {
      test: `${ONE}/test`,
      rotate: `${ONE}/rotate-secret`,
      deliveries: `${ONE}/deliveries`,
      delivery: `${ONE}/deliveries/{delivery_id}`,
      redeliver: `${ONE}/deliveries/{delivery_id}/redeliver`,
    };
    const call = async (
      method: string,
      path: string,
      url: string,
      init: Parameters<TestService['request']>[1] = {},
    ) => {
      const response = await service.request(url, { method: method.toUpperCase(), key, ...init });
      expectDocumented(method, path, response);
      return response;
    };
    service.services.config.webhookAllowPrivate = true;
    try {
      const created = await call('post', WH, WH, {
        body: { url: 'http://127.0.0.1:9/hook', description: 'openapi' },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const at = (template: string, deliveryId = UNKNOWN_ID) =>
        template.replace('{endpoint_id}', id).replace('{delivery_id}', deliveryId);
      expect((await call('post', WH, WH, { body: { url: 'ftp://example.com' } })).status).toBe(422);
      expect((await call('post', WH, WH, { body: '{"url": ' })).status).toBe(400);
      expect(
        (
          await call('post', WH, WH, {
            body: 'url=x',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          })
        ).status,
      ).toBe(415);
      expect((await call('get', WH, WH)).status).toBe(200);
      expect((await call('get', ONE, at(ONE))).status).toBe(200);
      expect((await call('patch', ONE, at(ONE), { body: { enabled: false } })).status).toBe(200);
      expect((await call('patch', ONE, at(ONE), { body: { enabled: 'no' } })).status).toBe(422);
      const sent = await call('post', paths.test, at(paths.test));
      expect(sent.status).toBe(202);
      expect((await call('post', paths.rotate, at(paths.rotate))).status).toBe(200);
      expect((await call('get', paths.deliveries, at(paths.deliveries))).status).toBe(200);
      expect((await call('get', paths.delivery, at(paths.delivery, sent.body.id))).status).toBe(200);
      expect((await call('post', paths.redeliver, at(paths.redeliver, sent.body.id))).status).toBe(202);
      expect((await call('get', paths.delivery, at(paths.delivery))).status).toBe(404);
      expect((await call('post', paths.redeliver, at(paths.redeliver))).status).toBe(404);
      expect((await call('delete', ONE, at(ONE))).status).toBe(204);
      const operations = [
        ['post', WH],
        ['get', WH],
        ['get', ONE],
        ['patch', ONE],
        ['delete', ONE],
        ['post', paths.test],
        ['post', paths.rotate],
        ['get', paths.deliveries],
        ['get', paths.delivery],
        ['post', paths.redeliver],
      ] as const;
      // The deleted endpoint is not found by any operation on it.
      for (const [method, path] of operations.slice(2, 8)) {
        const body = method === 'patch' ? { enabled: true } : undefined;
        expect((await call(method, path, at(path), { body })).status, `${method} ${path}`).toBe(404);
      }
      for (const [method, path] of operations) {
        const response = await service.request(at(path), { method: method.toUpperCase() });
        expectDocumented(method, path, response);
        expect(response.status).toBe(401);
      }
    } finally {
      service.services.config.webhookAllowPrivate = false;
    }
  });

  it('describes the import and the templates (multipart in, JSON or problem out)', async () => {
    const IMPORTS = '/api/v1/developer/imports';
    const TEMPLATE = '/api/v1/developer/templates/{file}';
    const post = async (files: [string, Uint8Array][], query = '', apiKey: string | null = key) => {
      const form = new FormData();
      for (const [name, data] of files) form.append('files', new Blob([new Uint8Array(data)]), name);
      const headers: Record<string, string> = apiKey ? { 'X-API-Key': apiKey } : {};
      const response = await fetch(`${service.url}${IMPORTS}${query}`, {
        method: 'POST',
        headers,
        body: form,
      });
      const text = await response.text();
      const result: ApiResponse = {
        status: response.status,
        headers: response.headers,
        body: JSON.parse(text),
        text,
      };
      expectDocumented('post', IMPORTS, result);
      return result;
    };
    const template = await fetch(`${service.url}/api/v1/developer/templates/general_new.xlsx`, {
      headers: { 'X-API-Key': key },
    });
    const workbook = new Uint8Array(await template.arrayBuffer());
    expectDocumented('get', TEMPLATE, {
      status: template.status,
      headers: template.headers,
      body: 'an .xlsx workbook',
      text: 'an .xlsx workbook',
    });
    for (const path of [
      '/api/v1/developer/templates/ifrs.xlsx',
      '/api/v1/developer/templates/general_new.xlsx',
    ])
      expectDocumented('get', TEMPLATE, await service.request(path, path.includes('ifrs') ? { key } : {}));
    const csv = (year: number) =>
      new TextEncoder().encode(
        [`资产负债表 ${year}年12月31日`, '项目,期末余额,年初余额', '货币资金,10,9', '资产总计,10,9'].join(
          '\n',
        ),
      );
    expect((await post([['2023.csv', csv(2023)]])).status).toBe(200);
    expect((await post([['book.xlsm', workbook]])).status).toBe(415);
    expect((await post([['big.csv', new Uint8Array(5 * 1024 * 1024 + 1)]])).status).toBe(413);
    expect((await post([['bad.xlsx', workbook.subarray(0, 100)]])).status).toBe(422);
    expect((await post([['a.csv', csv(2023)]], '', null)).status).toBe(401);
    expect((await post([['x.xlsx', workbook]], '?submit=true')).status).toBe(422);
    const filled = await buildTemplate('general_new', fixture('general_new-3y') as unknown as TemplateBody);
    const accepted = await post([['3y.xlsx', filled]], '?submit=true');
    expect(accepted.status).toBe(202);
    await waitForReport(service, key, accepted.body.report_id);
  });

  it('has every documented response produced by the tests above', () => {
    const documented = operations().flatMap(({ path, method, operation }) =>
      Object.keys(operation.responses).map((status) => `${method} ${path} ${status}`),
    );
    expect(documented.filter((response) => !seen.has(response))).toEqual([]);
  });
});
