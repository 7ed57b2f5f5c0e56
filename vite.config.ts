/**
 * Builds the web app (web/) into web/dist, served by the Koa server (server/rest/webRoutes.ts): index.html
 * at the top, content-hashed JS and CSS under web/dist/assets. Every text asset also gets .gz and .br
 * siblings, which the server sends to clients that accept them. `npm ci` runs this build (postinstall).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import vue from '@vitejs/plugin-vue';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('./web', import.meta.url));
const outDir = join(root, 'dist');

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Writes precompressed siblings (gzip level 9, brotli quality 11) once, at build time. */
function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    closeBundle() {
      for (const path of files(outDir)) {
        if (!/\.(js|css|html|svg|json)$/.test(path)) continue;
        const source = readFileSync(path);
        if (source.length < 1024) continue;
        writeFileSync(`${path}.gz`, gzipSync(source, { level: 9 }));
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(source, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
      }
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  plugins: [vue(), precompress()],
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    // web/dist/.vite/manifest.json: the server reads it to name the share page's own chunks in that page's HTML
    // (<link rel="modulepreload">), so they load beside the entry instead of after it (server/rest/webRoutes.ts).
    manifest: true,
    target: 'es2022',
    // The share page's first load is measured and reported; keep an eye on anything larger than this.
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      output: {
        // ECharts changes less often than the app: its own long-cached chunks, loaded by the share page only.
        // Two of them, so that their evaluation is two tasks (web/src/charts/runtime.ts imports `echarts/core`
        // first): the core with zrender (everything `echarts/core` reaches), then the charts and components.
        codeSplitting: {
          groups: [
            {
              name: 'echarts-core',
              test: /node_modules[\\/](zrender[\\/]|echarts[\\/](core\.js|lib[\\/](core|model|util|data|scale|coord|animation|visual|i18n|legacy|preprocessor|processor|export|theme|renderer|view|loading|action|label)[\\/]))/,
            },
            { name: 'echarts', test: /node_modules[\\/]echarts[\\/]/ },
          ],
        },
      },
    },
  },
  server: {
    // `npx vite` serves the SPA with hot reload; the API comes from `npm start` on :3000.
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
