/**
 * GB/T 4754-2017《国民经济行业分类》: its 20 门类 (A–T) and 97 大类 (01–97), and how an enterprise's stated
 * industry resolves to them. Source: the standard itself (国家质量监督检验检疫总局、国家标准化管理委员会 2017-06-30
 * 发布, 2017-10-01 实施; 20 门类、97 大类); divisions 06–44 are also in /work/shared/benchmarks/
 * gbt4754_2017_industrial_divisions.csv (NBS release tables, S16/S17), the others as listed in the standard's
 * 代码表 (reproduced e.g. at http://crsrw.com/qiyezixun/48983.html). Codes are joined on, never names: names
 * changed between the 2011 and 2017 editions.
 */

/** 门类 letter → name. */
export const GBT4754_SECTIONS: Readonly<Record<string, string>> = {
  A: '农、林、牧、渔业',
  B: '采矿业',
  C: '制造业',
  D: '电力、热力、燃气及水生产和供应业',
  E: '建筑业',
  F: '批发和零售业',
  G: '交通运输、仓储和邮政业',
  H: '住宿和餐饮业',
  I: '信息传输、软件和信息技术服务业',
  J: '金融业',
  K: '房地产业',
  L: '租赁和商务服务业',
  M: '科学研究和技术服务业',
  N: '水利、环境和公共设施管理业',
  O: '居民服务、修理和其他服务业',
  P: '教育',
  Q: '卫生和社会工作',
  R: '文化、体育和娱乐业',
  S: '公共管理、社会保障和社会组织',
  T: '国际组织',
};

/** 门类 → its 大类 (two-digit code, name), in code order. */
const DIVISIONS_BY_SECTION: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  A: [
    ['01', '农业'],
    ['02', '林业'],
    ['03', '畜牧业'],
    ['04', '渔业'],
    ['05', '农、林、牧、渔专业及辅助性活动'],
  ],
  B: [
    ['06', '煤炭开采和洗选业'],
    ['07', '石油和天然气开采业'],
    ['08', '黑色金属矿采选业'],
    ['09', '有色金属矿采选业'],
    ['10', '非金属矿采选业'],
    ['11', '开采专业及辅助性活动'],
    ['12', '其他采矿业'],
  ],
  C: [
    ['13', '农副食品加工业'],
    ['14', '食品制造业'],
    ['15', '酒、饮料和精制茶制造业'],
    ['16', '烟草制品业'],
    ['17', '纺织业'],
    ['18', '纺织服装、服饰业'],
    ['19', '皮革、毛皮、羽毛及其制品和制鞋业'],
    ['20', '木材加工和木、竹、藤、棕、草制品业'],
    ['21', '家具制造业'],
    ['22', '造纸和纸制品业'],
    ['23', '印刷和记录媒介复制业'],
    ['24', '文教、工美、体育和娱乐用品制造业'],
    ['25', '石油、煤炭及其他燃料加工业'],
    ['26', '化学原料和化学制品制造业'],
    ['27', '医药制造业'],
    ['28', '化学纤维制造业'],
    ['29', '橡胶和塑料制品业'],
    ['30', '非金属矿物制品业'],
    ['31', '黑色金属冶炼和压延加工业'],
    ['32', '有色金属冶炼和压延加工业'],
    ['33', '金属制品业'],
    ['34', '通用设备制造业'],
    ['35', '专用设备制造业'],
    ['36', '汽车制造业'],
    ['37', '铁路、船舶、航空航天和其他运输设备制造业'],
    ['38', '电气机械和器材制造业'],
    ['39', '计算机、通信和其他电子设备制造业'],
    ['40', '仪器仪表制造业'],
    ['41', '其他制造业'],
    ['42', '废弃资源综合利用业'],
    ['43', '金属制品、机械和设备修理业'],
  ],
  D: [
    ['44', '电力、热力生产和供应业'],
    ['45', '燃气生产和供应业'],
    ['46', '水的生产和供应业'],
  ],
  E: [
    ['47', '房屋建筑业'],
    ['48', '土木工程建筑业'],
    ['49', '建筑安装业'],
    ['50', '建筑装饰、装修和其他建筑业'],
  ],
  F: [
    ['51', '批发业'],
    ['52', '零售业'],
  ],
  G: [
    ['53', '铁路运输业'],
    ['54', '道路运输业'],
    ['55', '水上运输业'],
    ['56', '航空运输业'],
    ['57', '管道运输业'],
    ['58', '多式联运和运输代理业'],
    ['59', '装卸搬运和仓储业'],
    ['60', '邮政业'],
  ],
  H: [
    ['61', '住宿业'],
    ['62', '餐饮业'],
  ],
  I: [
    ['63', '电信、广播电视和卫星传输服务'],
    ['64', '互联网和相关服务'],
    ['65', '软件和信息技术服务业'],
  ],
  J: [
    ['66', '货币金融服务'],
    ['67', '资本市场服务'],
    ['68', '保险业'],
    ['69', '其他金融业'],
  ],
  K: [['70', '房地产业']],
  L: [
    ['71', '租赁业'],
    ['72', '商务服务业'],
  ],
  M: [
    ['73', '研究和试验发展'],
    ['74', '专业技术服务业'],
    ['75', '科技推广和应用服务业'],
  ],
  N: [
    ['76', '水利管理业'],
    ['77', '生态保护和环境治理业'],
    ['78', '公共设施管理业'],
    ['79', '土地管理业'],
  ],
  O: [
    ['80', '居民服务业'],
    ['81', '机动车、电子产品和日用产品修理业'],
    ['82', '其他服务业'],
  ],
  P: [['83', '教育']],
  Q: [
    ['84', '卫生'],
    ['85', '社会工作'],
  ],
  R: [
    ['86', '新闻和出版业'],
    ['87', '广播、电视、电影和录音制作业'],
    ['88', '文化艺术业'],
    ['89', '体育'],
    ['90', '娱乐业'],
  ],
  S: [
    ['91', '中国共产党机关'],
    ['92', '国家机构'],
    ['93', '人民政协、民主党派'],
    ['94', '社会保障'],
    ['95', '群众团体、社会团体和其他成员组织'],
    ['96', '基层群众自治组织及其他组织'],
  ],
  T: [['97', '国际组织']],
};

export interface Division {
  /** Two digits, e.g. `38`. */
  code: string;
  section: string;
  name: string;
}

/** 大类 code (two digits) → division. */
export const GBT4754_DIVISIONS: ReadonlyMap<string, Division> = new Map(
  Object.entries(DIVISIONS_BY_SECTION).flatMap(([section, list]) =>
    list.map(([code, name]) => [code, { code, section, name }] as const),
  ),
);

/** The benchmark level an industry code names (中类 and 小类 codes are kept as 中类). */
export type IndustryLevel = 'group' | 'division' | 'section' | 'all';

export interface ParsedIndustryCode {
  level: Exclude<IndustryLevel, 'all'>;
  section: string;
  /** Two digits, for a 大类 or 中类 code. */
  division: string | null;
  /** Three digits, for a 中类 code. */
  group: string | null;
  /** The canonical form: `C`, `C38`, `C381`. */
  canonical: string;
}

const CODE = /^([A-Ta-t])?(\d{2,4})?$/;

/**
 * Parses a GB/T 4754-2017 code as a client or a benchmark file writes it: a 门类 letter (`C`), a 大类 (`38` or
 * `C38`), a 中类 (`381`, `C381`) or a 小类 (`3811`, kept as its 中类). Null when it is malformed, names no
 * 大类 of the standard, or its letter is not the 大类's 门类.
 */
export function parseIndustryCode(raw: string): ParsedIndustryCode | null {
  const match = CODE.exec(raw.trim());
  if (!match || (!match[1] && !match[2])) return null;
  const letter = match[1]?.toUpperCase();
  const digits = match[2];
  if (!digits)
    return GBT4754_SECTIONS[letter!]
      ? { level: 'section', section: letter!, division: null, group: null, canonical: letter! }
      : null;
  const division = GBT4754_DIVISIONS.get(digits.slice(0, 2));
  if (!division || (letter && letter !== division.section)) return null;
  const group = digits.length >= 3 ? digits.slice(0, 3) : null;
  return {
    level: group ? 'group' : 'division',
    section: division.section,
    division: division.code,
    group,
    canonical: `${division.section}${group ?? division.code}`,
  };
}

/** A 大类 by its exact 2017 name (a client that sends only the name). */
export function divisionByName(name: string): Division | null {
  const wanted = name.trim();
  for (const division of GBT4754_DIVISIONS.values()) if (division.name === wanted) return division;
  return null;
}

/** A 门类 letter by its exact 2017 name. */
export function sectionByName(name: string): string | null {
  const wanted = name.trim();
  return Object.entries(GBT4754_SECTIONS).find(([, label]) => label === wanted)?.[0] ?? null;
}

/** The display name of a parsed code: the 大类's name for 大类 and 中类 codes, the 门类's for a letter. */
export function industryName(code: ParsedIndustryCode): string {
  return code.division ? GBT4754_DIVISIONS.get(code.division)!.name : GBT4754_SECTIONS[code.section]!;
}
