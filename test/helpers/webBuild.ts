/**
 * vitest globalSetup: makes sure web/dist holds a build of the current web sources before any test file runs
 * (the page-route and browser tests serve it). `npm ci` builds it already (postinstall); this rebuilds only
 * when the build is missing or older than a source file, so editing web/ and running `npm test` tests the edit.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = join(ROOT, 'web/dist/index.html');
const SOURCES = ['web/src', 'web/index.html', 'web/public', 'vite.config.ts'].map((path) => join(ROOT, path));

function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

export function webBuildIsCurrent(): boolean {
  if (!existsSync(BUILT)) return false;
  const built = statSync(BUILT).mtimeMs;
  return SOURCES.every((source) => newestChange(source) <= built);
}

export default async function setup(): Promise<void> {
  if (webBuildIsCurrent()) return;
  // process.execPath is the Node that runs vitest (the project's Node 24).
  // NODE_ENV: vitest sets it to `test`, and a Vite build run with it keeps Vue's and ECharts' development code
  // (warnings, a bigger runtime chunked apart from the entry): the tests and benches would serve a build `npm ci`
  // never makes.
  await promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production' },
    maxBuffer: 16 * 1024 * 1024,
  });
}
