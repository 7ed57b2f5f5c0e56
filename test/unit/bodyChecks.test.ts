/**
 * The submission's two walks over a REST body, each with a shortcut taken for speed (issue 26): the clean-text
 * check skips the string-by-string walk when the JSON text shows no string can fail it, and the idempotency
 * fingerprint builds its canonical copy without Object.fromEntries. Each must give exactly what the long way gives.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkBodyText, MAX_BODY_DEPTH, mayHoldUncleanText } from '../../server/rest/jsonBody.ts';
import { requestFingerprint } from '../../server/services/idempotency.ts';

/** What checkBodyText says: null when the body passes, else the error's problems. */
function verdict(run: () => void): unknown {
  try {
    run();
    return null;
  } catch (error) {
    return { message: (error as Error).message, errors: (error as { errors?: unknown }).errors };
  }
}

/** Strings of any UTF-16 code units: controls, DEL, lone and paired surrogates, CJK. */
const anyText = fc.string({ unit: 'binary', maxLength: 8 });
const someText = fc.oneof(
  anyText,
  fc.constantFrom('利润表', 'a\tb', 'x\u007f', '\ud83d\ude00', '\ud800', 'tail\udc00', 'ok', '\\n', '"'),
);
/** JSON values: `numbers` at the leaves with someText, objects keyed by `keys`. */
const jsonOf = (numbers: fc.Arbitrary<number>, keys: fc.Arbitrary<string>) =>
  fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      someText,
      numbers,
      fc.constant(null),
      fc.boolean(),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(keys, tie('value'), { maxKeys: 5 }),
    ),
  })).value;
const jsonish = jsonOf(fc.integer(), someText);

/** The text forms a client may send for one value: JSON.stringify's own, pretty, and ASCII-only (Python's default). */
const asciiOnly = (text: string) =>
  text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

describe('checkBodyText with the body’s JSON text', () => {
  it('reaches the same verdict as the full walk, for any body in any of its text forms', () => {
    fc.assert(
      fc.property(jsonish, fc.constantFrom('plain', 'pretty', 'ascii'), (value, form) => {
        const plain = JSON.stringify(value);
        const text =
          form === 'pretty' ? JSON.stringify(value, null, 2) : form === 'ascii' ? asciiOnly(plain) : plain;
        const body = JSON.parse(text);
        expect(verdict(() => checkBodyText(body, text))).toEqual(verdict(() => checkBodyText(body)));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds each kind of unclean text however it is written, and passes clean CJK text in every form', () => {
    for (const text of [
      '{"a":"x\\ty"}',
      '{"a":"x\\u0009y"}',
      '{"a":"\\u001B"}',
      '{"a":"\\u007f"}',
      '{"a":"x\u007fy"}',
      '{"a":"\\ud800"}',
      '{"a":"\\uDC00z"}',
      '{"x\\nkey":1}',
    ]) {
      expect(mayHoldUncleanText(text), text).toBe(true);
      expect(
        verdict(() => checkBodyText(JSON.parse(text), text)),
        text,
      ).not.toBeNull();
    }
    for (const text of ['{"企业":"利润表"}', '{"a":"\\u5229\\u6da6"}', '{"a":"say \\"hi\\" \\\\ \\/"}']) {
      expect(mayHoldUncleanText(text), text).toBe(false);
      expect(
        verdict(() => checkBodyText(JSON.parse(text), text)),
        text,
      ).toBeNull();
    }
  });

  it('still refuses a body nested too deep, naming where, when its text is clean', () => {
    const deep = `${'['.repeat(MAX_BODY_DEPTH + 1)}${']'.repeat(MAX_BODY_DEPTH + 1)}`;
    const body = JSON.parse(deep);
    expect(mayHoldUncleanText(deep)).toBe(false);
    const said = verdict(() => checkBodyText(body, deep));
    expect(said).toEqual(verdict(() => checkBodyText(body)));
    expect(JSON.stringify(said)).toContain(`nests deeper than ${MAX_BODY_DEPTH} levels`);
    const justDeepEnough = `${'['.repeat(MAX_BODY_DEPTH)}${']'.repeat(MAX_BODY_DEPTH)}`;
    expect(verdict(() => checkBodyText(JSON.parse(justDeepEnough), justDeepEnough))).toBeNull();
  });
});

/** The fingerprint's definition as first written: stored keys were fingerprinted so, and must keep matching. */
function referenceFingerprint(body: unknown): string {
  const canonical = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(canonical);
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)) ?? 'null')
    .digest('hex');
}

describe('requestFingerprint', () => {
  const keys = fc.oneof(
    someText,
    fc.nat({ max: 20 }).map(String),
    fc.constantFrom('__proto__', '007', '4294967295'),
  );
  const value = jsonOf(fc.double(), keys);

  it('is the fingerprint of the first definition for any JSON body: array-index keys, __proto__ and all', () => {
    fc.assert(
      fc.property(value, (v) => {
        const body = JSON.parse(JSON.stringify(v));
        expect(requestFingerprint(body)).toBe(referenceFingerprint(body));
      }),
      { numRuns: 3000 },
    );
    const tricky = JSON.parse('{"b":1,"10":2,"__proto__":{"z":1,"a":2},"2":3,"a":[{"y":1,"x":2}]}');
    expect(requestFingerprint(tricky)).toBe(referenceFingerprint(tricky));
  });
});
