'use strict';
/**
 * `node --expose-gc bench/schema-build.js [tables…]` (after `npx tsc -p tsconfig.build.json`):
 * what one app's schema costs, by model size. For a synthetic model of T tables (8 columns each,
 * a foreign key to the previous table) with one Table API per table (every action on), prints the
 * milliseconds to build the version's types, to derive one audience's schema from them and to
 * validate it, and the heap each retains (after full collections), beside the schema cache's
 * estimate of it (`schemaBytes` in schema-provider.service.ts, whose weights come from these
 * figures; schemas trimmed as the cache trims them, `trimSchema`). Many copies of each model are
 * built and kept (~150 MB in all), so the heap per copy is not the noise of one collection.
 * `node --expose-gc bench/schema-build.js <dir>/definition.json` measures a definition document
 * instead (the one `BENCH_HEAP_SNAPSHOT_DIR` makes bench/many-apps.js write), seen by anonymous
 * callers as in that bench; a number is a synthetic model of that many tables.
 */
const { validateSchema } = require('graphql');
const { VersionTypes } = require('../dist/src/graphql-gateway/schema-builder');
const { readFileSync } = require('node:fs');
const { BUILDER, PUBLISHED, audienceOf } = require('../dist/src/graphql-gateway/request/audience');
const { schemaBytes } = require('../dist/src/graphql-gateway/schema-provider.service');
const { trimSchema } = require('../dist/src/graphql-gateway/schema-footprint');

const column = (name, kind, extra = {}) => ({
  name, dbType: kind, kind, nullable: true, hasDefault: false, generated: false, maxLength: null, enum: null, ...extra,
});
function definition(tables) {
  const model = Array.from({ length: tables }, (_, i) => ({
    name: `t${i}`, dbName: `t${i}`, schema: 'public', datasourceId: 'ds1', active: true,
    columns: [
      column('id', 'int', { nullable: false, generated: true }),
      column('parent_id', 'int'), column('name', 'text'), column('note', 'text'), column('amount', 'decimal'),
      column('placed_at', 'datetime'), column('flag', 'boolean'), column('qty', 'int'),
    ],
    primaryKey: ['id'],
    foreignKeys: i ? [{ columns: ['parent_id'], referencedSchema: 'public', referencedTable: `t${i - 1}`, referencedColumns: ['id'] }] : [],
  }));
  const all = { select: true, insert: true, update: true, delete: true };
  const apis = model.map((t) => ({
    id: `api-${t.name}`, name: t.name, table: t.name, actions: all, public: all, fields: null, status: 'published',
    createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
  }));
  return { tables: model, enums: [], apis, permissions: {} };
}
const heap = () => { global.gc(); global.gc(); return process.memoryUsage().heapUsed; };
const ms = (f) => { const t = process.hrtime.bigint(); const r = f(); return [r, Number(process.hrtime.bigint() - t) / 1e6]; };
const kib = (bytes) => Math.round(bytes / 1024);

/** An audience's schema as the cache makes it: derived, trimmed, validated. */
function view(types, audience) {
  const built = types.schemaFor(audience);
  trimSchema(built.schema);
  const errors = validateSchema(built.schema);
  if (errors.length) throw new Error(errors[0].message);
  return built;
}

const synthetic = (n) => [`${n} tables`, JSON.stringify(definition(n)), PUBLISHED];
const args = process.argv.slice(2);
const models = args.length
  ? args.map((a) => (/^\d+$/.test(a) ? synthetic(Number(a)) : [a, readFileSync(a, 'utf8'), audienceOf({ kind: 'anonymous' }, 'bench')]))
  : [4, 50, 200, 1000].map(synthetic);
console.log('| model | types ms | first audience ms (+ validate) | types + first audience KiB (estimate) | second audience ms (+ validate) | second audience KiB (estimate) | schema fields |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const [label, text, audience] of models) {
  // A fresh parse per copy, as the service reads a definition per build.
  const parse = () => JSON.parse(text);
  view(new VersionTypes(parse()), audience); // warm the code paths
  const copies = Math.max(2, Math.round(150e6 / (text.length * 60)));
  const defs = Array.from({ length: copies }, parse);
  const kept = [];
  let typesMs = 0;
  let viewMs = 0;
  let secondMs = 0;
  const h0 = heap();
  for (const def of defs.splice(0)) {
    const [types, t] = ms(() => new VersionTypes(def));
    const [first, v] = ms(() => view(types, audience));
    typesMs += t;
    viewMs += v;
    kept.push({ types, first });
  }
  const h1 = heap();
  for (const k of kept) {
    const [second, v] = ms(() => view(k.types, BUILDER));
    secondMs += v;
    k.second = second;
  }
  const h2 = heap();
  // The cache weighs the types by the largest view built from them: the second adds its excess.
  const first = schemaBytes(kept[0].first.schema);
  const second = schemaBytes(kept[0].second.schema);
  let fields = 0;
  for (const type of Object.values(kept[0].first.schema.getTypeMap())) if (type.getFields) fields += Object.keys(type.getFields()).length;
  console.log(`| ${label} | ${(typesMs / copies).toFixed(1)} | ${(viewMs / copies).toFixed(1)} | ${kib((h1 - h0) / copies)} (${kib(first.types + first.view)}) | ${(secondMs / copies).toFixed(1)} | ${kib((h2 - h1) / copies)} (${kib(second.view + Math.max(0, second.types - first.types))}) | ${fields} |`);
}
