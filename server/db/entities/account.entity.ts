import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/** A tenant: owns API keys, enterprises and reports. Console users sign in with email and password. */
export const Account = defineEntity({
  name: 'Account',
  tableName: 'accounts',
  properties: {
    id: p.uuid().primary(),
    email: p.string().length(320).unique(),
    // argon2id hash; null until the account signs up through the console (accounts made by the CLI have none).
    passwordHash: p.text().nullable(),
    // When the password was last set (sign-up, change, reset); null for accounts older than the column.
    passwordChangedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type IAccount = InferEntity<typeof Account>;
