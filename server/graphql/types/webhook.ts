/**
 * Webhook endpoints and their delivery log over GraphQL (REST: /api/v1/developer/webhook-endpoints): the same
 * services and presenters (server/webhooks/), with an API key or a console session (its account and mode).
 */
import { rateLimitsOf } from '../../lib/rateLimits.ts';
import { spendBudget } from '../../middlewares/rateLimit.ts';
import {
  createEndpoint,
  deleteEndpoint,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  presentDelivery,
  presentEndpoint,
  redeliver,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from '../../webhooks/endpoints.ts';
import { builder } from '../builder.ts';
import type { GraphQLContext } from '../context.ts';

type Endpoint = ReturnType<typeof presentEndpoint>;
type Delivery = ReturnType<typeof presentDelivery>;
type Attempt = NonNullable<Delivery['attempt_log']>[number];

const WebhookEndpointRef = builder.objectRef<Endpoint>('WebhookEndpoint').implement({
  description: 'A URL that receives signed report.succeeded / report.failed events (docs/webhooks.md).',
  fields: (t) => ({
    id: t.exposeID('id'),
    url: t.exposeString('url'),
    description: t.exposeString('description', { nullable: true }),
    enabled: t.exposeBoolean('enabled'),
    disabledReason: t.exposeString('disabled_reason', {
      nullable: true,
      description:
        'Why the service disabled it: a 410 answer, the revocation of the API key that created it, or a password ' +
        'change (created by another console session).',
    }),
    mode: t.exposeString('mode'),
    events: t.exposeStringList('events'),
    previousSecretExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Until when the secret before the last rotation still signs.',
      resolve: (e) => e.previous_secret_expires_at,
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (e) => e.created_at }),
    updatedAt: t.field({ type: 'DateTime', resolve: (e) => e.updated_at }),
  }),
});

const WebhookEndpointWithSecretRef = builder
  .objectRef<{ endpoint: Endpoint; secret: string }>('WebhookEndpointWithSecret')
  .implement({
    description:
      'An endpoint and its signing secret: returned only when it is created or its secret rotated.',
    fields: (t) => ({
      endpoint: t.field({ type: WebhookEndpointRef, resolve: (r) => r.endpoint }),
      secret: t.exposeString('secret', { description: 'whsec_…: shown once.' }),
    }),
  });

const WebhookAttemptRef = builder.objectRef<Attempt>('WebhookAttempt').implement({
  fields: (t) => ({
    attempt: t.exposeInt('attempt'),
    attemptedAt: t.field({ type: 'DateTime', resolve: (a) => a.attempted_at }),
    statusCode: t.exposeInt('status_code', { nullable: true }),
    latencyMs: t.exposeInt('latency_ms'),
    error: t.exposeString('error', { nullable: true }),
  }),
});

const WebhookDeliveryRef = builder.objectRef<Delivery>('WebhookDelivery').implement({
  description: 'One event for one endpoint, with its attempts (the same webhook-id on every attempt).',
  fields: (t) => ({
    id: t.exposeID('id'),
    endpointId: t.exposeID('endpoint_id'),
    eventType: t.exposeString('event_type'),
    payload: t.field({ type: 'JSON', resolve: (d) => d.payload }),
    status: t.exposeString('status', { description: 'pending, delivered or failed.' }),
    attempts: t.exposeInt('attempts'),
    lastStatusCode: t.exposeInt('last_status_code', { nullable: true }),
    lastLatencyMs: t.exposeInt('last_latency_ms', { nullable: true }),
    lastError: t.exposeString('last_error', { nullable: true }),
    nextAttemptAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.next_attempt_at }),
    createdAt: t.field({ type: 'DateTime', resolve: (d) => d.created_at }),
    deliveredAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.delivered_at }),
    attemptLog: t.field({
      type: [WebhookAttemptRef],
      nullable: true,
      description: 'Every attempt; only when one delivery is read (webhookDelivery).',
      resolve: (d) => d.attempt_log ?? null,
    }),
  }),
});

const WebhookEndpointInput = builder.inputType('WebhookEndpointInput', {
  fields: (t) => ({
    url: t.string({ description: 'Required when creating; http(s), https for live mode.' }),
    description: t.string(),
    enabled: t.boolean(),
  }),
});

/** GraphQL's nulls for "not given" become undefined for the service (which treats null description as clearing). */
function endpointInput(input: {
  url?: string | null;
  description?: string | null;
  enabled?: boolean | null;
}) {
  return {
    ...(input.url != null ? { url: input.url } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.enabled != null ? { enabled: input.enabled } : {}),
  };
}

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: [WebhookEndpointRef],
    description: 'The webhook endpoints of the caller’s account and mode, newest first.',
    resolve: async (_root, _args, ctx) =>
      (await listEndpoints(ctx.services, ctx.principal)).map(presentEndpoint),
  }),
  webhookEndpoint: t.field({
    type: WebhookEndpointRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) =>
      presentEndpoint(await getEndpoint(ctx.services, ctx.principal, String(id))),
  }),
  webhookDeliveries: t.field({
    type: [WebhookDeliveryRef],
    description: 'The endpoint’s latest 50 deliveries, newest first.',
    args: { endpointId: t.arg.id({ required: true }) },
    resolve: async (_root, { endpointId }, ctx) =>
      (await listDeliveries(ctx.services, ctx.principal, String(endpointId))).map((d) => presentDelivery(d)),
  }),
  webhookDelivery: t.field({
    type: WebhookDeliveryRef,
    args: { endpointId: t.arg.id({ required: true }), deliveryId: t.arg.id({ required: true }) },
    resolve: async (_root, { endpointId, deliveryId }, ctx) => {
      const { delivery, attempts } = await getDelivery(
        ctx.services,
        ctx.principal,
        String(endpointId),
        String(deliveryId),
      );
      return presentDelivery(delivery, attempts);
    },
  }),
}));

/** Every webhook mutation field spends the `submissions` budget, as its REST twin does (each alias counts). */
async function spendSubmissions(ctx: GraphQLContext): Promise<void> {
  await spendBudget(rateLimitsOf(ctx.services), 'submissions', ctx.principal);
}

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookEndpointWithSecretRef,
    args: { input: t.arg({ type: WebhookEndpointInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      await spendSubmissions(ctx);
      const { endpoint, secret } = await createEndpoint(ctx.services, ctx.principal, endpointInput(input));
      return { endpoint: presentEndpoint(endpoint), secret };
    },
  }),
  updateWebhookEndpoint: t.field({
    type: WebhookEndpointRef,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: WebhookEndpointInput, required: true }) },
    resolve: async (_root, { id, input }, ctx) => {
      await spendSubmissions(ctx);
      return presentEndpoint(
        await updateEndpoint(ctx.services, ctx.principal, String(id), endpointInput(input)),
      );
    },
  }),
  deleteWebhookEndpoint: t.id({
    description: 'Deletes the endpoint and its delivery log; returns its id.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      await spendSubmissions(ctx);
      await deleteEndpoint(ctx.services, ctx.principal, String(id));
      return String(id);
    },
  }),
  testWebhookEndpoint: t.field({
    type: WebhookDeliveryRef,
    description:
      'Sends a webhook.test event now. At most WEBHOOK_TEST_EVENTS_PER_MINUTE (10) per account per minute, and ' +
      'none while the account has WEBHOOK_MAX_PENDING_DELIVERIES (100) deliveries pending: TOO_MANY_REQUESTS.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      await spendSubmissions(ctx);
      return presentDelivery(await sendTestEvent(ctx.services, ctx.principal, String(id)));
    },
  }),
  rotateWebhookEndpointSecret: t.field({
    type: WebhookEndpointWithSecretRef,
    description: 'A new secret; the old one keeps signing (beside it) for 24 hours.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      await spendSubmissions(ctx);
      const { endpoint, secret } = await rotateSecret(ctx.services, ctx.principal, String(id));
      return { endpoint: presentEndpoint(endpoint), secret };
    },
  }),
  redeliverWebhook: t.field({
    type: WebhookDeliveryRef,
    description:
      'Sends a delivery again now (same webhook-id); refused (TOO_MANY_REQUESTS) while the account has ' +
      'WEBHOOK_MAX_PENDING_DELIVERIES (100) deliveries pending.',
    args: { endpointId: t.arg.id({ required: true }), deliveryId: t.arg.id({ required: true }) },
    resolve: async (_root, { endpointId, deliveryId }, ctx) => {
      await spendSubmissions(ctx);
      return presentDelivery(
        await redeliver(ctx.services, ctx.principal, String(endpointId), String(deliveryId)),
      );
    },
  }),
}));
