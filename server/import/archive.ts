/**
 * Looks inside an .xlsx (a zip archive) before anything parses it: the central directory is read with yauzl
 * (a well-kept zip reader that validates entry sizes), the entry count and declared sizes are bounded, and each
 * entry is inflated as a stream with the inflated bytes counted, so a zip bomb is refused after at most
 * `maxInflatedBytes` of work, whatever its headers claim. A VBA project or a macro-enabled content type is
 * refused here too. exceljs only ever sees an archive that passed.
 */
import yauzl from 'yauzl';
import { ImportFileError } from './importErrors.ts';
import { IMPORT_LIMITS } from './limits.ts';

const MACRO_CONTENT_TYPE = /macroEnabled|vbaProject/i;

function open(buffer: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true, validateEntrySizes: true }, (error, zip) =>
      error ? reject(error) : resolve(zip),
    );
  });
}

function inflate(zip: yauzl.ZipFile, entry: yauzl.Entry, budget: { left: number }): Promise<Buffer | null> {
  // [Content_Types].xml is kept (macro check); every other entry is only counted.
  const keep = entry.fileName === '[Content_Types].xml';
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) return reject(error);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        budget.left -= chunk.length;
        if (budget.left < 0) {
          stream.destroy(new Error('inflated size over the limit'));
          return;
        }
        if (keep) chunks.push(chunk);
      });
      stream.on('error', reject);
      stream.on('end', () => resolve(keep ? Buffer.concat(chunks) : null));
    });
  });
}

/** Throws an ImportFileError naming `file` unless the archive is a bounded, macro-free zip. */
export async function checkXlsxArchive(buffer: Buffer, file: string): Promise<void> {
  const tooLarge = () =>
    new ImportFileError(
      'import_archive_too_large',
      `${file}: the workbook archive has more than ${IMPORT_LIMITS.maxArchiveEntries} entries or inflates to more than ${IMPORT_LIMITS.maxInflatedBytes / 1024 / 1024} MB.`,
      { file },
    );
  let zip: yauzl.ZipFile;
  try {
    zip = await open(buffer);
  } catch {
    throw new ImportFileError(
      'import_malformed_file',
      `${file} is not a readable .xlsx workbook (its zip archive is damaged). Save it again as .xlsx.`,
      { file },
    );
  }
  try {
    if (zip.entryCount > IMPORT_LIMITS.maxArchiveEntries) throw tooLarge();
    const budget = { left: IMPORT_LIMITS.maxInflatedBytes };
    let declared = 0;
    let contentTypes: string | null = null;
    let sawWorkbook = false;
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        declared += entry.uncompressedSize;
        if (declared > IMPORT_LIMITS.maxInflatedBytes) return reject(tooLarge());
        if (/vbaProject\.bin$/i.test(entry.fileName))
          return reject(
            new ImportFileError(
              'import_macros_refused',
              `${file} contains macros (a VBA project). Save it as “Excel 工作簿 (*.xlsx)” and import that.`,
              { file },
            ),
          );
        if (entry.fileName === 'xl/workbook.xml') sawWorkbook = true;
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        inflate(zip, entry, budget).then(
          (kept) => {
            if (kept) contentTypes = kept.toString('utf8');
            zip.readEntry();
          },
          (error: Error) => reject(budget.left < 0 ? tooLarge() : error),
        );
      });
      zip.readEntry();
    });
    if (contentTypes !== null && MACRO_CONTENT_TYPE.test(contentTypes))
      throw new ImportFileError(
        'import_macros_refused',
        `${file} is a macro-enabled workbook. Save it as “Excel 工作簿 (*.xlsx)” and import that.`,
        { file },
      );
    if (!sawWorkbook)
      throw new ImportFileError(
        'import_malformed_file',
        `${file} is a zip archive but not an .xlsx workbook (no xl/workbook.xml). Save it as .xlsx.`,
        { file },
      );
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    throw new ImportFileError(
      'import_malformed_file',
      `${file} is not a readable .xlsx workbook (${(error as Error).message.slice(0, 120)}). Save it again as .xlsx.`,
      { file },
    );
  } finally {
    zip.close();
  }
}
