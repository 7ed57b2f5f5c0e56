/**
 * What the console says when a request fails, always in Chinese: every problem `code` the API can return
 * (server/errors.ts, schema/openapi.yaml; test/unit/consoleErrors.test.ts checks the list against both) has its
 * sentence, and each field problem is translated from the API's English by its field and its wording. The
 * API's own English never reaches the page; an unknown code (a newer server) still reads as Chinese, with the
 * code for support.
 */
import { ConsoleApiError } from '../api/console.ts';

/** The console's sentence for each problem code. */
export const CODE_MESSAGES: Readonly<Record<string, string>> = {
  validation_failed: '提交的内容有误，请检查后重试。',
  malformed_json: '请求内容格式有误，请刷新页面后重试。',
  unsupported_media_type: '请求格式不受支持，请刷新页面后重试。',
  unsupported_content_encoding: '请求的压缩格式不受支持，请刷新页面后重试。',
  invalid_header: '请求头有误，请刷新页面后重试。',
  request_timeout: '请求超时，请稍后重试。',
  payload_too_large: '提交的内容过大。',
  unauthenticated: '登录已过期，请重新登录。',
  forbidden: '没有权限执行此操作。',
  csrf_failed: '请求未通过安全校验，请刷新页面后重试。',
  not_found: '记录不存在，或已不属于当前账号。',
  analysis_item_not_found: '该分析项目不存在。',
  route_not_found: '请求的接口不存在，请刷新页面后重试。',
  report_not_ready: '报告分析完成后才能设置分享链接。',
  email_taken: '该邮箱已注册，请直接登录。',
  idempotency_key_in_use: '相同的请求正在处理中，请稍候。',
  idempotency_key_reused: '该请求编号已用于另一项不同的提交。',
  too_many_requests: '请求过于频繁，请稍后重试。',
  queue_full: '待分析的报告过多，请稍后重试。',
  service_unavailable: '服务暂时不可用，请稍后重试。',
  internal_error: '服务器出错了，请稍后重试。',
  internal_server_error: '服务器出错了，请稍后重试。',
  network_error: '无法连接服务器，请检查网络后重试。',
  web_app_not_built: '控制台页面尚未构建，请联系服务管理员。',
  too_many_api_keys: '该账号的有效密钥已达上限，请先吊销不再使用的密钥。',
  industry_code_unknown: '行业代码无法识别，行业对标将采用上一级行业或全行业基准。',
  benchmark_set_exists: '同名同版本的基准集已存在；新版本请使用新的版本号。',
  benchmark_set_builtin: '内置基准集不能修改或停用。',
  import_no_files: '请选择要导入的报表文件。',
  import_too_many_files: '一次导入的文件过多，请减少后重试。',
  import_file_too_large: '文件过大，请拆分后重试。',
  import_unsupported_format: '文件格式不受支持，请另存为工作簿或逗号分隔文件后重试（见导入页说明）。',
  import_macros_refused: '文件含有宏（不会被执行），请在表格软件中另存为不含宏的工作簿后重试。',
  import_archive_too_large: '文件解压后过大或内容条目过多，请检查文件后重试。',
  import_malformed_file: '文件已损坏或无法读取，请检查后重试。',
  import_no_statements: '文件中未找到可识别的财务报表。',
  import_year_missing: '未能从文件中读出报表年度，请填写年度后重试。',
};

/** The fields the console's forms send, by the API's path. */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  email: '邮箱',
  password: '密码',
  new_password: '新密码',
  current_password: '当前密码',
  name: '名称',
  expiresAt: '有效期',
  mode: '密钥类型',
  url: '接收地址',
  description: '描述',
  enabled: '启用状态',
  limit: '每页条数',
  first: '每页条数',
  status: '状态',
  'filter.nameContains': '名称筛选',
  file: '文件',
  data_year: '数据年度',
  submit: '提交选项',
  enterprise_name: '企业名称',
  year: '报表年度',
  '': '提交的内容',
};

/** A field's problem whatever its wording (kept from before: the forms' own rules). */
const FIELD_MESSAGES: Readonly<Record<string, string>> = {
  email: '请输入有效的邮箱地址',
  password: '密码长度需为 10–200 个字符',
  new_password: '新密码长度需为 10–200 个字符',
  current_password: '当前密码不正确',
  name: '名称不能超过 100 个字符',
  expiresAt: '有效期须晚于当前时间',
};

/** The API's English wordings, most specific first; `$1` takes the first captured number. */
const WORDINGS: ReadonlyArray<[RegExp, string]> = [
  [/loopback|private|link-local|reserved/, '指向本机、内网或保留地址，不能用作接收地址'],
  [/does not resolve/, '的域名无法解析，请检查拼写'],
  [/absolute http\(s\) URL/, '须为完整的 http(s) 地址，如 https://example.com/hooks'],
  [/https for a live endpoint/, '正式（live）环境须使用 https 地址'],
  [/must use https/, '须以 https:// 或 http:// 开头'],
  [/credentials/, '不能包含用户名或密码'],
  [/at most (\d+) characters/, '不能超过 $1 个字符'],
  [/integer from (\d+) to (\d+)/, '须为 $1 到 $2 之间的整数'],
  [/is required/, '为必填项'],
  [/not a known field/, '不是可识别的字段'],
  [/must be a boolean/, '须为“是”或“否”'],
  [/no account has this email/, '尚未注册'],
  [/is not correct/, '不正确'],
  [/must be an email address/, '不是有效的邮箱地址'],
  [/must differ/, '不能与当前密码相同'],
  [/must be given once/, '只能填写一次'],
  [/not the id of a report/, '不是当前密钥下的报告'],
  [/must be "test" or "live"/, '须为测试（test）或正式（live）'],
  [/must be one of/, '的取值无效'],
  [/a year (?:between|from) (\d+) (?:and|to) (\d+)/, '须为 $1 到 $2 之间的年份'],
  [/must be true or false/, '须为“是”或“否”'],
  [/no rows/, '没有数据行（只有表头）'],
  [/must be an object/, '格式有误'],
];

/** One field's problem in Chinese: the API's own words when they are Chinese (the password rules'), else ours. */
export function fieldMessage(problem: { path: string; message: string }): string {
  if (/[\u4e00-\u9fff]/.test(problem.message)) return problem.message;
  const label = FIELD_LABELS[problem.path] ?? problem.path;
  const specific = /no account has this email|must differ/.test(problem.message);
  if (!specific && FIELD_MESSAGES[problem.path]) return FIELD_MESSAGES[problem.path]!;
  for (const [wording, chinese] of WORDINGS) {
    const match = wording.exec(problem.message);
    if (match) return `${label}${chinese.replace('$1', match[1] ?? '').replace('$2', match[2] ?? '')}`;
  }
  return `${label}填写有误`;
}

/** A sentence for the user; `context` says what failed ("登录", "创建密钥"). */
export function describeError(error: unknown, context?: 'login' | 'signup'): string {
  if (!(error instanceof ConsoleApiError)) return '操作未能完成，请稍后重试。';
  if (error.code === 'unauthenticated' && context === 'login') return '邮箱或密码不正确。';
  if (error.code === 'too_many_requests') {
    const wait = error.retryAfter ? `请在 ${Math.ceil(error.retryAfter / 60)} 分钟后重试。` : '请稍后重试。';
    return `尝试次数过多，${wait}`;
  }
  if (error.code === 'validation_failed' && error.fieldErrors.length > 0) {
    return `${error.fieldErrors.map(fieldMessage).join('；')}。`;
  }
  return CODE_MESSAGES[error.code] ?? `请求未能完成（错误代码 ${error.code}），请稍后重试。`;
}
