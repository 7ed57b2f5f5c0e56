/**
 * REST for webhook endpoints under /api/v1/developer/webhook-endpoints (added to the developer router, behind its
 * API-key authentication): thin handlers over endpoints.ts.
 */
import type { Router } from '@koa/router';
import { rateLimit } from '../middlewares/rateLimit.ts';
import { jsonBody } from '../rest/jsonBody.ts';
import type { Principal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
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
} from './endpoints.ts';

const SMALL_BODY = 16 * 1024;

export function addWebhookRoutes(router: Router<{ principal: Principal }>, services: ServiceContext): void {
  const base = '/webhook-endpoints';
  const json = jsonBody(SMALL_BODY, services.config.bodyTimeoutMs);
  // Reads spend the key's reads budget; changes (and test events, redeliveries) its submissions budget.
  const reads = rateLimit('reads');
  const writes = rateLimit('submissions');

  router.post(base, writes, json, async (ctx) => {
    const { endpoint, secret } = await createEndpoint(
      services,
      ctx.state.principal,
      ctx.request.body as object,
    );
    ctx.status = 201;
    ctx.set('Location', `/api/v1/developer${base}/${endpoint.id}`);
    ctx.body = { ...presentEndpoint(endpoint), secret };
  });
  router.get(base, reads, async (ctx) => {
    const data = (await listEndpoints(services, ctx.state.principal)).map(presentEndpoint);
    ctx.body = { object: 'list', data };
  });
  router.get(`${base}/:id`, reads, async (ctx) => {
    ctx.body = presentEndpoint(await getEndpoint(services, ctx.state.principal, ctx.params.id!));
  });
  router.patch(`${base}/:id`, writes, json, async (ctx) => {
    const input = ctx.request.body as object;
    ctx.body = presentEndpoint(await updateEndpoint(services, ctx.state.principal, ctx.params.id!, input));
  });
  router.delete(`${base}/:id`, writes, async (ctx) => {
    await deleteEndpoint(services, ctx.state.principal, ctx.params.id!);
    ctx.status = 204;
  });
  router.post(`${base}/:id/test`, writes, async (ctx) => {
    ctx.status = 202;
    ctx.body = presentDelivery(await sendTestEvent(services, ctx.state.principal, ctx.params.id!));
  });
  router.post(`${base}/:id/rotate-secret`, writes, async (ctx) => {
    const { endpoint, secret } = await rotateSecret(services, ctx.state.principal, ctx.params.id!);
    ctx.body = { ...presentEndpoint(endpoint), secret };
  });
  router.get(`${base}/:id/deliveries`, reads, async (ctx) => {
    const data = (await listDeliveries(services, ctx.state.principal, ctx.params.id!)).map((d) =>
      presentDelivery(d),
    );
    ctx.body = { object: 'list', data };
  });
  router.get(`${base}/:id/deliveries/:deliveryId`, reads, async (ctx) => {
    const { delivery, attempts } = await getDelivery(
      services,
      ctx.state.principal,
      ctx.params.id!,
      ctx.params.deliveryId!,
    );
    ctx.body = presentDelivery(delivery, attempts);
  });
  router.post(`${base}/:id/deliveries/:deliveryId/redeliver`, writes, async (ctx) => {
    ctx.status = 202;
    ctx.body = presentDelivery(
      await redeliver(services, ctx.state.principal, ctx.params.id!, ctx.params.deliveryId!),
    );
  });
}
