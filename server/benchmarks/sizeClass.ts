/**
 * 统计上大中小微型企业划分办法（2017）(国家统计局 国统字〔2017〕213号), by the industry of GB/T 4754-2017: the
 * size class of an enterprise from its 从业人员 (X, persons), 营业收入 (Y, 万元) and 资产总额 (Z, 万元). The
 * thresholds are the 办法's table as reproduced e.g. at https://kubaishu.com/life/202393.html. Its rule: 大型,
 * 中型 and 小型 must meet the lower bound of every indicator listed for the industry, else the class below;
 * 微型 needs only one. Simplifications (docs/benchmarks.md): 交通运输业 = 大类 53–58, 仓储业 = 59; 房地产开发经营 and
 * 物业管理 only from a 中类 code (701, 702), other 房地产业 codes fall under 其他未列明行业.
 */
import type { SizeClass } from '../../worker/engine/benchmark.ts';
import type { ParsedIndustryCode } from './gbt4754.ts';

type Measure = 'X' | 'Y' | 'Z';
/** Lower bounds of 大型, 中型, 小型 per measure. */
type Bounds = Partial<Record<Measure, readonly [number, number, number]>>;

interface SizeRule {
  name: string;
  bounds: Bounds;
}

const RULES: Readonly<Record<string, SizeRule>> = {
  agriculture: { name: '农、林、牧、渔业', bounds: { Y: [20000, 500, 50] } },
  industry: { name: '工业', bounds: { X: [1000, 300, 20], Y: [40000, 2000, 300] } },
  construction: { name: '建筑业', bounds: { Y: [80000, 6000, 300], Z: [80000, 5000, 300] } },
  wholesale: { name: '批发业', bounds: { X: [200, 20, 5], Y: [40000, 5000, 1000] } },
  retail: { name: '零售业', bounds: { X: [300, 50, 10], Y: [20000, 500, 100] } },
  transport: { name: '交通运输业', bounds: { X: [1000, 300, 20], Y: [30000, 3000, 200] } },
  warehousing: { name: '仓储业', bounds: { X: [200, 100, 20], Y: [30000, 1000, 100] } },
  postal: { name: '邮政业', bounds: { X: [1000, 300, 20], Y: [30000, 2000, 100] } },
  accommodation: { name: '住宿业', bounds: { X: [300, 100, 10], Y: [10000, 2000, 100] } },
  catering: { name: '餐饮业', bounds: { X: [300, 100, 10], Y: [10000, 2000, 100] } },
  telecom: { name: '信息传输业', bounds: { X: [2000, 100, 10], Y: [100000, 1000, 100] } },
  software: { name: '软件和信息技术服务业', bounds: { X: [300, 100, 10], Y: [10000, 1000, 50] } },
  realEstate: { name: '房地产开发经营', bounds: { Y: [200000, 1000, 100], Z: [10000, 5000, 2000] } },
  property: { name: '物业管理', bounds: { X: [1000, 300, 100], Y: [5000, 1000, 500] } },
  leasing: { name: '租赁和商务服务业', bounds: { X: [300, 100, 10], Z: [120000, 8000, 100] } },
  other: { name: '其他未列明行业', bounds: { X: [300, 100, 10] } },
};

/** The 办法's industry for a resolved GB/T code. */
export function sizeRuleOf(code: ParsedIndustryCode): SizeRule {
  const division = code.division === null ? null : Number(code.division);
  switch (code.section) {
    case 'A':
      return RULES.agriculture!;
    case 'B':
    case 'C':
    case 'D':
      return RULES.industry!;
    case 'E':
      return RULES.construction!;
  }
  if (division === 51) return RULES.wholesale!;
  if (division === 52) return RULES.retail!;
  if (division !== null && division >= 53 && division <= 58) return RULES.transport!;
  if (division === 59) return RULES.warehousing!;
  if (division === 60) return RULES.postal!;
  if (division === 61) return RULES.accommodation!;
  if (division === 62) return RULES.catering!;
  if (division === 63 || division === 64) return RULES.telecom!;
  if (division === 65) return RULES.software!;
  if (code.group === '701') return RULES.realEstate!;
  if (code.group === '702') return RULES.property!;
  if (code.section === 'L') return RULES.leasing!;
  return RULES.other!;
}

const CLASSES: readonly SizeClass[] = ['large', 'medium', 'small'];
const MEASURE_NAMES: Readonly<Record<Measure, string>> = { X: '从业人员', Y: '营业收入', Z: '资产总额' };

/**
 * The size class by the 办法, or null with the reason when a measure the industry needs is missing. Revenue and
 * assets in 万元.
 */
export function classifySize(
  code: ParsedIndustryCode,
  measures: Partial<Record<Measure, number | null>>,
): { value: SizeClass | null; basis: string } {
  const rule = sizeRuleOf(code);
  const needed = Object.keys(rule.bounds) as Measure[];
  const missing = needed.filter((m) => measures[m] === null || measures[m] === undefined);
  if (missing.length > 0)
    return {
      value: null,
      basis: `按《统计上大中小微型企业划分办法（2017）》${rule.name}标准需${missing.map((m) => MEASURE_NAMES[m]).join('、')}，未提供`,
    };
  const index = CLASSES.findIndex((_, i) => needed.every((m) => measures[m]! >= rule.bounds[m]![i]!));
  const value = index === -1 ? 'micro' : CLASSES[index]!;
  const shown = needed.map((m) => `${MEASURE_NAMES[m]}${measures[m]}${m === 'X' ? '人' : '万元'}`).join('、');
  return { value, basis: `《统计上大中小微型企业划分办法（2017）》${rule.name}标准（${shown}）` };
}
