import 'reflect-metadata';
import { ConfigError, loadProcessConfig } from './config/app-config';
import { createApp, seedDemo } from './bootstrap';

/** Starts the service: validate configuration, create the app, seed the demo, listen. */
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
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  process.stdout.write(`\nTableGraph listening on ${base}\n`);
  if (demo) {
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
