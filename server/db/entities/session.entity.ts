import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Account } from './account.entity.ts';

/**
 * A console sign-in. The cookie holds a random token; only its SHA-256 is stored (the id), so a database
 * leak does not leak live sessions. `csrfToken` must accompany every cookie-authenticated write.
 */
export const Session = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: p.string().length(64).primary(),
    account: () => p.manyToOne(Account).deleteRule('cascade').index(),
    csrfToken: p.string().length(64),
    createdAt: p.datetime(),
    expiresAt: p.datetime().index(),
    lastSeenAt: p.datetime(),
  },
});
export type ISession = InferEntity<typeof Session>;
