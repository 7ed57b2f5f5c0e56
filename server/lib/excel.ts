/**
 * exceljs, loaded on first use: only the Excel export and import need it, and loading it took ≈ 0.4 s of every start
 * of the service on the VMs of docs/performance.md (its module graph is large). The first workbook of a process waits
 * for it; every later one has it.
 */
import type ExcelJS from 'exceljs';

let loading: Promise<typeof ExcelJS> | undefined;

export function loadExcel(): Promise<typeof ExcelJS> {
  loading ??= import('exceljs').then((module) => module.default);
  return loading;
}
