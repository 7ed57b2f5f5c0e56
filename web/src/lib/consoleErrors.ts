/**
 * What the console says when a request fails: the API's error codes in Chinese, with the API's own message
 * kept for anything not listed (so nothing is hidden from the user).
 */
import { ConsoleApiError } from '../api/console.ts';

const FIELD_MESSAGES: Record<string, string> = {
  email: '请输入有效的邮箱地址',
  password: '密码长度需为 10–200 个字符',
  new_password: '新密码长度需为 10–200 个字符',
  current_password: '当前密码不正确',
  name: '名称不能超过 100 个字符',
  expiresAt: '有效期须晚于当前时间',
};

const CODE_MESSAGES: Record<string, string> = {
  email_taken: '该邮箱已注册，请直接登录。',
  csrf_failed: '请求未通过安全校验，请刷新页面后重试。',
  forbidden: '没有权限执行此操作。',
  not_found: '记录不存在，或已不属于当前账号。',
  report_not_ready: '报告分析完成后才能设置分享链接。',
  network_error: '无法连接服务器，请检查网络后重试。',
  internal_server_error: '服务器出错了，请稍后重试。',
  internal_error: '服务器出错了，请稍后重试。',
};

/** One field's problem in Chinese: the API's own words when they are Chinese (the password rules'), else ours. */
export function fieldMessage(problem: { path: string; message: string }): string {
  if (/[\u4e00-\u9fff]/.test(problem.message)) return problem.message;
  if (problem.path === 'new_password' && /differ/.test(problem.message)) return '新密码不能与当前密码相同';
  return FIELD_MESSAGES[problem.path] ?? `${problem.path}：${problem.message}`;
}

/** A sentence for the user; `context` says what failed ("登录", "创建密钥"). */
export function describeError(error: unknown, context?: 'login' | 'signup'): string {
  if (!(error instanceof ConsoleApiError)) return error instanceof Error ? error.message : String(error);
  if (error.code === 'unauthenticated') {
    return context === 'login' ? '邮箱或密码不正确。' : '登录已过期，请重新登录。';
  }
  if (error.code === 'too_many_requests') {
    const wait = error.retryAfter ? `请在 ${Math.ceil(error.retryAfter / 60)} 分钟后重试。` : '请稍后重试。';
    return `尝试次数过多，${wait}`;
  }
  if (error.code === 'validation_failed' && error.fieldErrors.length > 0) {
    return `${error.fieldErrors.map(fieldMessage).join('；')}。`;
  }
  return CODE_MESSAGES[error.code] ?? `请求失败：${error.message}`;
}
