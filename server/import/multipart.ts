/**
 * Reads a multipart/form-data upload with busboy (the parser under multer), bounded as it streams: at most
 * `maxFiles` file parts of `maxFileBytes` each and `maxFields` short text fields, and a body timeout. The
 * first limit crossed stops reading and answers 413 naming the file. Files stay in memory (≤ 50 MB in all,
 * usually a few kB) and are never written anywhere.
 */
import busboy from 'busboy';
import type { Context } from 'koa';
import { RequestTimeoutError, UnsupportedMediaTypeError } from '../errors.ts';
import { ImportFileError } from './importErrors.ts';
import { IMPORT_LIMITS } from './limits.ts';
import type { UploadedFile } from './readFiles.ts';

export interface MultipartUpload {
  files: UploadedFile[];
  fields: Record<string, string>;
}

export function readMultipart(ctx: Context, timeoutMs: number): Promise<MultipartUpload> {
  const type = ctx.get('Content-Type');
  if (!/^multipart\/form-data/i.test(type)) throw new UnsupportedMediaTypeError(type || undefined);
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: ctx.req.headers,
        defParamCharset: 'utf8',
        limits: {
          fileSize: IMPORT_LIMITS.maxFileBytes,
          files: IMPORT_LIMITS.maxFiles,
          fields: IMPORT_LIMITS.maxFields,
          fieldSize: IMPORT_LIMITS.maxFieldBytes,
          parts: IMPORT_LIMITS.maxFiles + IMPORT_LIMITS.maxFields,
        },
      });
    } catch (error) {
      reject(
        new ImportFileError(
          'import_malformed_file',
          `The multipart body cannot be read: ${(error as Error).message}.`,
        ),
      );
      return;
    }
    const files: UploadedFile[] = [];
    const fields: Record<string, string> = {};
    let failed = false;
    let deferred: Error | undefined;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      clearTimeout(timer);
      ctx.req.unpipe(parser);
      ctx.req.resume();
      reject(error);
    };
    const timer = setTimeout(() => fail(new RequestTimeoutError(timeoutMs)), timeoutMs);
    parser.on('file', (_name, stream, info) => {
      const name = (info.filename || 'upload').slice(0, 200);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      // Busboy drops the rest of this part and reads on: the 413 is sent once the body has been read (a client
      // still writing would see a reset connection instead of the answer); the body timeout bounds the wait.
      stream.on('limit', () => {
        deferred ??= new ImportFileError(
          'import_file_too_large',
          `${name} is larger than ${IMPORT_LIMITS.maxFileBytes / 1024 / 1024} MB, the limit per file.`,
          { file: name },
        );
      });
      stream.on('end', () => {
        if (!failed && !deferred) files.push({ name, data: Buffer.concat(chunks) });
      });
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated)
        deferred ??= new ImportFileError(
          'import_too_many_files',
          `The field ${name.slice(0, 40)} is longer than ${IMPORT_LIMITS.maxFieldBytes} bytes.`,
        );
      else fields[name] = value;
    });
    // Like a file over the limit: answered once the body has been read (busboy skips the parts beyond).
    const tooMany = () => {
      deferred ??= new ImportFileError(
        'import_too_many_files',
        `At most ${IMPORT_LIMITS.maxFiles} files and ${IMPORT_LIMITS.maxFields} fields can be imported at once.`,
      );
    };
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('error', (error: Error) =>
      fail(
        new ImportFileError(
          'import_malformed_file',
          `The multipart body cannot be read: ${error.message.slice(0, 120)}.`,
        ),
      ),
    );
    parser.on('close', () => {
      if (failed) return;
      clearTimeout(timer);
      if (deferred) reject(deferred);
      else resolve({ files, fields });
    });
    ctx.req.pipe(parser);
  });
}
