/**
 * npm run bench:import — time to read a 5-year workbook (the template filled from a synthetic general_new body,
 * 15 statement sheets) into a submission and its mapping, in this process, median of 20 runs after 3 warm-ups.
 * Also the share of rows matched from filled templates and from the LibreOffice-saved workbooks of the real
 * filings. Figures go into the closing note and docs, never into a test.
 */
import { readFileSync } from 'node:fs';
import { importStatements } from '../../server/import/importStatements.ts';
import { buildTemplate, type TemplateBody } from '../../server/import/template.ts';
import { syntheticSubmission } from '../fixtures/synthetic.ts';

const body = syntheticSubmission({ years: 5 }) as unknown as TemplateBody;
const workbook = await buildTemplate('general_new', body);
const times: number[] = [];
for (let run = 0; run < 23; run++) {
  const start = performance.now();
  await importStatements([{ name: '5y.xlsx', data: workbook }]);
  if (run >= 3) times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
console.log(
  `5-year workbook (${(workbook.length / 1024).toFixed(0)} kB): median ${times[10]!.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times.at(-1)!.toFixed(0)} ms`,
);

const share = (summary: { rows: number; matched: number }) =>
  `${summary.matched}/${summary.rows} = ${((100 * summary.matched) / summary.rows).toFixed(1)} %`;
for (const name of ['gree-2016-2019', 'byd-2016-2019', 'moutai-2022-2024']) {
  const real = JSON.parse(readFileSync(new URL(`../fixtures/real/${name}.json`, import.meta.url), 'utf8'));
  const filled = await importStatements([
    { name: `${name}.xlsx`, data: await buildTemplate('general_new', real) },
  ]);
  const saved = await importStatements([
    {
      name: `${name}.xlsx`,
      data: readFileSync(new URL(`../fixtures/import/${name}.libreoffice.xlsx`, import.meta.url)),
    },
  ]);
  console.log(
    `${name}: filled template ${share(filled.mapping.summary)}; LibreOffice-saved ${share(saved.mapping.summary)}`,
  );
}
