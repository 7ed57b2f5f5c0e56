/**
 * What the console does over GraphQL, beyond reading reports: who is signed in (`viewer`), the account's API
 * keys (list, create — the full key returned once —, revoke) and a report's share link (public or private,
 * expiry, a new token).
 *
 * All of it needs the console session (GraphQLContext.session): an API key gets FORBIDDEN on these fields,
 * so a leaked key can read and submit reports of its own mode but cannot mint or revoke keys, nor open or
 * close share links. The reports themselves (`reports`, `report`) are the same fields API-key callers use,
 * answered for the account in the console's current mode (X-Console-Mode).
 */
import type { ApiKeyMode, IApiKey } from '../../db/entities/apiKey.entity.ts';
import { API_KEY_MODES } from '../../db/entities/apiKey.entity.ts';
import { ForbiddenError } from '../../errors.ts';
import { rateLimitsOf } from '../../lib/rateLimits.ts';
import { spendBudget } from '../../middlewares/rateLimit.ts';
import { iso, presentReport } from '../../presenters/reportPresenter.ts';
import type { ConsolePrincipal } from '../../services/accounts.ts';
import { createApiKey, listApiKeys, revokeApiKeyById } from '../../services/apiKeys.ts';
import { rotateShareToken, updateShareSettings } from '../../services/shareSettings.ts';
import { builder } from '../builder.ts';
import type { GraphQLContext } from '../context.ts';
import { ReportRef } from './report.ts';

/** The console session, or FORBIDDEN: the one gate of every console-only field. */
function consoleSession(ctx: GraphQLContext): ConsolePrincipal {
  if (!ctx.session) {
    throw new ForbiddenError(
      'forbidden',
      'This needs a console session (sign in at /console); an API key cannot manage keys or share links.',
    );
  }
  return ctx.session;
}

/** A console write (keys, share links): the session, then one point of the `submissions` budget, as any write. */
async function consoleWrite(ctx: GraphQLContext): Promise<ConsolePrincipal> {
  const session = consoleSession(ctx);
  await spendBudget(rateLimitsOf(ctx.services), 'submissions', ctx.principal);
  return session;
}

export const ApiKeyModeEnum = builder.enumType('ApiKeyMode', {
  description: '`test` keys see test reports only, `live` keys live reports only.',
  values: API_KEY_MODES,
});

const ApiKeyStatusEnum = builder.enumType('ApiKeyStatus', {
  description: '`active` until revoked; a revoked key is refused from the next request on.',
  values: ['active', 'revoked'] as const,
});

interface PresentedApiKey {
  id: string;
  name: string;
  mode: ApiKeyMode;
  prefix: string;
  lastFour: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  status: 'active' | 'revoked';
}

/** A key as the console may show it: never the key itself, nor its hash. */
function presentApiKey(key: IApiKey): PresentedApiKey {
  return {
    id: key.id,
    name: key.name,
    mode: key.mode,
    prefix: key.prefix,
    lastFour: key.lastFour,
    createdAt: iso(key.createdAt)!,
    lastUsedAt: iso(key.lastUsedAt),
    revokedAt: iso(key.revokedAt),
    status: key.revokedAt ? 'revoked' : 'active',
  };
}

const ApiKeyRef = builder.objectRef<PresentedApiKey>('ApiKey').implement({
  description: 'An API key of the signed-in account. The full key is shown once, by createApiKey.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    mode: t.expose('mode', { type: ApiKeyModeEnum }),
    prefix: t.exposeString('prefix', {
      description: 'The start of the key: `ek_test_` or `ek_live_` and its first four random characters.',
    }),
    lastFour: t.exposeString('lastFour', { description: 'The last four characters of the key.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Updated at most once a minute; null when never used.',
    }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    status: t.expose('status', { type: ApiKeyStatusEnum }),
  }),
});

const ViewerRef = builder.objectRef<{ email: string; mode: ApiKeyMode }>('Viewer').implement({
  description: 'The signed-in console user.',
  fields: (t) => ({
    email: t.exposeString('email'),
    mode: t.expose('mode', {
      type: ApiKeyModeEnum,
      description: 'The mode this request works in (X-Console-Mode; test when absent).',
    }),
  }),
});

const CreatedApiKeyRef = builder
  .objectRef<{ apiKey: PresentedApiKey; key: string }>('CreatedApiKey')
  .implement({
    fields: (t) => ({
      apiKey: t.expose('apiKey', { type: ApiKeyRef }),
      key: t.exposeString('key', {
        description: 'The full key. Returned here only, once: only its SHA-256 is stored.',
      }),
    }),
  });

builder.queryField('viewer', (t) =>
  t.field({
    type: ViewerRef,
    description: 'The signed-in console user and the mode of this request. Console session only.',
    resolve: (_root, _args, ctx) => ({ email: consoleSession(ctx).email, mode: ctx.principal.mode }),
  }),
);

builder.queryField('apiKeys', (t) =>
  t.field({
    type: [ApiKeyRef],
    description:
      "The account's keys of both modes, newest first, revoked ones included. Console session only.",
    resolve: async (_root, _args, ctx) => {
      const { accountId } = consoleSession(ctx);
      return (await listApiKeys(ctx.services.db.orm.em.fork(), accountId)).map(presentApiKey);
    },
  }),
);

builder.mutationField('createApiKey', (t) =>
  t.field({
    type: CreatedApiKeyRef,
    description:
      'Creates a key; the answer holds the full key, which is never shown again. At most MAX_API_KEYS_PER_MODE ' +
      '(20) active keys per mode: more → TOO_MANY_API_KEYS (revoke one first). Spends the session’s ' +
      '`submissions` budget, as every console write does. Console only.',
    args: {
      name: t.arg.string({ description: 'At most 100 characters; blank → "<mode> key".' }),
      mode: t.arg({ type: ApiKeyModeEnum, required: true }),
    },
    resolve: async (_root, { name, mode }, ctx) => {
      const { accountId } = await consoleWrite(ctx);
      const created = await createApiKey(
        ctx.services.db.orm.em.fork(),
        accountId,
        { mode, name: name ?? undefined },
        ctx.services.config.maxApiKeysPerMode,
      );
      return { apiKey: presentApiKey(created.apiKey), key: created.key };
    },
  }),
);

builder.mutationField('revokeApiKey', (t) =>
  t.field({
    type: ApiKeyRef,
    description:
      "Revokes one of the account's keys: refused from the next request on. Revoking a revoked key changes " +
      'nothing. Another account’s key is NOT_FOUND. Console only.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const { accountId } = await consoleWrite(ctx);
      return presentApiKey(await revokeApiKeyById(ctx.services.db.orm.em.fork(), accountId, String(id)));
    },
  }),
);

builder.mutationField('updateReportShare', (t) =>
  t.field({
    type: ReportRef,
    description:
      'Opens or closes a successful report’s share link, and sets or clears its expiry. An argument left out ' +
      'is left as it is; `expiresAt: null` clears the expiry. Closed and expired links answer 404 at once. ' +
      'REPORT_NOT_READY before the report has succeeded; NOT_FOUND for another account’s report. Console only.',
    args: {
      reportId: t.arg.id({ required: true }),
      isPublic: t.arg.boolean({ description: 'false: the link answers 404 until made public again.' }),
      expiresAt: t.arg({
        type: 'DateTime',
        description: 'A future time after which the link answers 404; null for no expiry.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      const { accountId } = await consoleWrite(ctx);
      // graphql-js leaves an argument that was not given out of `args`; an explicit null is there as null.
      const report = await updateShareSettings(
        ctx.services.db.orm.em.fork(),
        accountId,
        String(args.reportId),
        {
          isPublic: args.isPublic ?? undefined,
          ...('expiresAt' in args ? { expiresAt: args.expiresAt ?? null } : {}),
        },
      );
      return presentReport(report, ctx.services.config.appUrl);
    },
  }),
);

builder.mutationField('rotateShareToken', (t) =>
  t.field({
    type: ReportRef,
    description:
      'Gives a successful report a new share token: the old link answers 404 from now on. Console only.',
    args: { reportId: t.arg.id({ required: true }) },
    resolve: async (_root, { reportId }, ctx) => {
      const { accountId } = await consoleWrite(ctx);
      const report = await rotateShareToken(ctx.services.db.orm.em.fork(), accountId, String(reportId));
      return presentReport(report, ctx.services.config.appUrl);
    },
  }),
);
