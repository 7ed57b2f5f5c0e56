/** Piscina worker entry: computes analysis slugs for one report, received as its JSON text (see computed.ts). */
import { type ComputedItem, computeItems } from '../computed.ts';

export interface AnalysisTask {
  /** The JSON text of a NormalisedReport. */
  reportJson: string;
  slugs: string[];
}

export default function run(task: AnalysisTask): ComputedItem[] {
  return computeItems(task.reportJson, task.slugs);
}
