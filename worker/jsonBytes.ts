/**
 * JSON documents as UTF-8 bytes. The pool's workers serialise each item's sp_result and encode it to UTF-8 there, so
 * the main thread neither receives the documents as JavaScript strings (≈ 280 kB of two-byte strings a report, all
 * garbage once written) nor encodes them again for the database: the bytes go to PostgreSQL as they are (a `json`
 * parameter in binary format is its text; server/db/sql.ts `Utf8Json`). docs/performance.md, fourteenth stop.
 */

/**
 * The UTF-8 encodings of `texts`, as views of one buffer of their exact total size: a structured clone (the pool's
 * answer) copies that one buffer, where a Buffer of Node's shared 8 kB pool would take the whole slab with it.
 */
export function utf8Documents(texts: readonly string[]): Uint8Array[] {
  const lengths = texts.map((text) => Buffer.byteLength(text));
  const bytes = Buffer.allocUnsafeSlow(lengths.reduce((sum, length) => sum + length, 0));
  let offset = 0;
  return texts.map((text, i) => {
    const start = offset;
    offset += bytes.write(text, start);
    // A plain view, as it arrives on the other side of the pool (a Buffer arrives as a Uint8Array).
    return new Uint8Array(bytes.buffer, start, lengths[i]!);
  });
}

/** One document's UTF-8 encoding, as utf8Documents gives it. */
export function utf8Document(text: string): Uint8Array {
  return utf8Documents([text])[0]!;
}

/** The text of a UTF-8 document (a view as utf8Documents returns, or one that crossed threads). */
export function utf8Text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** The value of a UTF-8 JSON document. */
export function parseUtf8Json<T = unknown>(bytes: Uint8Array): T {
  return JSON.parse(utf8Text(bytes)) as T;
}
