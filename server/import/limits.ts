/**
 * Bounds of a spreadsheet import (docs/import.md, "Limits"). Statements of one enterprise are a few hundred
 * rows: these are generous for real files and small enough that a hostile file costs little.
 */
export const IMPORT_LIMITS = {
  /** Bytes of one uploaded file. A year's three statements saved by Excel or LibreOffice take 10–60 kB. */
  maxFileBytes: 5 * 1024 * 1024,
  /** Files in one request: one workbook per year for ten years, or one workbook with every year. */
  maxFiles: 10,
  /** Text fields of the multipart form (accounting_standard, enterprise_name, year) and their size. */
  maxFields: 10,
  maxFieldBytes: 1024,
  /** Entries of an .xlsx archive (a workbook of 20 sheets has about 50). */
  maxArchiveEntries: 500,
  /** Bytes an .xlsx archive may inflate to, declared and actually inflated (zip bombs). */
  maxInflatedBytes: 50 * 1024 * 1024,
  /** Sheets of one workbook, and rows and columns of one sheet, read. */
  maxSheets: 50,
  maxRows: 2000,
  maxColumns: 60,
} as const;
