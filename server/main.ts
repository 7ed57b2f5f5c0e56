/**
 * Entry point: `node server/main.ts` (what the container runs; `npm start` execs it). Reads the environment,
 * starts tracing when configured (before anything it instruments is imported), starts what the role asks for,
 * and stops it gracefully on SIGTERM or SIGINT — exit 0 once everything closed within SHUTDOWN_GRACE_SECONDS,
 * exit 1 if that fails or a second signal insists.
 */
import { enableCompileCache, getCompileCacheDir } from 'node:module';
import { pino } from 'pino';
import { COMPILE_CACHE_DIR, loadConfig } from './config.ts';
import { startTracing } from './observability/tracing.ts';

// Node's on-disk compile cache (V8 code of every module, TypeScript's stripped output included) for the modules
// imported from here on, and — through the environment a worker thread starts with — for the analysis pool's:
// a restart then skips compiling most of the service (≈ 1 s of a 4.4 s start on the VMs of docs/performance.md).
// It lives in the project's node_modules/.cache (not Node's default under the shared temporary directory, where
// another user of the machine could plant code for this process to run) unless NODE_COMPILE_CACHE names a
// directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off. A module whose source changed is compiled again.
enableCompileCache(process.env.NODE_COMPILE_CACHE || COMPILE_CACHE_DIR);
const compileCache = getCompileCacheDir();
if (compileCache) process.env.NODE_COMPILE_CACHE = compileCache;

const config = loadConfig();
const logger = pino({ level: config.logLevel });
const stopTracing = await startTracing(config, logger);
// Imported after tracing started, so koa, pg and node:http are loaded instrumented.
const runtime = await import('./runtime.ts');

try {
  const running = await runtime.startService(config, logger);
  let firstSignalAt = 0;
  const shutdown = (signal: string) => {
    if (running.shuttingDown) {
      // Ctrl-C under `npm start` reaches node twice at once (from the terminal and passed on by npm): only a
      // signal sent again later means "now".
      if (Date.now() - firstSignalAt < 1000) return;
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    firstSignalAt = Date.now();
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    // A backstop: whatever hangs, the process ends shortly after its grace.
    setTimeout(() => {
      logger.error('shutdown exceeded its grace; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 5000).unref();
    running
      .stop()
      .then(() => stopTracing?.())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (error) {
  logger.fatal({ err: error }, 'the service could not start');
  process.exit(1);
}
