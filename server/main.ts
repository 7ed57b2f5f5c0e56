/** Entry point of `npm start`: reads the environment, starts the service, stops it cleanly on SIGINT/SIGTERM. */
import { loadConfig } from './config.ts';
import { createLogger, startService } from './runtime.ts';

const config = loadConfig();
const logger = createLogger(config);

try {
  const running = await startService(config, logger);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (error) {
  logger.fatal({ err: error }, 'the service could not start');
  process.exit(1);
}
