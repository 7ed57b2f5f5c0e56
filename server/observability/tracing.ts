/**
 * The one tracing setup: OpenTelemetry's NodeSDK with the http, koa and pg instrumentations, exporting over
 * OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT` (base URL; traces go to `…/v1/traces`). Off — nothing loaded —
 * when that is unset.
 *
 * It has to start before koa, pg and node:http are first imported (instrumentation patches modules as they
 * load), so main.ts calls it before it imports the runtime. The service runs as ES modules: the loader hook of
 * @opentelemetry/instrumentation (import-in-the-middle) is registered first so ESM imports can be patched too.
 */
import { register } from 'node:module';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';

/** Starts tracing when configured; returns the function that flushes and stops it (null when off). */
export async function startTracing(
  config: Pick<Config, 'otelEndpoint' | 'role'>,
  logger: Logger,
): Promise<(() => Promise<void>) | null> {
  if (!config.otelEndpoint) return null;
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const [
    { NodeSDK },
    { OTLPTraceExporter },
    { HttpInstrumentation },
    { KoaInstrumentation },
    { PgInstrumentation },
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-koa'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  const sdk = new NodeSDK({
    serviceName: `financial-report-analysis-${config.role}`,
    traceExporter: new OTLPTraceExporter({ url: `${config.otelEndpoint.replace(/\/+$/, '')}/v1/traces` }),
    instrumentations: [new HttpInstrumentation(), new KoaInstrumentation(), new PgInstrumentation()],
  });
  sdk.start();
  logger.info({ endpoint: config.otelEndpoint }, 'tracing to OTLP');
  return () => sdk.shutdown();
}
