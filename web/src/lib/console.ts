/**
 * The console's pure helpers (no DOM, no requests; unit-tested): labels, how a key is shown, share-link
 * states, and the expiry picker's Beijing-time conversions.
 */

export type ConsoleMode = 'test' | 'live';

export const MODE_LABELS: Record<ConsoleMode, string> = { test: '测试', live: '正式' };
export const REPORT_STATUS_LABELS: Record<string, string> = {
  pending: '分析中',
  success: '已完成',
  failed: '失败',
};

export function isConsoleMode(value: unknown): value is ConsoleMode {
  return value === 'test' || value === 'live';
}

/** A key as the list shows it: its prefix and its last four characters, never more. */
export function maskedKey(key: { prefix: string; lastFour: string }): string {
  return `${key.prefix}…${key.lastFour}`;
}

export interface ShareState {
  isPublic: boolean;
  shareExpiresAt: string | null;
}

/** Whether the link opens now, and why not: the owner sees the same rules the share endpoint applies. */
export function shareStatus(share: ShareState, now = Date.now()): 'public' | 'private' | 'expired' {
  if (!share.isPublic) return 'private';
  if (share.shareExpiresAt && new Date(share.shareExpiresAt).getTime() <= now) return 'expired';
  return 'public';
}

export const SHARE_STATUS_LABELS = { public: '公开', private: '私密', expired: '已过期' } as const;

/**
 * The expiry picker works in Beijing time (UTC+8, no daylight saving), as every time in the console and the
 * share page is shown: what the owner picks is what the page says, whatever the browser's own time zone.
 */
const BEIJING_OFFSET_MS = 8 * 3600 * 1000;
const LOCAL_INPUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/** `2026-12-01T18:00` (a datetime-local value, Beijing time) → ISO 8601 UTC; null when not such a value. */
export function beijingInputToIso(value: string): string | null {
  const match = LOCAL_INPUT.exec(value.trim());
  if (!match) return null;
  const [, y, mo, d, h, mi] = match.map(Number) as [number, number, number, number, number, number];
  const utc = Date.UTC(y, mo - 1, d, h, mi) - BEIJING_OFFSET_MS;
  const check = new Date(utc + BEIJING_OFFSET_MS);
  // Reject dates that do not exist (2026-02-30), which Date.UTC would roll over silently.
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  return new Date(utc).toISOString();
}

/** ISO 8601 → the datetime-local value showing it in Beijing time (`2026-12-01T18:00`). */
export function isoToBeijingInput(iso: string | Date): string {
  const shifted = new Date(new Date(iso).getTime() + BEIJING_OFFSET_MS);
  return shifted.toISOString().slice(0, 16);
}

/** Where the sign-in page may send the user back to: console pages only (no open redirect). */
export function safeRedirect(value: unknown): string {
  return typeof value === 'string' && /^\/console(\/[\w\-/]*)?$/.test(value) ? value : '/console';
}

/** Under every new-password field: what the server's password rules ask for (server/services/accounts.ts). */
export const PASSWORD_HINT = '至少 10 个字符；避免常见密码、重复字符和与邮箱相同的内容。';
