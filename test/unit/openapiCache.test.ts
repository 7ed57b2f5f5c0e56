/**
 * schema/openapi.yaml is parsed once per text, not once per process: the service's start (and every test file that
 * builds the app) reads the JSON an earlier process wrote of the same text (server/rest/docsRoutes.ts). Here on a
 * copy of the document and a cache directory of the test's own, so that no other process reads what it plants.
 */
import { hash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseOpenApiSource } from '../../server/rest/docsRoutes.ts';

const dir = mkdtempSync(join(tmpdir(), 'fra-openapi-cache-'));
const source = pathToFileURL(join(dir, 'openapi.yaml'));
copyFileSync(new URL('../../schema/openapi.yaml', import.meta.url), source);
const cacheDir = pathToFileURL(join(dir, 'cache/'));
const text = readFileSync(source, 'utf8');
const cacheFile = new URL(`openapi-${hash('sha256', text, 'hex').slice(0, 32)}.json`, cacheDir);
const fromYaml = parse(text) as Record<string, unknown>;

describe('the parsed OpenAPI document', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the YAML, and is kept as JSON under the hash of its text', () => {
    expect(existsSync(cacheFile)).toBe(false);
    expect(parseOpenApiSource(source, cacheDir)).toEqual(fromYaml);
    expect(JSON.parse(readFileSync(cacheFile, 'utf8'))).toEqual(fromYaml);
  });

  it('is read from that JSON when it is there', () => {
    writeFileSync(cacheFile, JSON.stringify({ ...fromYaml, 'x-read-from': 'the cache' }));
    expect(parseOpenApiSource(source, cacheDir)).toEqual({ ...fromYaml, 'x-read-from': 'the cache' });
  });

  it('is parsed from the YAML again, and the JSON rewritten, when the JSON cannot be read', () => {
    writeFileSync(cacheFile, '{"half of a doc');
    expect(parseOpenApiSource(source, cacheDir)).toEqual(fromYaml);
    expect(JSON.parse(readFileSync(cacheFile, 'utf8'))).toEqual(fromYaml);
  });

  it('is parsed again when the YAML changes', () => {
    writeFileSync(source, `${text}\nx-edited: true\n`);
    expect(parseOpenApiSource(source, cacheDir)).toEqual({ ...fromYaml, 'x-edited': true });
  });
});
