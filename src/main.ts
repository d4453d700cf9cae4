import 'reflect-metadata';
import { ConfigError, loadProcessConfig } from './config/app-config';
import { Logger } from 'nestjs-pino';
import { createApp, seedDemo } from './bootstrap';
import { installGracefulShutdown } from './graceful-shutdown';

/**
 * Starts the service: validate configuration, create the app, seed the demo, listen, and stop
 * gracefully on SIGTERM/SIGINT.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadProcessConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Invalid configuration: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const app = await createApp(config);
  const demo = await seedDemo(app, config);
  await app.listen(config.port, config.host);
  installGracefulShutdown(app, config.operations.shutdownTimeoutMs, app.get(Logger));
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  process.stdout.write(`\nTableGraph listening on ${base}\n`);
  if (demo && config.production) {
    // CONTRACT.md §8: in production the demo key is never printed.
    process.stdout.write(
      `\nDemo app endpoint: ${base}/api/graphql/${demo.address} (its key is not printed in production; create one with POST /api/admin/api-keys)\n\n`,
    );
  } else if (demo) {
    const endpoint = `${base}/api/graphql/${demo.address}`;
    // Printed once, to standard output only: the key is never logged.
    process.stdout.write(
      `\nDemo app endpoint: ${endpoint}\nDemo API key (shown once): ${demo.key}\nTry it:\n` +
        `curl -s ${endpoint} -H 'content-type: application/json' -H 'x-api-key: ${demo.key}' ` +
        `-d '{"query":"{ getOrders(take: 3, order: [{id: DESC}]) { id status total customer { name } order_lines { quantity product { name } } } }"}'\n\n`,
    );
  }
}

void main();
