import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Account } from './account.entity.ts';

export const API_KEY_MODES = ['test', 'live'] as const;
export type ApiKeyMode = (typeof API_KEY_MODES)[number];

/**
 * An API key. Only the SHA-256 of the key is stored: keys carry ≥ 190 bits of randomness, so a fast hash
 * is safe against guessing and lets every request find its key with one indexed lookup.
 */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(Account).deleteRule('cascade').index(),
    name: p.string().length(100),
    mode: p.enum(API_KEY_MODES),
    /** What the console may show: `ek_test_Ab3d…` (the mode prefix plus the first four random characters). */
    prefix: p.string().length(16),
    lastFour: p.string().length(4),
    keyHash: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type IApiKey = InferEntity<typeof ApiKey>;
