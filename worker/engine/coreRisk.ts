/**
 * 核心风险洞察 (section 1): an aggregation of the risk items every other module raised, grouped by module, with
 * counts per level and the most severe items first. Pure: it reads the other outputs only, no statements.
 *
 * Layout of sp_result (no series: the items already name their years):
 * - released_year: taken from the first output that carries one (null when none does);
 * - total_count, danger_count, warning_count, info_count: over all modules;
 * - highest_level: the most severe level raised, null when there is no risk item;
 * - modules: one group per output, in the order given (the presentation order), modules without risk items
 *   included with zero counts, each with its own counts and its risk items as raised;
 * - top_risks: at most CORE_RISK_TOP_N items, danger before warning before info; ties keep the module order
 *   and, within a module, the module's own order.
 * - verdict, scorecard: the scorecard's grade, score and drivers (verdict.ts);
 * - data_gaps, strengths: the data notes and positive signals the modules reported apart from their risks.
 * Risk items only are counted: data notes and strengths never are.
 * Its own risk_items are the top risks, each message prefixed with 【module label】, each keeping the code of
 * the rule that raised it: the section reads as the report's short list of what matters most.
 */

import type { AnalysisOutput, RiskItem, RiskLevel } from '../types.ts';
import type { MatchedBenchmark } from './benchmark.ts';
import type { FieldDoc } from './module.ts';
import { buildVerdict, MIN_COVERAGE_PCT, PROVISIONAL_COVERAGE, PROVISIONAL_DATA } from './verdict.ts';

/** A data note as a module reports it in `sp_result.data_gaps` (see registry.ts `separateNotes`). */
export interface ModuleDataGap {
  code: string;
  gap: string;
  message: string;
}

/** One entry of core_risk_insight's `data_gaps`: one per gap, whichever modules reported it. */
export interface DataGap {
  code: string;
  message: string;
  /** Slugs whose indicators the gap leaves empty or incomplete. */
  disables: string[];
}

export interface Strength {
  slug: string;
  code: string;
  message: string;
}

/** Messages of the gaps several modules report (otherwise the first module's message is used). */
export const DATA_GAP_MESSAGES: Readonly<Record<string, string>> = {
  cash_flow_statement:
    '未提交现金流量表（全部或部分年度）：现金流量分析、现金流量表核对与勾稽核对的相应年度无法进行。',
};

function collectNotes(sources: readonly AnalysisOutput[]): { data_gaps: DataGap[]; strengths: Strength[] } {
  const gaps = new Map<string, DataGap>();
  const strengths: Strength[] = [];
  for (const o of sources) {
    for (const g of (o.sp_result.data_gaps as ModuleDataGap[] | undefined) ?? []) {
      const entry = gaps.get(g.gap);
      if (entry) {
        if (!entry.disables.includes(o.slug)) entry.disables.push(o.slug);
      } else {
        gaps.set(g.gap, { code: g.gap, message: DATA_GAP_MESSAGES[g.gap] ?? g.message, disables: [o.slug] });
      }
    }
    for (const st of (o.sp_result.strengths as { code: string; message: string }[] | undefined) ?? []) {
      strengths.push({ slug: o.slug, code: st.code, message: st.message });
    }
  }
  return { data_gaps: [...gaps.values()], strengths };
}

export const CORE_RISK_SLUG = 'core_risk_insight';
export const CORE_RISK_LABEL = '核心风险洞察';
export const CORE_RISK_TOP_N = 10;

export interface LevelCounts {
  total_count: number;
  danger_count: number;
  warning_count: number;
  info_count: number;
}

export interface CoreRiskGroup extends LevelCounts {
  slug: string;
  label: string;
  risk_items: RiskItem[];
}

export interface CoreRiskEntry {
  slug: string;
  label: string;
  level: RiskLevel;
  code: string | null;
  message: string;
}

const SEVERITY: Readonly<Record<RiskLevel, number>> = { danger: 2, warning: 1, info: 0 };

function countLevels(items: readonly { level: RiskLevel }[]): LevelCounts {
  const count = (level: RiskLevel) => items.filter((i) => i.level === level).length;
  return {
    total_count: items.length,
    danger_count: count('danger'),
    warning_count: count('warning'),
    info_count: count('info'),
  };
}

function releasedYearOf(outputs: readonly AnalysisOutput[]): number | null {
  for (const output of outputs) {
    const year = output.sp_result.released_year;
    if (typeof year === 'number' && Number.isInteger(year)) return year;
  }
  return null;
}

/**
 * Builds the core-risk item from the other modules' outputs, given in presentation order. An output with the
 * core-risk slug itself is ignored, so feeding back a previous result cannot count items twice.
 */
export function buildCoreRiskInsight(
  outputs: readonly AnalysisOutput[],
  labelOf: (slug: string) => string,
  /** The report's matched industry benchmark: its bands replace the all-industry ones where it has them. */
  benchmark?: MatchedBenchmark | null,
): AnalysisOutput {
  const sources = outputs.filter((o) => o.slug !== CORE_RISK_SLUG);
  const modules: CoreRiskGroup[] = sources.map((o) => ({
    slug: o.slug,
    label: labelOf(o.slug),
    ...countLevels(o.risk_items),
    risk_items: o.risk_items.map((item) => ({ ...item })),
  }));

  const all: CoreRiskEntry[] = modules.flatMap((group) =>
    group.risk_items.map((item) => ({
      slug: group.slug,
      label: group.label,
      level: item.level,
      code: item.code ?? null,
      message: item.message,
    })),
  );
  // Array.prototype.sort is stable: equal severities keep module order, then the module's own order.
  const { verdict, scorecard } = buildVerdict(sources, { benchmark });
  const notes = collectNotes(sources);
  // A factor the scorecard could not score is a data gap: the lines that would enable it, named.
  for (const m of verdict.coverage.missing) {
    notes.data_gaps.push({
      code: `scorecard.${m.key}`,
      message: `评分卡因子“${m.label}”（权重${m.weight}）未计分：${m.requires}。`,
      disables: [CORE_RISK_SLUG],
    });
  }
  const top_risks = [...all].sort((a, b) => SEVERITY[b.level] - SEVERITY[a.level]).slice(0, CORE_RISK_TOP_N);
  const overall = countLevels(all);
  const highest_level: RiskLevel | null =
    overall.danger_count > 0
      ? 'danger'
      : overall.warning_count > 0
        ? 'warning'
        : overall.info_count > 0
          ? 'info'
          : null;
  return {
    slug: CORE_RISK_SLUG,
    sp_result: {
      released_year: releasedYearOf(sources),
      ...overall,
      highest_level,
      modules,
      top_risks,
      verdict,
      ...notes,
      scorecard,
    },
    risk_items: top_risks.map((entry) => ({
      level: entry.level,
      code: entry.code ?? `${entry.slug}.unspecified`,
      message: `【${entry.label}】${entry.message}`,
    })),
  };
}

/** Documentation of the core-risk sp_result keys, for the generated catalogue. */
export const CORE_RISK_FIELDS: readonly FieldDoc[] = [
  {
    key: 'total_count',
    label: '风险提示总数',
    unit: '个',
    formula: '各分析模块风险提示条数之和（仅风险，不含数据缺失提示与积极信号）',
    inputs: [],
  },
  {
    key: 'danger_count',
    label: '危险级风险数',
    unit: '个',
    formula: '各分析模块中等级为 danger 的风险提示条数',
    inputs: [],
  },
  {
    key: 'warning_count',
    label: '警告级风险数',
    unit: '个',
    formula: '各分析模块中等级为 warning 的风险提示条数',
    inputs: [],
  },
  {
    key: 'info_count',
    label: '提示级风险数',
    unit: '个',
    formula: '各分析模块中等级为 info 的风险提示条数',
    inputs: [],
  },
  {
    key: 'highest_level',
    label: '最高风险等级',
    unit: '个',
    formula: '出现过的最严重等级：danger > warning > info',
    inputs: [],
    note: '文本取值（danger / warning / info），无任何风险提示时为空。',
  },
  {
    key: 'verdict.score',
    label: '综合评分',
    unit: '个',
    formula: '评分卡加权得分（0–100，100为最健康，2位小数），见“Verdict scorecard”',
    inputs: [],
    note: 'verdict = { grade, label, score, provisional, status, provisional_reasons, drivers, data_quality, coverage, history, history_risks, band_sets }。',
  },
  {
    key: 'verdict.grade',
    label: '风险等级',
    unit: '个',
    formula:
      'A ≥ 75 低风险，B ≥ 60 较低风险，C ≥ 45 中等风险，D ≥ 30 较高风险，E < 30 高风险（label 为对应中文）',
    inputs: [],
    note: '文本取值 A–E。',
  },
  {
    key: 'verdict.drivers[].effect',
    label: '因子影响分',
    unit: '个',
    formula:
      '该因子使总分偏离50分（平均值水平）的分数：权重占比 × (因子得分 − 50)；负值表示风险更高。每个 driver 含 slug、key、label、value（因子取值）、unit（%、倍或空）、effect 与 reason（一句话：取值、越过的标准值档位与加减分，如“净资产收益率（归母）24.52%，不低于优秀值10.6%：+9.17分”），按 |effect| 降序，3–5个',
    inputs: [],
  },
  {
    key: 'verdict.provisional',
    label: '评级待定',
    unit: '个',
    formula: `数据核对出现危险级不一致（data_quality.level = unreliable）或评分覆盖低于${MIN_COVERAGE_PCT}%时为 true；status 为“${PROVISIONAL_DATA}”或“${PROVISIONAL_COVERAGE}”（两者皆有时取前者），provisional_reasons 逐条说明原因（code：data_quality / coverage；message 点名不一致或未计分的因子）`,
    inputs: [],
    note: '布尔值；为 false 时 status 为空、provisional_reasons 为空数组。',
  },
  {
    key: 'verdict.data_quality',
    label: '数据质量',
    unit: '个',
    formula:
      '由报表数据核对的风险得出，不参与评分：level 为 reliable（无警告及以上不一致）、questionable（有警告级）或 unreliable（有危险级）；issues 列出每条不一致：slug、code、year、level、message，危险级在前',
    inputs: [],
    note: '数据一致不代表信用良好，数据不一致也不是信用风险：评分卡不含任何核对因子。',
  },
  {
    key: 'verdict.coverage',
    label: '评分覆盖',
    unit: '%',
    formula: `weight_share = 有值因子的权重之和 ÷ 全部权重 × 100；threshold = ${MIN_COVERAGE_PCT}；missing 列出未计分的因子：slug、key、label、weight、requires（计分所需提交的项目）`,
    inputs: [],
    note: '每个未计分因子同时列入 data_gaps（code 为 scorecard.<key>）。',
  },
  {
    key: 'verdict.history[]',
    label: '逐年评级',
    unit: '个',
    formula:
      '每个上一年度也已提交的年度一行：year、grade、label、score、weight_share，按同一评分卡以该年的指标计算；最后一行即本年评级；history_risks 为评级序列的规则：相邻两年下降两级或以上为警告（core_risk_insight.grade_fall）',
    inputs: [],
    note: 'history_risks 属于评级本身，不计入各模块的风险数量。',
  },
  {
    key: 'verdict.band_sets[]',
    label: '标准值来源',
    unit: '个',
    formula:
      '本次计分所用的各套标准值：id、source、edition、year（年份不明时为空）；行业标准值覆盖某因子时优先使用行业值',
    inputs: [],
  },
  {
    key: 'verdict.benchmark[]',
    label: '评分基准',
    unit: '个',
    formula:
      '每个按标准值计分的财务因子一行：slug、key、set_id、set_name、edition、data_year、industry_code、level（group/division/section/all）。已加载的行业基准集覆盖该企业所属行业（中类、大类或门类）及该指标、且给出五档标准值时，以其标准值替代全行业标准值；否则为全行业表（set_id 为空）',
    inputs: [],
    note: '见 docs/benchmarks.md。Altman 分值不参与行业替换，不列入。',
  },
  {
    key: 'scorecard[]',
    label: '评分卡明细',
    unit: '个',
    formula:
      '每个因子一行：slug、key、label、dimension、weight、value、unit、score（0–100，无值为空）、effect、band_set（所用标准值的 id）',
    inputs: [],
  },
  {
    key: 'data_gaps[]',
    label: '数据缺失提示',
    unit: '个',
    formula: '各分析项报告的缺失报表或项目，每种缺失一条：code、message、disables（受影响的分析项 slug）',
    inputs: [],
    note: '数据提示不是风险，不计入任何风险数量。',
  },
  {
    key: 'strengths[]',
    label: '积极信号',
    unit: '个',
    formula: '各分析项报告的积极信号（如 Piotroski F值 ≥ 8、Altman 安全区）：slug、code、message',
    inputs: [],
    note: '不计入任何风险数量。',
  },
  {
    key: 'modules[].total_count',
    label: '模块风险提示数',
    unit: '个',
    formula:
      '该模块的风险提示条数；modules 按报告展示顺序列出全部模块（含无风险提示的模块），并含 danger_count、warning_count、info_count 与 risk_items',
    inputs: [],
  },
  {
    key: 'top_risks[]',
    label: '重点风险',
    unit: '个',
    formula: `按等级 danger > warning > info 排序，同级按模块展示顺序及模块内顺序，取前${CORE_RISK_TOP_N}条；每条含 slug、label、level、code、message`,
    inputs: [],
  },
];
