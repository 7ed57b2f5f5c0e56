/**
 * Turns an uploaded file into grids of cells, one per sheet: .xlsx through exceljs (after archive.ts has bounded
 * the archive), .csv through csv-parse after decoding with iconv-lite. Nothing here interprets the statements.
 *
 * exceljs reads what the file stores and never evaluates a formula: a formula cell gives its cached result, or
 * none when the writer saved no result (such a cell becomes `formula_without_result`, a mapping error later).
 * Its XML parser (saxes) does not resolve external entities or fetch DTDs.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import type ExcelJS from 'exceljs';
import iconv from 'iconv-lite';
import { loadExcel } from '../lib/excel.ts';
import { checkXlsxArchive } from './archive.ts';
import { ImportFileError } from './importErrors.ts';
import { IMPORT_LIMITS } from './limits.ts';

export type Cell =
  | { kind: 'empty' }
  | { kind: 'text'; text: string }
  /** `decimals`: the fixed decimals of the cell's number format (`#,##0.00` → 2), null when none. */
  | { kind: 'number'; value: number; decimals: number | null }
  | { kind: 'formula_without_result'; formula: string };

export interface Grid {
  file: string;
  sheet: string;
  rows: Cell[][];
}

export interface UploadedFile {
  name: string;
  data: Buffer;
}

const EMPTY: Cell = { kind: 'empty' };

/** The fixed decimals of a number format: `#,##0.00;(#,##0.00)` → 2, `0` → 0, `General` → null. */
function formatDecimals(numFmt: string | undefined): number | null {
  const positive = (numFmt ?? '')
    .split(';')[0]!
    .replace(/"[^"]*"/g, '')
    .replace(/\[[^\]]*\]/g, '');
  const fixed = /0\.(0+)/.exec(positive);
  if (fixed) return fixed[1]!.length;
  return /[0#]/.test(positive) ? 0 : null;
}

function cellOf(cell: ExcelJS.Cell): Cell {
  // A merged range's other cells repeat its first cell's value in exceljs: only the first one counts.
  if (cell.isMerged && cell.master !== cell) return EMPTY;
  const value = cell.value;
  if (value === null || value === undefined) return EMPTY;
  const decimals = formatDecimals(cell.numFmt);
  if (typeof value === 'number') return { kind: 'number', value, decimals };
  if (typeof value === 'string') return { kind: 'text', text: value };
  if (typeof value === 'boolean') return { kind: 'text', text: String(value) };
  if (value instanceof Date) return { kind: 'text', text: value.toISOString().slice(0, 10) };
  if ('formula' in value || 'sharedFormula' in value) {
    const result = (value as ExcelJS.CellFormulaValue).result;
    if (result === undefined || result === null || (typeof result === 'object' && !(result instanceof Date)))
      return {
        kind: 'formula_without_result',
        formula: String(
          (value as ExcelJS.CellFormulaValue).formula ?? (value as { sharedFormula: string }).sharedFormula,
        ),
      };
    if (typeof result === 'number') return { kind: 'number', value: result, decimals };
    return {
      kind: 'text',
      text: result instanceof Date ? result.toISOString().slice(0, 10) : String(result),
    };
  }
  if ('richText' in value) return { kind: 'text', text: value.richText.map((part) => part.text).join('') };
  if ('text' in value) return { kind: 'text', text: String(value.text) };
  if ('error' in value) return { kind: 'text', text: String(value.error) };
  return EMPTY;
}

async function readXlsx(file: UploadedFile): Promise<Grid[]> {
  await checkXlsxArchive(file.data, file.name);
  const workbook = new (await loadExcel()).Workbook();
  try {
    await workbook.xlsx.load(file.data as unknown as ArrayBuffer, { ignoreNodes: ['dataValidations'] });
  } catch (error) {
    throw new ImportFileError(
      'import_malformed_file',
      `${file.name} could not be read as an .xlsx workbook (${String((error as Error).message).slice(0, 120)}). Open it in Excel or WPS and save it again as .xlsx.`,
      { file: file.name },
    );
  }
  const grids: Grid[] = [];
  for (const sheet of workbook.worksheets.slice(0, IMPORT_LIMITS.maxSheets)) {
    if (sheet.state === 'veryHidden') continue;
    const rows: Cell[][] = [];
    const rowCount = Math.min(sheet.rowCount, IMPORT_LIMITS.maxRows);
    const columnCount = Math.min(sheet.columnCount, IMPORT_LIMITS.maxColumns);
    try {
      for (let r = 1; r <= rowCount; r++) {
        const row = sheet.getRow(r);
        const cells: Cell[] = [];
        for (let c = 1; c <= columnCount; c++) cells.push(cellOf(row.getCell(c)));
        rows.push(cells);
      }
    } catch (error) {
      throw new ImportFileError(
        'import_malformed_file',
        `${file.name}, sheet “${sheet.name}”: a cell could not be read (${String((error as Error).message).slice(0, 120)}).`,
        { file: file.name, sheet: sheet.name },
      );
    }
    grids.push({ file: file.name, sheet: sheet.name, rows });
  }
  return grids;
}

/**
 * The text of a CSV file. Excel and WPS in China save “CSV (逗号分隔)” in GB18030 (GBK), “CSV UTF-8” with a
 * byte-order mark; LibreOffice asks. Rule: a UTF-8 BOM, or bytes that are valid UTF-8, are UTF-8; a UTF-16 BOM
 * is UTF-16; anything else is decoded as GB18030 (a superset of GBK and GB2312).
 */
export function decodeCsv(data: Buffer): { text: string; encoding: string } {
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf)
    return { text: data.subarray(3).toString('utf8'), encoding: 'UTF-8 (BOM)' };
  if (data[0] === 0xff && data[1] === 0xfe)
    return { text: iconv.decode(data, 'utf16le'), encoding: 'UTF-16LE' };
  if (data[0] === 0xfe && data[1] === 0xff)
    return { text: iconv.decode(data, 'utf16be'), encoding: 'UTF-16BE' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(data), encoding: 'UTF-8' };
  } catch {
    return { text: iconv.decode(data, 'gb18030'), encoding: 'GB18030' };
  }
}

function readCsv(file: UploadedFile): Grid[] {
  const { text } = decodeCsv(file.data);
  let records: string[][];
  try {
    records = parseCsv(text, {
      relax_column_count: true,
      skip_empty_lines: false,
      delimiter: [',', '\t', ';'],
      to_line: IMPORT_LIMITS.maxRows,
    }) as string[][];
  } catch (error) {
    throw new ImportFileError(
      'import_malformed_file',
      `${file.name} is not valid CSV (${String((error as Error).message).slice(0, 120)}).`,
      { file: file.name, sheet: file.name },
    );
  }
  const rows = records.map((record) =>
    record
      .slice(0, IMPORT_LIMITS.maxColumns)
      .map((text): Cell => (text.trim() === '' ? EMPTY : { kind: 'text', text })),
  );
  return [{ file: file.name, sheet: file.name.replace(/\.csv$/i, ''), rows }];
}

const SAVE_AS = 'Save it as “Excel 工作簿 (*.xlsx)” or “CSV UTF-8 (逗号分隔)” and import that.';

/** The grids of one uploaded file; refuses formats other than .xlsx and .csv with what to save as. */
export async function readUploadedFile(file: UploadedFile): Promise<Grid[]> {
  const name = file.name.toLowerCase();
  const isZip = file.data[0] === 0x50 && file.data[1] === 0x4b;
  const isOle = file.data.subarray(0, 8).equals(Buffer.from('d0cf11e0a1b11ae1', 'hex'));
  if (name.endsWith('.xlsm') || name.endsWith('.xltm') || name.endsWith('.xlsb'))
    throw new ImportFileError(
      'import_macros_refused',
      `${file.name} is a macro-enabled or binary workbook; macros are never run. Save it as “Excel 工作簿 (*.xlsx)” and import that.`,
      { file: file.name },
    );
  if (name.endsWith('.xls') || name.endsWith('.et') || isOle)
    throw new ImportFileError(
      'import_unsupported_format',
      `${file.name} is an Excel 97–2003 (.xls) or WPS workbook, which is not accepted. ${SAVE_AS}`,
      { file: file.name },
    );
  if (name.endsWith('.xlsx')) {
    if (!isZip)
      throw new ImportFileError(
        'import_malformed_file',
        `${file.name} is named .xlsx but is not an .xlsx workbook. ${SAVE_AS}`,
        { file: file.name },
      );
    return readXlsx(file);
  }
  if (name.endsWith('.csv') || name.endsWith('.txt')) {
    if (isZip)
      throw new ImportFileError(
        'import_malformed_file',
        `${file.name} is named .csv but is a zip archive. ${SAVE_AS}`,
        {
          file: file.name,
        },
      );
    return readCsv(file);
  }
  throw new ImportFileError(
    'import_unsupported_format',
    `${file.name}: only .xlsx and .csv files are accepted. ${SAVE_AS}`,
    {
      file: file.name,
    },
  );
}
