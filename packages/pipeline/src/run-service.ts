import { loadConfig } from '@guardagent/config';
import type { Stage } from '@guardagent/queue';
import { initTelemetry, jsonLogger, redactUrl } from '@guardagent/telemetry';
import { createRuntime } from './runtime';
import { reportRedisSettings } from '@guardagent/queue';

/**
 * Entry point of a standalone stage process (`services/<stage>`): workers for the given
 * stages on REDIS_URL; SIGTERM/SIGINT finish in-flight jobs, then exit.
 */
export async function runService(stages: readonly Stage[]): Promise<void> {
  const config = loadConfig();
  const logger = jsonLogger({ service: stages.join('+'), pid: process.pid });
  if (!config.redisUrl) {
    logger.error({}, 'REDIS_URL is not set: a standalone service needs a shared Redis (or run `guardagent up` for everything in one process)');
    process.exit(2);
  }
  const telemetry = initTelemetry({ serviceName: `guardagent-${stages.join('-')}` });
  const runtime = await createRuntime(config, { logger });
  runtime.startWorkers(stages);
  logger.info({ stages, redis: redactUrl(config.redisUrl) }, 'service started');
  await reportRedisSettings(config.redisUrl, logger);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'finishing in-flight jobs');
    await runtime.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

