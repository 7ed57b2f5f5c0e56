/**
 * schema/openapi.yaml as a contract tool reads it: its generated sp_result schemas match the catalogue (re-run
 * `npm run schema:openapi` after adding an item or a key), and `redocly lint` and `spectral lint` (ruleset
 * spectral:oas) report no error (`npm run lint:api`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, withGeneratedBlock } from '../../schema/spResultSchemas.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function lint(args: string[]): { status: number; output: string } {
  const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  return { status: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
}

describe('schema/openapi.yaml', () => {
  it('holds the sp_result schemas generated from the current catalogue (npm run schema:openapi)', () => {
    const committed = readFileSync(OPENAPI_FILE, 'utf8');
    expect(withGeneratedBlock(committed) === committed, 'run `npm run schema:openapi` and commit').toBe(true);
  });

  it('passes redocly lint with no error', () => {
    const result = lint([
      'node_modules/@redocly/cli/bin/cli.js',
      'lint',
      'schema/openapi.yaml',
      '--format=stylish',
    ]);
    expect(result.output).toMatch(/valid/i);
    expect(result.status, result.output).toBe(0);
  }, 120_000);

  it('passes spectral lint (spectral:oas) with no error', () => {
    const result = lint([
      'node_modules/@stoplight/spectral-cli/dist/index.js',
      'lint',
      'schema/openapi.yaml',
      '--ruleset',
      '.spectral.yaml',
      '--fail-severity',
      'error',
    ]);
    expect(result.output).toMatch(/0 errors|No results/);
    expect(result.status, result.output).toBe(0);
  }, 120_000);
});
