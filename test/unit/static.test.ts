/**
 * The type checker and the linter are part of the test suite, so `npm test` alone says whether the tree is
 * sound (and `npm test -- some/file` still runs just that file).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = async (bin: string, args: string[]) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(`${root}node_modules/${bin}`, args, {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failure.code ?? 1, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
  }
};

describe('static checks', () => {
  it('type-checks (TypeScript 7, strict)', async () => {
    // TypeScript 7 (native) for the server, worker and tests; the `typescript` package is 6.x for vue-tsc.
    const { code, output } = await run('typescript7/bin/tsc', ['-p', 'tsconfig.json']);
    expect(output.trim(), output).toBe('');
    expect(code).toBe(0);
  });

  it('type-checks the web app (vue-tsc, strict)', async () => {
    // web/ is built by Vite (bundler resolution, DOM, .vue files): its own tsconfig, checked by vue-tsc.
    const { code, output } = await run('.bin/vue-tsc', ['-p', 'web/tsconfig.json']);
    expect(output.trim(), output).toBe('');
    expect(code).toBe(0);
  });

  it('passes the formatter and linter (Biome)', async () => {
    const { code, output } = await run('.bin/biome', ['check', '--error-on-warnings', '.']);
    expect(code, output).toBe(0);
  });
});
