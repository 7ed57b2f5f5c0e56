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

/**
 * CPU ms (user + system of this process) per report, over `reports` reports after `warmUp` more. Warm means what
 * a pool thread is after a few hundred reports: after 40 the same engine still took 15.6–17.1 ms a report where
 * after 400 it took 12.4–13.2 (V8 was still optimising it), which made the whole look closer to the floor than it is.
 */
export function engineCpuPerReport(reports = 200, warmUp = 400): number {
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
