/**
 * PostGraphile 5 as a bench peer (issue 25): `bench/peers/node_modules/.bin/node bench/peers/v5.mjs
 * <postgres url> <port>` (Node 22 from the `node` package: PostGraphile 5 needs it), run by
 * bench/peers.js as a child process. The amber preset and the connection-filter preset on the
 * `public` schema, a pg pool of 10 connections as the floor's, no watch, no explain, no GraphiQL.
 * Answers POST /graphql.
 */
import { createServer } from 'node:http';
import pg from 'pg';
import { postgraphile } from 'postgraphile';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileConnectionFilterPreset } from 'postgraphile-plugin-connection-filter';

const [url, port] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 10 });
const preset = {
  extends: [PostGraphileAmberPreset, PostGraphileConnectionFilterPreset],
  // Filter and order by every column, as PostGraphile 4 does by default (v5 offers only indexed
  // columns otherwise: Q1 filters on the unindexed total).
  disablePlugins: ['PgIndexBehaviorsPlugin'],
  pgServices: [makePgService({ pool, schemas: ['public'] })],
  grafserv: { port: Number(port), host: '127.0.0.1', graphqlPath: '/graphql', graphiql: false, watch: false },
  grafast: { explain: false },
};
const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = createServer();
server.once('listening', () => process.send?.('ready'));
serv.addTo(server).then(() => server.listen(Number(port), '127.0.0.1'));
