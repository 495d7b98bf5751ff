import { loadConfig, readEnv } from '@guardagent/config';
import { errorMessage } from '@guardagent/errors';
import { initTelemetry, jsonLogger, redactUrl } from '@guardagent/telemetry';
import { startGateway } from './start-gateway';
import { reportRedisSettings } from '@guardagent/queue';

// The gateway alone: `node services/gateway/dist/main.js` (REDIS_URL required).
const logger = jsonLogger({ service: 'gateway', pid: process.pid });
const config = loadConfig();
if (!config.redisUrl) {
  logger.error({}, 'REDIS_URL is not set: the gateway needs the Redis its workers use');
  process.exit(2);
}
const telemetry = initTelemetry({ serviceName: 'guardagent-gateway' });
const host = readEnv('gatewayHost') ?? '0.0.0.0';
try {
  const gateway = await startGateway({ config, host, logger });
  logger.info({ port: gateway.port, host, redis: redactUrl(config.redisUrl) }, 'gateway listening (docs at /docs)');
  await reportRedisSettings(config.redisUrl, logger);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'gateway stopping');
    await gateway.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
} catch (error) {
  logger.error({ err: errorMessage(error) }, 'gateway failed to start');
  process.exit(1);
}
