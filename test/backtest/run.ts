/** `npm run backtest -- <dir>`: scores every labelled filing of a folder (default test/fixtures/backtest). */
import { fileURLToPath } from 'node:url';
import { formatBacktest, runBacktest } from './backtest.ts';

const dir = process.argv[2] ?? fileURLToPath(new URL('../fixtures/backtest/', import.meta.url));
console.log(formatBacktest(runBacktest(dir)));
