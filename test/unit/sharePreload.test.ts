/** The share page's HTML names the page's own chunks from the build's manifest (server/rest/webRoutes.ts). */
import { describe, expect, it } from 'vitest';
import { sharePageAssets } from '../../server/rest/webRoutes.ts';

describe('sharePageAssets', () => {
  const manifest = {
    'index.html': {
      file: 'assets/index-a.js',
      src: 'index.html',
      isEntry: true,
      css: ['assets/index-a.css'],
      dynamicImports: ['src/pages/SharedReport.vue'],
    },
    'src/pages/SharedReport.vue': {
      file: 'assets/SharedReport-b.js',
      src: 'src/pages/SharedReport.vue',
      imports: ['index.html', '_format-c.js'],
      dynamicImports: ['_echarts-core-d.js'],
      css: ['assets/SharedReport-b.css'],
    },
    '_format-c.js': { file: 'assets/format-c.js', imports: ['index.html', '_glossary-e.js'] },
    '_glossary-e.js': { file: 'assets/glossary-e.js', css: ['assets/glossary-e.css'] },
    '_echarts-core-d.js': { file: 'assets/echarts-core-d.js' },
  };

  it("lists the route's chunk, its static imports and their styles — not the entry, not the chart code", () => {
    expect(sharePageAssets(manifest)).toEqual({
      scripts: ['/assets/SharedReport-b.js', '/assets/format-c.js', '/assets/glossary-e.js'],
      styles: ['/assets/SharedReport-b.css', '/assets/glossary-e.css'],
    });
  });

  it('names nothing when the build has no such page', () => {
    expect(sharePageAssets({ 'index.html': manifest['index.html'] })).toEqual({ scripts: [], styles: [] });
  });
});
