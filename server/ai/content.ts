/**
 * Turns a structured interpretation into the item's `ai_content`: three labelled paragraphs, the same layout
 * whether the model or the built-in writer wrote it, so clients and the share page render one format.
 */
import { clause } from './format.ts';
import type { StructuredInterpretation } from './types.ts';

export function composeAiContent(interpretation: StructuredInterpretation): string {
  const steps = interpretation.next_steps.map((step, i) => `${i + 1}. ${clause(step)}`).join('；');
  return [
    `数据解读：${interpretation.summary.trim()}`,
    `风险关注：${interpretation.risk_focus.trim()}`,
    `核查建议：${steps}。`,
  ].join('\n');
}
