/**
 * The built-in writer's text for industry_benchmark (server/ai/builtinWriter.ts dispatches here): which
 * industry and size it was matched to, where each indicator stands, and what to check.
 */
import type { BenchmarkRow } from '../../worker/engine/industryBenchmark.ts';
import type { AnalysisOutput } from '../../worker/types.ts';
import { formatFigure } from '../ai/format.ts';
import type { StructuredInterpretation } from '../ai/types.ts';

const MAX_FACTS = 4;

export function writeIndustryBenchmark(item: AnalysisOutput): StructuredInterpretation {
  const sp = item.sp_result as {
    released_year: number | null;
    industry: { code: string | null; name: string | null };
    size_class: { label: string | null };
    rows: BenchmarkRow[];
  };
  const year = sp.released_year ?? '';
  const industry = sp.industry.code ? `${sp.industry.name}（${sp.industry.code}）` : '未能识别的行业';
  const valued = sp.rows.filter((r) => r.value !== null);
  const placed = valued.filter((r) => r.benchmarks.some((b) => b.position) || r.peers?.position);
  const facts = (placed.length ? placed : valued).slice(0, MAX_FACTS).map((r) => {
    const figure = r.benchmarks.find((b) => b.position) ?? null;
    const where = figure
      ? `，${figure.position!.label}（${figure.set_name}，${figure.level_label}）`
      : r.peers?.position
        ? `，同业${r.peers.position.label}`
        : '';
    return `${r.label}${formatFigure(r.value!, r.unit)}${where}`;
  });
  const summary = !valued.length
    ? `${year}年行业对标所需的指标均为空，无法据此作行业比较。`
    : placed.length
      ? `${year}年按${industry}${sp.size_class.label ? `、${sp.size_class.label}企业` : ''}对标：${facts.join('；')}。`
      : `${year}年${facts.join('，')}；未匹配到可用的行业基准，无法定位其在行业中的位置。`;
  const worst = placed.filter(
    (r) => r.benchmarks.some((b) => b.position?.worst && b.level !== 'all') || r.peers?.position?.worst,
  );
  const fallback = sp.rows.some(
    (r) => r.benchmarks.length > 0 && r.benchmarks.every((b) => b.level === 'all'),
  );
  const risk_focus = worst.length
    ? `${worst.map((r) => r.label).join('、')}处于所属行业的最差档或最差十分之一，需结合行业周期与企业自身情况判断。`
    : fallback
      ? '部分指标只有全行业基准可比，行业特征（如重资产行业的负债水平）未能体现，对比结论应谨慎使用。'
      : '未发现处于所属行业最差档的指标。';
  const next_steps = [
    '核对企业所属国民经济行业分类代码（GB/T 4754-2017）与从业人数，确保对标口径正确',
    '关注基准的数据年度与报表年度之差，必要时加载更新版本的行业标准值',
  ];
  if (worst.length) next_steps.unshift(`结合同行业可比企业核实${worst[0]!.label}偏离行业水平的原因`);
  return { summary, risk_focus, next_steps, risk_items: [] };
}
