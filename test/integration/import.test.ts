/**
 * Spreadsheet import over real HTTP (PostgreSQL): templates, round trips from the real filings, workbooks saved
 * by LibreOffice, CSV in GB18030 and UTF-8, submission, GraphQL uploads, and hostile files (never a 5xx,
 * nothing stored until a submission is made).
 */
import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTemplate, type TemplateBody } from '../../server/import/template.ts';
import { startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const REAL = ['gree-2016-2019', 'byd-2016-2019', 'moutai-2022-2024'] as const;
const here = new URL('../fixtures/', import.meta.url);
const readJson = (path: string) => JSON.parse(readFileSync(new URL(path, here), 'utf8'));
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

// biome-ignore lint/suspicious/noExplicitAny: bodies are compared as JSON
type Body = any;

/** Items in key order: the import lists them in the form's order, a client in any. */
function sortedItems(body: Body): Body {
  return {
    ...body,
    years_data: body.years_data.map((y: Body) => ({
      ...y,
      sheets: y.sheets.map((s: Body) => ({
        ...s,
        items: [...s.items].sort((a: Body, b: Body) => a.item_name.localeCompare(b.item_name)),
      })),
    })),
  };
}

/** Amounts as numbers: a number cell in General format keeps no trailing zeros (255168195159.90 → .9). */
function byValue(body: Body): Body {
  const sorted = sortedItems(body);
  for (const year of sorted.years_data)
    for (const sheet of year.sheets)
      sheet.items = sheet.items.map((item: Body) =>
        Object.fromEntries(Object.entries(item).map(([k, v]) => [k, k === 'item_name' ? v : Number(v)])),
      );
  return sorted.years_data;
}

describe('spreadsheet import', () => {
  let service: TestService;
  let key: string;

  async function upload(
    files: { name: string; data: Buffer | Uint8Array; type?: string }[],
    fields: Record<string, string> = {},
    query = '',
    apiKey = key,
  ) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (const file of files)
      form.append(
        'files',
        new Blob([new Uint8Array(file.data)], { type: file.type ?? XLSX_TYPE }),
        file.name,
      );
    const response = await fetch(`${service.url}/api/v1/developer/imports${query}`, {
      method: 'POST',
      headers: { 'X-API-Key': apiKey },
      body: form,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  }

  async function reportCount(): Promise<number> {
    const response = await service.request('/api/v1/developer/reports?limit=100', { key });
    return response.body.data.length;
  }

  beforeAll(async () => {
    service = await startTestService('postgres');
    key = await service.newKey('test');
  });
  afterAll(async () => {
    await service?.close();
  });

  describe('templates', () => {
    it.each(['general_new', 'general_old', 'small_enterprise'])(
      'serves the %s template with 行次',
      async (standard) => {
        const response = await fetch(`${service.url}/api/v1/developer/templates/${standard}.xlsx`, {
          headers: { 'X-API-Key': key },
        });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe(XLSX_TYPE);
        const workbook = new ExcelJS.Workbook();
        await workbook.xlsx.load(await response.arrayBuffer());
        expect(workbook.worksheets.map((s) => s.name)).toEqual([
          '填写说明',
          '资产负债表',
          '利润表',
          '现金流量表',
          '企业信息',
        ]);
        const balance = workbook.getWorksheet('资产负债表')!;
        expect(balance.getRow(4).values).toEqual([
          undefined,
          '资产',
          '行次',
          '期末余额',
          '年初余额',
          '负债和所有者权益（或股东权益）',
          '行次',
          '期末余额',
          '年初余额',
        ]);
        expect(balance.getCell(5, 1).value).toBe('流动资产：');
        expect(balance.getCell(6, 1).value).toBe('货币资金');
        expect(balance.getCell(6, 2).value).toBe(1);
        if (standard === 'small_enterprise') {
          // 会小企01表: 负债和所有者权益总计 is line 53, 会小企03表: 期末现金余额 line 22.
          const lastLine = Math.max(
            ...(balance.getColumn(6).values.filter((v) => typeof v === 'number') as number[]),
          );
          expect(lastLine).toBe(53);
          expect(balance.getCell(2, 8).value).toBe('会小企01表');
          const cash = workbook.getWorksheet('现金流量表')!;
          expect(
            Math.max(...(cash.getColumn(2).values.filter((v) => typeof v === 'number') as number[])),
          ).toBe(22);
        }
      },
    );

    it('answers 404 for an unknown standard and 401 without a key', async () => {
      const unknown = await service.request('/api/v1/developer/templates/ifrs.xlsx', { key });
      expect(unknown.status).toBe(404);
      const anonymous = await service.request('/api/v1/developer/templates/general_new.xlsx');
      expect(anonymous.status).toBe(401);
    });
  });

  describe('round trip: a template filled from each real filing gives exactly its body', () => {
    it.each(REAL)('%s', async (name) => {
      const body = readJson(`real/${name}.json`) as TemplateBody;
      const before = await reportCount();
      const response = await upload([
        { name: `${name}.xlsx`, data: await buildTemplate(body.accounting_standard, body) },
      ]);
      expect(response.status).toBe(200);
      expect(sortedItems(response.body.submission)).toEqual(sortedItems(body));
      const { mapping } = response.body;
      expect(mapping.summary).toMatchObject({ unknown: 0, ambiguous: 0, error: 0, subtotal_mismatch: 0 });
      expect(mapping.summary.matched).toBe(mapping.summary.rows);
      expect(mapping.validation).toEqual({ ok: true, errors: [] });
      expect(mapping.accounting_standard).toMatchObject({ value: 'general_new', source: 'lines' });
      expect(mapping.enterprise_name).toEqual({ value: body.enterprise_name, source: 'enterprise_sheet' });
      expect(await reportCount()).toBe(before); // nothing stored without submit
    });
  });

  describe('workbooks saved by LibreOffice', () => {
    it.each(REAL)('%s: merged headers, spacer rows, text amounts, formulas, a notes sheet', async (name) => {
      const body = readJson(`real/${name}.json`);
      const data = readFileSync(new URL(`import/${name}.libreoffice.xlsx`, here));
      const response = await upload([{ name: `${name}.xlsx`, data }]);
      expect(response.status).toBe(200);
      const { submission, mapping } = response.body;
      expect(byValue(submission)).toEqual(byValue(body));
      expect(submission.enterprise_name).toBe(body.enterprise_name);
      expect(mapping.enterprise_name.source).toBe('title');
      expect(mapping.skipped_sheets).toEqual([expect.objectContaining({ sheet: '附注' })]);
      // The one line without a key in the general format (其中：应收利息) is reported, once a year.
      const unknown = mapping.sheets.flatMap((s: Body) => s.rows.filter((r: Body) => r.status === 'unknown'));
      expect(unknown.map((r: Body) => r.label)).toEqual(body.years_data.map(() => '其中：应收利息'));
      expect(unknown[0].reason).toMatch(/small_enterprise/);
      const balance = mapping.sheets.find((s: Body) => s.statement === 'balance');
      expect(balance.statement_reason).toMatch(/资产负债表/);
      expect(balance.period_year_source).toMatch(/12月31日/);
      expect(balance.columns.map((c: Body) => c.use)).toEqual([
        `${balance.period_year}: ending_balance`,
        `${balance.period_year}: beginning_balance`,
      ]);
      expect(mapping.validation.ok).toBe(true);
    });

    it('reads 本年累计金额 / 本月金额 of 会小企02表: the month is ignored, the prior year comes from the previous sheet', async () => {
      const body = readJson('small_enterprise-2y-no-cash-flow.json');
      const data = readFileSync(new URL('import/small_enterprise-2y.libreoffice.xlsx', here));
      const response = await upload([{ name: 'small.xlsx', data }]);
      expect(response.status).toBe(200);
      const { submission, mapping } = response.body;
      expect(mapping.accounting_standard).toMatchObject({ value: 'small_enterprise', source: 'form_code' });
      const income = (year: number) =>
        submission.years_data
          .find((y: Body) => y.year === year)
          .sheets.find((s: Body) => s.sheet_type === 'income').items;
      const source = (year: number) =>
        body.years_data.find((y: Body) => y.year === year).sheets.find((s: Body) => s.sheet_type === 'income')
          .items;
      for (const item of income(2024)) {
        const original = source(2024).find((i: Body) => i.item_name === item.item_name);
        expect(Number(item.current_year_amount)).toBe(Number(original.current_year_amount));
        const previous = income(2023).find((i: Body) => i.item_name === item.item_name);
        expect(item.last_year_amount).toBe(previous.current_year_amount);
      }
      // interest_income has no row on 会小企02表; 2023 has no prior year in the file.
      expect(income(2024).some((i: Body) => i.item_name === 'interest_income')).toBe(false);
      expect(income(2023).every((i: Body) => i.last_year_amount === undefined)).toBe(true);
      const incomeSheet = mapping.sheets.find((s: Body) => s.statement === 'income');
      expect(incomeSheet.columns[1]).toMatchObject({ header: '本月金额', slot: 'month' });
      expect(incomeSheet.columns[1].use).toMatch(/^ignored/);
    });
  });

  describe('CSV', () => {
    const gree = readJson('real/gree-2016-2019.json');
    const statement = (year: number, sheet: string) =>
      gree.years_data.find((y: Body) => y.year === year).sheets.find((s: Body) => s.sheet_type === sheet)
        .items;
    const NAMES: Record<string, string> = {
      revenue: '一、营业收入',
      operating_cost: '减：营业成本',
      net_profit: '四、净利润（净亏损以“－”号填列）',
      total_assets: '资产总计',
      cash_and_equivalents: '货币资金',
      inventory: '存货',
    };
    function csv(year: number, sheet: 'income' | 'balance'): string {
      const [cur, pri] =
        sheet === 'balance'
          ? ['ending_balance', 'beginning_balance']
          : ['current_year_amount', 'last_year_amount'];
      const title =
        sheet === 'balance'
          ? ['资产负债表', `编制单位：珠海格力电器股份有限公司,${year}年12月31日,单位：元`]
          : ['利润表', `编制单位：珠海格力电器股份有限公司,${year}年度,单位：元`];
      const header = sheet === 'balance' ? '资产,行次,期末余额,年初余额' : '项目,行次,本期金额,上期金额';
      const rows = statement(year, sheet)
        .filter((i: Body) => NAMES[i.item_name])
        .map(
          (i: Body, n: number) =>
            `"${NAMES[i.item_name]}",${n + 1},"${Number(i[cur]).toLocaleString('en-US')}","${Number(i[pri]).toLocaleString('en-US')}"`,
        );
      return [...title, header, ...rows].join('\r\n');
    }

    it.each([
      ['GB18030', (text: string) => iconv.encode(text, 'gb18030')],
      [
        'UTF-8 with BOM',
        (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
      ],
      ['UTF-8', (text: string) => Buffer.from(text)],
    ] as const)('reads statements saved as CSV in %s', async (_encoding, encode) => {
      const files = [2018, 2019].flatMap((year) =>
        (['income', 'balance'] as const).map((sheet) => ({
          name: `${sheet}-${year}.csv`,
          data: encode(csv(year, sheet)),
          type: 'text/csv',
        })),
      );
      const response = await upload(files);
      expect(response.status).toBe(200);
      const { submission, mapping } = response.body;
      expect(submission.years_data.map((y: Body) => y.year)).toEqual([2018, 2019]);
      expect(submission.enterprise_name).toBe('珠海格力电器股份有限公司');
      for (const year of [2018, 2019])
        for (const sheet of ['income', 'balance'] as const) {
          const got = submission.years_data
            .find((y: Body) => y.year === year)
            .sheets.find((s: Body) => s.sheet_type === sheet).items;
          const expected = statement(year, sheet).filter((i: Body) => NAMES[i.item_name]);
          expect(sortedItems({ years_data: [{ sheets: [{ items: got }] }] })).toEqual(
            sortedItems({ years_data: [{ sheets: [{ items: expected }] }] }),
          );
        }
      expect(mapping.files[0].encoding).toMatch(_encoding === 'GB18030' ? /GB18030/ : /UTF-8/);
      expect(mapping.summary.unknown).toBe(0);
    });

    it('reads one column per year, derives the prior amounts and reconciles adjacent years', async () => {
      const text = [
        '资产负债表',
        '项目,2023年12月31日,2022年12月31日,2021年12月31日',
        '货币资金,"1,000.00","900.00",800',
        '存货,(50),40,30',
        '资产总计,950,940,830',
        '利润表',
      ].join('\n');
      const income = ['利润表', '项目,2023年度,2022年度', '营业收入,500,400', '净利润,50,40'].join('\n');
      const restated = [
        '利润表 2022年度',
        '项目,本期金额,上期金额',
        '营业收入,410,390',
        '净利润,40,"-"',
      ].join('\n');
      const response = await upload([
        { name: 'balance.csv', data: Buffer.from(text), type: 'text/csv' },
        { name: 'income.csv', data: Buffer.from(income), type: 'text/csv' },
        { name: 'income-2022.csv', data: Buffer.from(restated), type: 'text/csv' },
      ]);
      expect(response.status).toBe(200);
      const { submission, mapping } = response.body;
      expect(submission.year_start).toBe(2021);
      const balance2023 = submission.years_data
        .find((y: Body) => y.year === 2023)
        .sheets.find((s: Body) => s.sheet_type === 'balance');
      expect(balance2023.items).toEqual([
        { item_name: 'cash_and_equivalents', ending_balance: '1000.00', beginning_balance: '900.00' },
        { item_name: 'inventory', ending_balance: '-50', beginning_balance: '40' },
        { item_name: 'total_assets', ending_balance: '950', beginning_balance: '940' },
      ]);
      const income2023 = submission.years_data
        .find((y: Body) => y.year === 2023)
        .sheets.find((s: Body) => s.sheet_type === 'income');
      // Two sheets give 2022 revenue (400 in the two-year sheet, 410 in the 2022 one): reported below; the last
      // one read is kept, and 2023's prior (no prior column in its sheet) comes from it.
      expect(income2023.items).toContainEqual({
        item_name: 'revenue',
        current_year_amount: '500',
        last_year_amount: '410',
      });
      // The 2022 sheet's own prior column says net profit 2021 was 0 ("-"); no 2021 income: nothing to reconcile.
      expect(mapping.reconciliation).toEqual([]);
      expect(mapping.conflicts).toEqual([
        expect.objectContaining({
          sheet_type: 'income',
          item_name: 'revenue',
          year: 2022,
          values: ['400', '410'],
        }),
      ]);
      // 资产总计 is checked only when both of its subtotals are in the file: nothing to report.
      expect(mapping.subtotal_mismatches).toEqual([]);
    });

    it('reports a prior column that differs from the previous year and a subtotal that does not add up', async () => {
      const y2023 = [
        '资产负债表',
        '编制日期 2023年12月31日',
        '项目,期末余额,年初余额',
        '货币资金,100,90',
        '存货,10,5',
        '流动资产合计,100,95',
      ].join('\n');
      const y2022 = [
        '资产负债表',
        '2022年12月31日',
        '项目,期末余额,年初余额',
        '货币资金,80,70',
        '存货,5,5',
        '流动资产合计,85,75',
      ].join('\n');
      const response = await upload([
        { name: 'a.csv', data: Buffer.from(y2023), type: 'text/csv' },
        { name: 'b.csv', data: Buffer.from(y2022), type: 'text/csv' },
      ]);
      expect(response.status).toBe(200);
      const { mapping } = response.body;
      expect(mapping.reconciliation).toContainEqual({
        sheet_type: 'balance',
        item_name: 'cash_and_equivalents',
        year: 2023,
        prior_column: '90',
        previous_year_current: '80',
        difference: '10',
      });
      expect(mapping.subtotal_mismatches).toContainEqual(
        expect.objectContaining({
          year: 2023,
          item_name: 'total_current_assets',
          reported: '100',
          computed: '110',
        }),
      );
      const row = mapping.sheets[0].rows.find((r: Body) => r.item_name === 'total_current_assets');
      expect(row.status).toBe('subtotal_mismatch');
    });
  });

  describe('submission', () => {
    it('?submit=true answers the usual 202 with the mapping beside it, and the report is analysed', async () => {
      const body = readJson('real/moutai-2022-2024.json') as TemplateBody;
      const response = await upload(
        [{ name: 'moutai.xlsx', data: await buildTemplate('general_new', body) }],
        {},
        '?submit=true',
      );
      expect(response.status).toBe(202);
      expect(response.headers.get('location')).toBe(`/api/v1/developer/reports/${response.body.report_id}`);
      expect(response.body).toMatchObject({ status: 'pending', share_url: null, version_no: 1 });
      expect(response.body.mapping.summary.matched).toBeGreaterThan(100);
      const done = await waitForReport(service, key, response.body.report_id);
      expect(done.body.status).toBe('success');
      expect(done.body.name).toBe(body.enterprise_name);
    });

    it('takes the overrides and checks them like body fields', async () => {
      const csv = Buffer.from(['利润表', '项目,本期金额,上期金额', '营业收入,10,9', '净利润,1,1'].join('\n'));
      const response = await upload([{ name: 'x.csv', data: csv, type: 'text/csv' }], {
        year: '2020',
        accounting_standard: 'general_old',
        enterprise_name: '某某公司',
      });
      expect(response.status).toBe(200);
      expect(response.body.submission).toMatchObject({
        enterprise_name: '某某公司',
        accounting_standard: 'general_old',
        year_start: 2020,
      });
      expect(response.body.mapping.validation.ok).toBe(false); // one year, no balance sheet
      const bad = await upload([{ name: 'x.csv', data: csv, type: 'text/csv' }], {
        accounting_standard: 'ifrs',
        year: '20',
      });
      expect(bad.status).toBe(422);
      expect(bad.body.errors.map((e: Body) => e.path).sort()).toEqual(['accounting_standard', 'year']);
      const noYear = await upload([{ name: 'x.csv', data: csv, type: 'text/csv' }]);
      expect(noYear.status).toBe(422);
      expect(noYear.body.code).toBe('import_year_missing');
      expect(noYear.body.errors[0].path).toBe('x.csv › x');
    });

    it('spends the submissions budget', async () => {
      const response = await upload([{ name: 'x.csv', data: Buffer.from('a,b'), type: 'text/csv' }]);
      expect(response.headers.get('ratelimit-policy')).toMatch(/^"submissions"/);
    });
  });

  describe('GraphQL', () => {
    it('importStatements takes multipart uploads and answers what REST does', async () => {
      const body = readJson('real/gree-2016-2019.json') as TemplateBody;
      const data = await buildTemplate('general_new', body);
      const form = new FormData();
      form.append(
        'operations',
        JSON.stringify({
          query:
            'mutation ($files: [File!]!) { importStatements(files: $files) { submission mapping submitted { reportId } } }',
          variables: { files: [null] },
        }),
      );
      form.append('map', JSON.stringify({ 0: ['variables.files.0'] }));
      form.append('0', new Blob([new Uint8Array(data)], { type: XLSX_TYPE }), 'gree.xlsx');
      const response = await fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'X-API-Key': key },
        body: form,
      });
      const result = await response.json();
      expect(result.errors).toBeUndefined();
      expect(sortedItems(result.data.importStatements.submission)).toEqual(sortedItems(body));
      expect(result.data.importStatements.submitted).toBeNull();
      const rest = await upload([{ name: 'gree.xlsx', data }]);
      expect(result.data.importStatements.mapping).toEqual(rest.body.mapping);
    });

    it('refuses a macro workbook with the REST code', async () => {
      const form = new FormData();
      form.append(
        'operations',
        JSON.stringify({
          query: 'mutation ($f: [File!]!) { importStatements(files: $f) { mapping } }',
          variables: { f: [null] },
        }),
      );
      form.append('map', JSON.stringify({ 0: ['variables.f.0'] }));
      form.append('0', new Blob([Buffer.from('PK')]), 'book.xlsm');
      const response = await fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'X-API-Key': key },
        body: form,
      });
      const result = await response.json();
      expect(result.errors[0].extensions.code).toBe('IMPORT_MACROS_REFUSED');
    });
  });

  describe('hostile files', () => {
    async function template(): Promise<Buffer> {
      return buildTemplate('general_new', readJson('real/moutai-2022-2024.json'));
    }
    async function rezip(edit: (zip: JSZip) => void | Promise<void>): Promise<Buffer> {
      const zip = await JSZip.loadAsync(await template());
      await edit(zip);
      return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    }

    it('refuses .xlsm, .xls and a VBA project with what to save as', async () => {
      for (const [name, data, code] of [
        ['book.xlsm', await template(), 'import_macros_refused'],
        ['book.xls', Buffer.from('d0cf11e0a1b11ae10000', 'hex'), 'import_unsupported_format'],
        ['book.xlsx', await rezip((zip) => void zip.file('xl/vbaProject.bin', 'x')), 'import_macros_refused'],
        ['book.pdf', Buffer.from('%PDF-1.4'), 'import_unsupported_format'],
      ] as const) {
        const response = await upload([{ name, data }]);
        expect(response.status, name).toBe(415);
        expect(response.body.code).toBe(code);
        expect(response.body.detail).toMatch(/\.xlsx/);
        expect(response.body.detail).toContain(name);
      }
    });

    it('bounds sizes: 5 MB a file, 10 files, the archive inflated before parsing', async () => {
      const big = await upload([
        { name: 'big.csv', data: Buffer.alloc(5 * 1024 * 1024 + 1, 0x41), type: 'text/csv' },
      ]);
      expect(big.status).toBe(413);
      expect(big.body.code).toBe('import_file_too_large');
      const many = await upload(
        Array.from({ length: 11 }, (_, i) => ({
          name: `${i}.csv`,
          data: Buffer.from('a'),
          type: 'text/csv',
        })),
      );
      expect(many.status).toBe(413);
      expect(many.body.code).toBe('import_too_many_files');
      // 60 MB of zeros deflate to about 60 kB: refused while inflating, before exceljs parses anything.
      const bomb = await rezip((zip) => void zip.file('xl/media/zeros.bin', Buffer.alloc(60 * 1024 * 1024)));
      expect(bomb.length).toBeLessThan(1024 * 1024);
      const refused = await upload([{ name: 'bomb.xlsx', data: bomb }]);
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('import_archive_too_large');
      const entries = await rezip((zip) => {
        for (let i = 0; i < 600; i++) zip.file(`xl/extra/${i}.xml`, '<a/>');
      });
      const tooMany = await upload([{ name: 'entries.xlsx', data: entries }]);
      expect(tooMany.body.code).toBe('import_archive_too_large');
    });

    it('never evaluates formulas: one without a saved value is a mapping error', async () => {
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load((await template()) as unknown as ArrayBuffer);
      const sheet = workbook.getWorksheet('利润表 2024')!;
      sheet.getCell('C6').value = { formula: 'SUM(C7:C9)' } as ExcelJS.CellFormulaValue;
      const data = Buffer.from(await workbook.xlsx.writeBuffer());
      const response = await upload([{ name: 'formula.xlsx', data }]);
      expect(response.status).toBe(200);
      const row = response.body.mapping.sheets
        .find((s: Body) => s.sheet === '利润表 2024')
        .rows.find((r: Body) => r.row === 6);
      expect(row.status).toBe('error');
      expect(row.reason).toMatch(/formula without a saved value/);
    });

    it('does not resolve external entities', async () => {
      const data = await rezip(async (zip) => {
        const path = 'xl/sharedStrings.xml';
        const xml = await zip.file(path)!.async('string');
        zip.file(
          path,
          xml
            .replace('<sst', '<!DOCTYPE sst [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><sst')
            .replace('货币资金', '&xxe;'),
        );
      });
      const response = await upload([{ name: 'xxe.xlsx', data }]);
      expect(response.status).toBeLessThan(500);
      expect(JSON.stringify(response.body)).not.toContain('root:');
    });

    it('names the file and sheet of a malformed workbook (422, never 500), and stores nothing', async () => {
      const before = await reportCount();
      const damaged = await rezip(
        (zip) =>
          void zip.file(
            'xl/worksheets/sheet2.xml',
            '<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>99999',
          ),
      );
      const response = await upload([{ name: '坏的.xlsx', data: damaged }], {}, '?submit=true');
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('import_malformed_file');
      expect(response.body.detail).toContain('坏的.xlsx');
      const truncated = await upload([{ name: 'cut.xlsx', data: (await template()).subarray(0, 3000) }]);
      expect(truncated.status).toBe(422);
      expect(truncated.body.errors[0].path).toBe('cut.xlsx');
      expect(await reportCount()).toBe(before);
    });

    it('fuzz: mutated workbooks never get a 5xx', async () => {
      const original = await template();
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.nat(original.length - 1), fc.integer({ min: 0, max: 255 })), {
            minLength: 1,
            maxLength: 20,
          }),
          async (mutations) => {
            const data = Buffer.from(original);
            for (const [at, byte] of mutations) data[at] = byte;
            const response = await upload([{ name: 'fuzz.xlsx', data }]);
            expect(response.status).toBeLessThan(500);
          },
        ),
        { numRuns: 40 },
      );
    });
  });
});
