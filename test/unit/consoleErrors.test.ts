/**
 * Every problem the console can receive reads in Chinese: each `code` the server can throw (collected from the
 * server's source: server/errors.ts and every ConflictError/ForbiddenError with its own code) and each code the
 * OpenAPI document lists has its sentence, and every field problem the server words in English (validation
 * messages and the webhook URL checks) is translated, never shown raw.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConsoleApiError } from '../../web/src/api/console.ts';
import { CODE_MESSAGES, describeError, fieldMessage } from '../../web/src/lib/consoleErrors.ts';

const root = new URL('../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'));
}

const server = sources('server');
const openapi = readFileSync(join(root, 'schema/openapi.yaml'), 'utf8');

function serverCodes(): Set<string> {
  const codes = new Set<string>();
  const patterns = [
    /super\(\s*'([a-z_]+)'/g,
    /(?:ConflictError|ForbiddenError)\(\s*'([a-z_]+)'/g,
    /\bcode: '([a-z_]+)'/g,
  ];
  for (const text of server)
    for (const pattern of patterns) for (const m of text.matchAll(pattern)) codes.add(m[1]!);
  return codes;
}

function openapiCodes(): Set<string> {
  const codes = new Set<string>();
  for (const m of openapi.matchAll(/code: \{ const: ([a-z_]+) \}/g)) codes.add(m[1]!);
  for (const m of openapi.matchAll(/code: \{ enum: \[([a-z_, ]+)\] \}/g))
    for (const code of m[1]!.split(',')) codes.add(code.trim());
  for (const m of openapi.matchAll(/^\s+code: ([a-z_]+)$/gm)) codes.add(m[1]!);
  // The prose list of codes in the document's introduction.
  const intro = /stable\s+`code`:([\s\S]*?)Every problem carries/.exec(openapi)?.[1] ?? '';
  expect(intro).toContain('queue_full');
  for (const m of intro.matchAll(/`([a-z]+_[a-z_]+)`/g)) codes.add(m[1]!);
  return codes;
}

/** English wordings the server puts in field problems (ValidationError literals, the webhook URL checks). */
function serverFieldProblems(): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  for (const text of server) {
    for (const m of text.matchAll(/path: '([\w.]*)', message: '([^']+)'/g))
      problems.push({ path: m[1]!, message: m[2]! });
    for (const m of text.matchAll(/UnsafeUrlError\(\s*[`']([^`']+)[`']/g))
      problems.push({ path: 'url', message: m[1]! });
  }
  return problems;
}

const CHINESE = /[\u4e00-\u9fff]/;
/** English left in a sentence (a code in parentheses, "http(s)" or "https://" aside). */
const english = (text: string) =>
  text
    .replace(/（错误代码 [a-z_]+）/, '')
    .replace(/https?:\/\/[\w./]+|http\(s\)|https|http|live|test/g, '')
    .match(/[A-Za-z]{3,}/g) ?? [];

describe('console error messages', () => {
  const error = (code: string) => new ConsoleApiError(400, code, 'The API said so in English.');

  it('has a Chinese sentence for every problem code the server throws and the OpenAPI document lists', () => {
    const codes = new Set([...serverCodes(), ...openapiCodes()]);
    // `code: 'all'` in server/benchmarks is an industry code (all industries), not a problem code.
    codes.delete('all');
    // The collection itself works: the codes of the report and of the error hierarchy are in it.
    for (const code of [
      'validation_failed',
      'queue_full',
      'idempotency_key_reused',
      'email_taken',
      'csrf_failed',
    ])
      expect(codes).toContain(code);
    expect(codes.size).toBeGreaterThanOrEqual(20);
    for (const code of codes) {
      expect(CODE_MESSAGES[code], code).toBeDefined();
      const sentence = describeError(error(code));
      expect(sentence, code).toMatch(CHINESE);
      expect(english(sentence), code).toEqual([]);
    }
  });

  it('translates every field problem the server words in English, the webhook URL checks included', () => {
    const problems = serverFieldProblems();
    expect(problems.some((p) => /loopback/.test(p.message))).toBe(true);
    expect(problems.length).toBeGreaterThanOrEqual(15);
    for (const problem of problems) {
      const sentence = fieldMessage(problem);
      expect(sentence, problem.message).toMatch(CHINESE);
      expect(english(sentence), `${problem.path}: ${problem.message}`).toEqual([]);
    }
    expect(
      fieldMessage({
        path: 'url',
        message: 'resolves to a loopback, private, link-local or reserved address',
      }),
    ).toBe('接收地址指向本机、内网或保留地址，不能用作接收地址');
  });
});
