/** Piscina worker entry: computes analysis slugs for one normalised report (received by structured clone). */
import type { AnalysisOutput, NormalisedReport } from '../types.ts';
import { computeAnalysis } from './registry.ts';

export interface AnalysisTask {
  report: NormalisedReport;
  slugs: string[];
}

export default function run(task: AnalysisTask): AnalysisOutput[] {
  return computeAnalysis(task.report, task.slugs);
}
