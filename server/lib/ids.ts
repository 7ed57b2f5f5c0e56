import { randomBytes } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids in paths are UUIDs; anything else cannot name a record, so callers answer 404 without a query. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A URL-safe random token: `bytes` bytes of randomness, base64url without padding. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/** A report's share token: 32 random bytes → 43 URL-safe characters (256 bits). */
export function newShareToken(): string {
  return randomToken(32);
}
