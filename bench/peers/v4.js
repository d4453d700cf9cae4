'use strict';
/**
 * PostGraphile 4 as a bench peer (issue 25): `node bench/peers/v4.js <postgres url> <port>`, run
 * by bench/peers.js as a child process so its CPU time is its own. The `public` schema with the
 * connection-filter plugin (Q1–Q3 filter on `total > 100`), a pg pool of 10 connections as the
 * floor's, production settings: no query log, no watch, no GraphiQL. Answers POST /graphql.
 */
const http = require('node:http');
const Module = require('node:module');
const { dirname } = require('node:path');

// PostGraphile 4 runs on graphql 15 (nested under postgraphile4/); PostGraphile 5's graphql 16 is
// the folder's top-level one, which a hoisted dependency of v4 (graphql-parse-resolve-info) would
// otherwise load beside it ("Cannot use GraphQLList from another module or realm"). Every
// `graphql` of this process resolves from postgraphile4's folder.
const v4Folder = dirname(require.resolve('postgraphile4/package.json'));
const v4Parent = new Module(`${v4Folder}/index.js`);
v4Parent.filename = v4Parent.id;
v4Parent.paths = Module._nodeModulePaths(v4Folder);
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const graphql = request === 'graphql' || request.startsWith('graphql/');
  return resolveFilename.call(this, request, graphql ? v4Parent : parent, ...rest);
};
const { Pool } = require('pg');
const { postgraphile } = require('postgraphile4');
const ConnectionFilterPlugin = require('postgraphile4-plugin-connection-filter');

const [url, port] = process.argv.slice(2);
const pool = new Pool({ connectionString: url, max: 10 });
const handler = postgraphile(pool, 'public', {
  appendPlugins: [ConnectionFilterPlugin],
  disableQueryLog: true,
  watchPg: false,
  graphiql: false,
  retryOnInitFail: false,
  extendedErrors: [],
  setofFunctionsContainNulls: false,
});
http.createServer(handler).listen(Number(port), '127.0.0.1', () => process.send?.('ready'));
