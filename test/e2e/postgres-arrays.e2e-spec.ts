import { RunningApp, startApp } from '../support/app-harness';
import { createPgDatabase, PgDatabase } from '../support/postgres-fixture';
import { describeWith } from '../support/services';
import { printType, TYPE_REF, TypeRef } from '../support/type-refs';
import { invalidValueCode } from '../support/graphql-form';

/**
 * Issue 11, item 1: PostgreSQL arrays are GraphQL lists of the element's scalar, both ways
 * (README "Values"). A one-dimensional array of a supported element type reads as a list of
 * elements formatted as a plain column of that type would be (NULL elements kept, `[]` for an
 * empty array), is written from a list bound as one parameter, is filtered with `eq`/`neq` and a
 * whole list (or null; issue 22, item 15) and never ordered. Arrays of other element types, or declared with
 * several dimensions, keep their text form.
 */

const LISTS_SQL = `CREATE TABLE lists (id int PRIMARY KEY,
    tags text[], counts int4[], smalls int2[], bigs int8[], prices numeric(10,2)[], flags bool[],
    ids uuid[], days date[], stamps timestamptz[], locals timestamp[], times time[], ratios float8[],
    grid int[][], docs json[]);
  INSERT INTO lists VALUES
    (1, '{a,"b c",NULL,"","NULL","q\\"uote"}', '{1,NULL,-2147483648}', '{1,-2}',
     '{9000000000,NULL,-9223372036854775808}', '{12.30,NULL,-0.5}', '{t,f,NULL}',
     '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,NULL}', '{2024-02-29,NULL}',
     '{"2024-02-29 13:45:00+02",NULL}', '{"2024-02-29 13:45:00.5",NULL}', '{13:45:00,NULL}',
     '{1.5,NULL}', '{{1,2},{3,4}}', ARRAY['{"a": 1}'::json]),
    (2, '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}'),
    (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
  CREATE VIEW lists_view AS SELECT id, counts FROM lists;`;

/** Every list column, and what row 1 reads as. */
const ROW_1 = {
  tags: ['a', 'b c', null, '', 'NULL', 'q"uote'],
  counts: [1, null, -2147483648],
  smalls: [1, -2],
  bigs: ['9000000000', null, '-9223372036854775808'],
  prices: ['12.30', null, '-0.50'],
  flags: [true, false, null],
  ids: ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', null],
  days: ['2024-02-29', null],
  stamps: ['2024-02-29T11:45:00.000Z', null],
  locals: ['2024-02-29T13:45:00.500', null],
  times: ['13:45:00', null],
  ratios: [1.5, null],
};
const LIST_TYPES: Record<keyof typeof ROW_1, string> = {
  tags: 'String',
  counts: 'Int',
  smalls: 'Int',
  bigs: 'BigInt',
  prices: 'Decimal',
  flags: 'Boolean',
  ids: 'String',
  days: 'Date',
  stamps: 'DateTime',
  locals: 'LocalDateTime',
  times: 'Time',
  ratios: 'Float',
};
const LISTS = Object.keys(ROW_1) as (keyof typeof ROW_1)[];

describeWith('postgres')('PostgreSQL arrays as GraphQL lists', () => {
  let run: RunningApp;
  let token: string;
  let db: PgDatabase;
  const address = 'pg-arrays';

  const gql = (query: string, variables?: unknown) =>
    run.http('POST', `/api/graphql/${address}`, { body: { query, variables }, token });
  const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

  beforeAll(async () => {
    run = await startApp();
    token = await run.adminToken();
    db = await createPgDatabase();
    await db.exec(LISTS_SQL);
    const app = (await run.http('POST', '/api/apps', { token, body: { name: 'Arr', address } }))
      .body;
    const ds = await run.http('POST', `/api/apps/${app.id}/datasources`, {
      token,
      body: { name: 'arrays', type: 'postgres', url: db.url },
    });
    expect(ds.status).toBe(201);
    const imported = await run.http('POST', `/api/apps/${app.id}/model/import`, {
      token,
      body: { datasourceId: ds.body.id, tables: ['public.lists', 'public.lists_view'] },
    });
    expect(imported.status).toBe(201);
    const all = { select: true, insert: true, update: true, delete: true };
    for (const [name, table, actions] of [
      ['lists', 'lists', all],
      ['listsView', 'lists_view', { select: true, insert: false, update: false, delete: false }],
    ] as const) {
      const api = await run.http('POST', `/api/apps/${app.id}/apis`, {
        token,
        body: { name, table, actions },
      });
      expect([name, api.status]).toEqual([name, 201]);
    }
  });
  afterAll(async () => {
    await run?.close();
    await db?.drop();
  });

  it('types one-dimensional arrays as [Element] in rows and arguments; others keep their text form', async () => {
    const row = await gql(`{ __type(name: "Lists") { fields { name type ${TYPE_REF} } } }`);
    const fields = row.body.data.__type.fields as { name: string; type: TypeRef }[];
    const typeOf = (name: string) => printType(fields.find((f) => f.name === name)!.type);
    for (const column of LISTS)
      expect([column, typeOf(column)]).toEqual([column, `[${LIST_TYPES[column]}]`]);
    expect(typeOf('grid')).toBe('String');
    expect(typeOf('docs')).toBe('String');
    const mutations = await gql(
      `{ __schema { mutationType { fields { name args { name type ${TYPE_REF} } } } } }`,
    );
    const args = (
      mutations.body.data.__schema.mutationType.fields as {
        name: string;
        args: { name: string; type: TypeRef }[];
      }[]
    ).find((f) => f.name === 'addLists')!.args;
    expect(printType(args.find((a) => a.name === 'bigs')!.type)).toBe('[BigInt]');
    expect(printType(args.find((a) => a.name === 'grid')!.type)).toBe('String');
    // A view's array column (attndims 0) is a list too.
    const view = await gql('{ getListsView(order: [{id: ASC}]) { id counts } }');
    expect(view.body.data.getListsView).toEqual([
      { id: 1, counts: ROW_1.counts },
      { id: 2, counts: [] },
      { id: 3, counts: null },
    ]);
  });

  it('reads lists of formatted elements, NULL elements kept, [] for an empty array', async () => {
    const read = await gql(`{ getLists(order: [{id: ASC}]) { id ${LISTS.join(' ')} grid docs } }`);
    expect(read.body.errors).toBeUndefined();
    const [one, two, three] = read.body.data.getLists;
    expect(one).toEqual({ id: '1', ...ROW_1, grid: '{{1,2},{3,4}}', docs: '{"{\\"a\\": 1}"}' });
    expect(two).toEqual({
      id: '2',
      ...Object.fromEntries(LISTS.map((c) => [c, []])),
      grid: '{}',
      docs: '{}',
    });
    expect(three).toEqual({
      id: '3',
      ...Object.fromEntries(LISTS.map((c) => [c, null])),
      grid: null,
      docs: null,
    });
  });

  it('writes back what it reads, unchanged, one bound parameter per list', async () => {
    const read = await gql(
      `{ getLists(where: {id: {in: [1, 2]}}, order: [{id: ASC}]) { ${LISTS.join(' ')} grid } }`,
    );
    const [one, two] = read.body.data.getLists as Record<string, unknown>[];
    const declared = LISTS.map((c) => `$${c}: [${LIST_TYPES[c]}]`).join(', ');
    const passed = LISTS.map((c) => `${c}: $${c}`).join(', ');
    for (const [id, source] of [
      [3, one],
      [2, two],
    ] as const) {
      const written = await gql(
        `mutation (${declared}, $grid: String) { updateLists(id: ${id}, ${passed}, grid: $grid) { ${LISTS.join(' ')} grid } }`,
        source,
      );
      expect(written.body.errors).toBeUndefined();
      expect(written.body.data.updateLists).toEqual(source);
    }
    const back = await gql(`{ getLists(where: {id: {eq: 3}}) { ${LISTS.join(' ')} grid } }`);
    expect(back.body.data.getLists).toEqual([one]);
    // Stored as real arrays, NULL elements as NULL (not the text "NULL").
    const [stored] = await db.exec(
      `SELECT cardinality(tags) AS n, tags[3] IS NULL AS null_tag, tags[5] AS text_null,
              bigs[3]::text AS big, prices[3]::text AS price, stamps[1] = '2024-02-29 11:45:00+00' AS same_instant,
              pg_typeof(counts)::text AS type
         FROM lists WHERE id = 3`,
    );
    expect(stored).toEqual({
      n: 6,
      null_tag: true,
      text_null: 'NULL',
      big: '-9223372036854775808',
      price: '-0.50',
      same_instant: true,
      type: 'integer[]',
    });
  });

  it('adds lists from literals and variables, coercing elements as plain columns', async () => {
    const literal = await gql(
      `mutation { addLists(id: 10, tags: ["x", null, 12], counts: [1, "2", null], bigs: ["9007199254740993", 5],
         prices: [1.5, "2.25"], flags: [true, "false", null], ids: ["A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"],
         days: ["2024-01-01"], stamps: ["2024-03-01T10:00:00+02:00"], locals: ["2024-03-01 10:00"],
         times: ["10:15:30.25"], ratios: [0.1, "2"]) { id ${LISTS.join(' ')} } }`,
    );
    expect(literal.body.errors).toBeUndefined();
    expect(literal.body.data.addLists).toEqual({
      id: '10',
      tags: ['x', null, '12'],
      counts: [1, 2, null],
      smalls: null,
      bigs: ['9007199254740993', '5'],
      prices: ['1.50', '2.25'],
      flags: [true, false, null],
      ids: ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
      days: ['2024-01-01'],
      stamps: ['2024-03-01T08:00:00.000Z'],
      locals: ['2024-03-01T10:00:00'],
      times: ['10:15:30.25'],
      ratios: [0.1, 2],
    });
    const variables = await gql(
      'mutation ($t: [String], $c: [Int]!, $b: [BigInt], $s: [DateTime]) { addLists(id: 11, tags: $t, counts: $c, bigs: $b, stamps: $s) { id tags counts bigs stamps } }',
      { t: ['é', null, ''], c: ['7', null], b: ['-9223372036854775808', 3], s: [null] },
    );
    expect(variables.body.errors).toBeUndefined();
    expect(variables.body.data.addLists).toEqual({
      id: '11',
      tags: ['é', null, ''],
      counts: [7, null],
      bigs: ['-9223372036854775808', '3'],
      stamps: [null],
    });
    const empty = await gql(
      'mutation { updateLists(id: 11, tags: [], counts: null) { tags counts } }',
    );
    expect(empty.body.data.updateLists).toEqual({ tags: [], counts: null });
    await gql('mutation { a: deleteLists(id: 10) b: deleteLists(id: 11) }');
  });

  it('refuses an element of the wrong type with the scalar’s error', async () => {
    const literal = await gql('mutation { addLists(id: 12, counts: [1, "x"]) { id } }');
    expect(literal.status).toBe(400);
    expect(literal.body.errors[0].extensions.code).toBe(invalidValueCode());
    expect(literal.body.errors[0].message).toContain('Int cannot represent');
    const nested = await gql('mutation { addLists(id: 12, counts: [[1]]) { id } }');
    expect(nested.status).toBe(400);
    const variable = await gql('mutation ($b: [BigInt]) { addLists(id: 12, bigs: $b) { id } }', {
      b: ['12abc'],
    });
    expect(variable.status).toBe(400);
    expect(variable.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(variable.body.errors[0].message).toContain('BigInt cannot represent');
    const day = await gql('mutation { addLists(id: 12, days: ["29/02/2024"]) { id } }');
    expect(day.body.errors[0].message).toContain('Date cannot represent');
    // An int4 element beyond 32 bits cannot even be an Int.
    const int4 = await gql('mutation { addLists(id: 12, counts: [3000000000]) { id } }');
    expect(int4.status).toBe(400);
    expect(int4.body.errors[0].message).toContain('Int cannot represent');
  });

  it('refuses an element out of its type’s range, or a malformed UUID, as INVALID_VALUE naming the field, before SQL', async () => {
    const small = await gql('mutation { addLists(id: 13, smalls: [1, null, 40000]) { id } }');
    expect(small.body.errors[0].extensions).toEqual({ code: 'INVALID_VALUE', field: 'smalls' });
    expect(small.body.errors[0].message).toBe(
      'smalls cannot hold 40000 in its list: its elements are whole numbers from -32768 to 32767',
    );
    const big = await gql('mutation { updateLists(id: 1, bigs: ["9223372036854775808"]) { id } }');
    expect(big.body.errors[0].extensions).toEqual({ code: 'INVALID_VALUE', field: 'bigs' });
    const uuid = await gql('mutation { addLists(id: 13, ids: ["not-a-uuid"]) { id } }');
    expect(uuid.body.errors[0].extensions).toEqual({ code: 'INVALID_VALUE', field: 'ids' });
    const count = await gql('{ countLists(where: {id: {eq: 13}}) }');
    expect(count.body.data.countLists).toBe(0);
    const unchanged = await gql('{ getLists(where: {id: {eq: 1}}) { bigs } }');
    expect(unchanged.body.data.getLists[0].bigs).toEqual(ROW_1.bigs);
  });

  it('finds a row with eq and the list read, leaves it out with neq (issue 22, item 15)', async () => {
    const read = await gql(`{ getLists(order: [{id: ASC}]) { id ${LISTS.join(' ')} } }`);
    const rows = read.body.data.getLists as Record<string, unknown>[];
    const problems: string[] = [];
    for (const column of LISTS) {
      for (const row of rows.filter((r) => r[column] !== null)) {
        const value = JSON.stringify(row[column]);
        const res = await gql(
          `{ eq: getLists(where: {${column}: {eq: ${value}}}, order: [{id: ASC}]) { id } neq: getLists(where: {${column}: {neq: ${value}}}, order: [{id: ASC}]) { id } }`,
        );
        const want = {
          eq: rows.filter((r) => JSON.stringify(r[column]) === value).map((r) => r.id),
          neq: rows
            .filter((r) => r[column] !== null && JSON.stringify(r[column]) !== value)
            .map((r) => r.id),
        };
        const got = res.body.data && {
          eq: ids(res.body.data.eq),
          neq: ids(res.body.data.neq),
        };
        if (JSON.stringify(got) !== JSON.stringify(want) || !want.eq.includes(row.id as string)) {
          problems.push(`${column} ${value}: ${JSON.stringify(res.body)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    // Elements coerce as in arguments; the whole array compares, element by element, in order.
    const coerced = await gql(
      '{ getLists(where: {counts: {eq: ["1", null, -2147483648]}}) { id } }',
    );
    // Row 3 holds a copy of row 1 since 'writes back what it reads'.
    expect(ids(coerced.body.data.getLists)).toEqual(['1', '3']);
    const reordered = await gql('{ getLists(where: {smalls: {eq: [-2, 1]}}) { id } }');
    expect(ids(reordered.body.data.getLists)).toEqual([]);
    const empty = await gql('{ getLists(where: {tags: {eq: []}}) { id } }');
    expect(ids(empty.body.data.getLists)).toEqual(['2']);
    // An element its type cannot read is INVALID_VALUE naming the field; one out of range finds nothing.
    const uuid = await gql('{ getLists(where: {ids: {eq: ["not-a-uuid"]}}) { id } }');
    expect(uuid.body.errors[0].extensions).toEqual({ code: 'INVALID_VALUE', field: 'ids' });
    expect(JSON.stringify(uuid.body)).not.toMatch(/SELECT|::|\$1/);
    const small = await gql('{ countLists(where: {smalls: {eq: [40000]}}) }');
    expect(small.body).toEqual({ data: { countLists: 0 } });
  });

  it('filters arrays only with eq and neq, and never orders by them', async () => {
    const empty = await gql('{ getLists(where: {tags: {eq: null}}, order: [{id: ASC}]) { id } }');
    expect(ids(empty.body.data.getLists)).toEqual([]);
    await db.exec('INSERT INTO lists (id) VALUES (30)');
    try {
      const nulls = await gql('{ getLists(where: {counts: {eq: null}}) { id } }');
      expect(ids(nulls.body.data.getLists)).toEqual(['30']);
      const filled = await gql('{ countLists(where: {counts: {neq: null}}) }');
      expect(filled.body.data.countLists).toBe(3);
    } finally {
      await db.exec('DELETE FROM lists WHERE id = 30');
    }
    const filter = await gql('{ __type(name: "StringListFilter") { inputFields { name } } }');
    expect(filter.body.data.__type.inputFields.map((f: { name: string }) => f.name)).toEqual([
      'eq',
      'neq',
    ]);
    const contains = await gql('{ getLists(where: {tags: {contains: "a"}}) { id } }');
    expect(contains.status).toBe(400);
    const order = await gql('{ __type(name: "ListsOrder") { inputFields { name } } }');
    expect(order.body.data.__type.inputFields.map((f: { name: string }) => f.name)).toEqual(['id']);
    const ordered = await gql('{ getLists(order: [{tags: ASC}]) { id } }');
    expect(ordered.status).toBe(400);
  });

  it('keeps a two-dimensional column as text, and fails only the field of a two-dimensional value in a one-dimensional column', async () => {
    const grid = await gql('mutation { updateLists(id: 2, grid: "{{5,6},{7,8}}") { grid } }');
    expect(grid.body.data.updateLists).toEqual({ grid: '{{5,6},{7,8}}' });
    const found = await gql('{ getLists(where: {grid: {eq: null}}) { id } }');
    expect(ids(found.body.data.getLists)).toEqual([]);
    await db.exec(`INSERT INTO lists (id, counts, tags) VALUES (31, '{{1,2},{3,4}}', '{a}')`);
    try {
      const read = await gql('{ getLists(where: {id: {eq: 31}}) { id counts tags } }');
      expect(read.body.data.getLists).toEqual([{ id: '31', counts: null, tags: ['a'] }]);
      expect(read.body.errors).toHaveLength(1);
      expect(read.body.errors[0].extensions).toEqual({ code: 'INVALID_VALUE', field: 'counts' });
      expect(read.body.errors[0].path).toEqual(['getLists', 0, 'counts']);
      expect(read.body.errors[0].message).toContain('more than one dimension');
    } finally {
      await db.exec('DELETE FROM lists WHERE id = 31');
    }
  });
});
