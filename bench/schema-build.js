'use strict';
/**
 * `node --expose-gc bench/schema-build.js [tables…]` (after `npx tsc -p tsconfig.build.json`):
 * what one app's schema costs, by model size. For a synthetic model of T tables (8 columns each,
 * a foreign key to the previous table) with one Table API per table (every action on), prints the
 * milliseconds to build the version's types, to derive one audience's schema from them and to
 * validate it, and the heap each retains (after a full collection). The schema cache's byte
 * weights (`schemaBytes` in schema-provider.service.ts) come from these figures.
 */
const { validateSchema } = require('graphql');
const { VersionTypes } = require('../dist/src/graphql-gateway/schema-builder');
const { BUILDER, PUBLISHED } = require('../dist/src/graphql-gateway/request/audience');

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

const sizes = process.argv.slice(2).map(Number);
console.log('| tables | types ms | first audience ms | validate ms | types + first audience KB | second audience ms (+ validate) | second audience KB | schema fields |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const tables of sizes.length ? sizes : [4, 50, 200, 1000]) {
  const def = definition(tables);
  new VersionTypes(def).schemaFor(BUILDER); // warm the code paths
  const h0 = heap();
  const [types, typesMs] = ms(() => new VersionTypes(def));
  const h1 = heap();
  const [built, viewMs] = ms(() => types.schemaFor(PUBLISHED));
  const [, validateMs] = ms(() => validateSchema(built.schema));
  const h2 = heap();
  const [second, secondMs] = ms(() => types.schemaFor(BUILDER));
  const [, secondValidateMs] = ms(() => validateSchema(second.schema));
  const h3 = heap();
  let fields = 0;
  for (const type of Object.values(built.schema.getTypeMap())) if (type.getFields) fields += Object.keys(type.getFields()).length;
  console.log(`| ${tables} | ${typesMs.toFixed(1)} | ${viewMs.toFixed(1)} | ${validateMs.toFixed(1)} | ${Math.round((h2 - h0) / 1024)} | ${secondMs.toFixed(1)} (+ ${secondValidateMs.toFixed(1)}) | ${Math.round((h3 - h2) / 1024)} | ${fields} |`);
  if (!built || !types || !second) throw new Error('unreachable');
}
