/**
 * The floor of a report's cost: the engine alone, in this process, on the bench's 6-year submission — what the
 * pool does for one report (every analysis item from the normalised submission's JSON text, then the core-risk
 * insight), one thread, warm. No database, no HTTP, no queue.
 */
import { validateSubmission } from '../../schema/submission.ts';
import { computeItems, withCoreRiskInsight } from '../../worker/computed.ts';
import { ANALYSIS_SLUGS } from '../../worker/engine/registry.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';
import { SUBMISSION } from './lib.ts';

/** CPU ms (user + system of this process) per report, over `reports` reports after `warmUp` more. */
export function engineCpuPerReport(reports = 200, warmUp = 40): number {
  const validation = validateSubmission(SUBMISSION);
  if (!validation.ok) throw new Error('the bench submission is not valid');
  const text = JSON.stringify(normaliseSubmission(validation.value).report);
  const one = () => withCoreRiskInsight(computeItems(text, ANALYSIS_SLUGS));
  for (let i = 0; i < warmUp; i++) one();
  const before = process.cpuUsage();
  for (let i = 0; i < reports; i++) one();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / reports;
}
