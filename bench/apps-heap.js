'use strict';
/**
 * `node --max-old-space-size=8000 bench/apps-heap.js <idle.heapsnapshot> <built.heapsnapshot> <apps> [rows]`:
 * what one cached app holds, from the two heap snapshots `BENCH_HEAP_SNAPSHOT_DIR` makes
 * bench/many-apps.js write (the service idle after its restart; every app's schema built). Sums
 * the self size of the heap's nodes by kind and constructor (`object|GraphQLObjectType`,
 * `array|(object properties)`, `concatenated string|`…) in each, and prints the difference per
 * app, largest first, with the count per app. Then, for plain objects and dictionary property
 * stores (where graphql-js's field maps and `extensions` live), what holds them: the first
 * retainer's edge name and constructor (`Object <-extensions- Object` is a field's extensions).
 * Loads each snapshot whole (JSON.parse): a few hundred apps, not 2,000.
 */
const { readFileSync } = require('node:fs');

/** A snapshot's nodes: kind, name, self size and first retainer. */
function load(file) {
  const s = JSON.parse(readFileSync(file, 'utf8'));
  const m = s.snapshot.meta;
  const nf = m.node_fields.length;
  const ef = m.edge_fields.length;
  const [kinds] = m.node_types;
  const [edgeKinds] = m.edge_types;
  const at = (f) => m.node_fields.indexOf(f);
  const [iType, iName, iSize, iEdges] = ['type', 'name', 'self_size', 'edge_count'].map(at);
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => m.edge_fields.indexOf(f));
  const count = s.nodes.length / nf;
  const retainer = new Int32Array(count).fill(-1);
  const retainedBy = new Int32Array(count).fill(-1);
  for (let i = 0, e = 0; i < count; i++) {
    const end = e + s.nodes[i * nf + iEdges] * ef;
    for (; e < end; e += ef) {
      const kind = edgeKinds[s.edges[e + eType]];
      if (kind === 'weak' || kind === 'shortcut') continue;
      const to = s.edges[e + eTo] / nf;
      if (retainer[to] === -1) {
        retainer[to] = i;
        retainedBy[to] = e;
      }
    }
  }
  const kind = (i) => kinds[s.nodes[i * nf + iType]];
  const name = (i) => s.strings[s.nodes[i * nf + iName]];
  const label = (i) => (['object', 'closure'].includes(kind(i)) ? name(i) : `(${kind(i)} ${name(i).slice(0, 30)})`);
  const edge = (e) => {
    const k = edgeKinds[s.edges[e + eType]];
    return k === 'element' || k === 'hidden' ? `[${k}]` : s.strings[s.edges[e + eName]];
  };
  const byKind = new Map();
  const byHolder = new Map();
  const add = (map, key, size) => {
    const a = map.get(key) ?? { n: 0, size: 0 };
    a.n++;
    a.size += size;
    map.set(key, a);
  };
  for (let i = 0; i < count; i++) {
    const k = kind(i);
    const size = s.nodes[i * nf + iSize];
    // Strings and numbers are named by their value: one row for each kind.
    const n = k.includes('string') || k === 'number' ? '' : k === 'code' ? name(i).slice(0, 40) : name(i);
    add(byKind, `${k}|${n}`, size);
    const plain = k === 'object' && n === 'Object';
    const store = k === 'array' && n === '(object properties)';
    if (!plain && !store) continue;
    const owner = store ? retainer[i] : i;
    const holder = owner >= 0 ? retainer[owner] : -1;
    const key = holder < 0 ? `${label(i)} <-?` : `${store ? 'properties of ' : ''}${label(owner)} <-${edge(retainedBy[owner])}- ${label(holder)}`;
    add(byHolder, key, size);
  }
  return { byKind, byHolder };
}

function perApp(before, after, apps, rows) {
  const out = [];
  for (const [key, v] of after) {
    const o = before.get(key) ?? { n: 0, size: 0 };
    out.push({ key, n: (v.n - o.n) / apps, bytes: (v.size - o.size) / apps });
  }
  out.sort((a, b) => b.bytes - a.bytes);
  const total = out.reduce((t, r) => t + r.bytes, 0);
  return { total, rows: out.slice(0, rows) };
}

const [idleFile, builtFile, appsText, rowsText] = process.argv.slice(2);
if (!builtFile) {
  console.error('usage: node bench/apps-heap.js <idle.heapsnapshot> <built.heapsnapshot> <apps> [rows]');
  process.exit(2);
}
const apps = Number(appsText || 1);
const rows = Number(rowsText || 30);
const idle = load(idleFile);
const built = load(builtFile);
const kinds = perApp(idle.byKind, built.byKind, apps, rows);
console.log(`Heap per app: ${Math.round(kinds.total)} bytes (self sizes, built minus idle, over ${apps} apps)\n`);
console.log('| bytes per app | nodes per app | kind and constructor |\n|---:|---:|---|');
for (const r of kinds.rows) console.log(`| ${Math.round(r.bytes)} | ${r.n.toFixed(1)} | ${r.key} |`);
const holders = perApp(idle.byHolder, built.byHolder, apps, rows);
console.log('\nPlain objects and property stores by what holds them:\n');
console.log('| bytes per app | nodes per app | held as |\n|---:|---:|---|');
for (const r of holders.rows) console.log(`| ${Math.round(r.bytes)} | ${r.n.toFixed(1)} | ${r.key} |`);
