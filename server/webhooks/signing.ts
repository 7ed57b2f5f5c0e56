/**
 * Standard Webhooks signatures, made by the `standardwebhooks` package (the reference implementation receivers
 * verify with): `webhook-signature` is `v1,<base64 HMAC-SHA256 of "id.timestamp.body" keyed by the secret's
 * bytes>`; during a rotation's grace period it lists a signature per secret, space-separated, and a receiver
 * holding either secret verifies.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: Date,
  body: string,
): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body)).join(' ');
}
