import { RunningApp, startApp } from '../support/app-harness';
import { invalidValueCode } from '../support/graphql-form';
import { createMysqlDatabase, MysqlDatabase } from '../support/mysql-fixture';
import { registerSalesDatabase } from '../support/sales-dialects';
import { describeWith } from '../support/services';

/**
 * Issue 22, item 16: a MySQL/MariaDB `TIME` is a duration, -838:59:59.000000 to 838:59:59.000000
 * (MySQL docs, "The TIME Type"), not a time of day. Its column is typed `Duration`
 * (`[-]HH[H]:MM:SS[.ffffff]`, README "Values"): a negative or longer-than-a-day value reads, is
 * written back unchanged by `add` and `update`, and filters with `eq`, `neq`, `lt`, `gt`, `in`,
 * `nin` compared as durations. A value beyond the range is `INVALID_VALUE` naming the field before
 * any SQL in a write, and matches no row in a filter, as an integer beyond its range does.
 */
const SETUP = `CREATE TABLE shifts (id int PRIMARY KEY, span time, exact time(6), short time(3) NOT NULL DEFAULT '00:00:00');
  INSERT INTO shifts VALUES (1, '-01:30:00', '-00:00:00.000001', '12:00:00'),
    (2, '100:00:00', '838:59:59.000000', '-838:59:59'),
    (3, '13:45:00', '34:00:00.250000', '13:45:00.123'),
    (4, NULL, NULL, '00:00:00');`;

describeWith('mysql')('MariaDB TIME columns as durations (issue 22, item 16)', () => {
  let run: RunningApp;
  let token: string;
  let db: MysqlDatabase;
  const address = 'durations-mysql';
  const gql = (query: string) =>
    run.http('POST', `/api/graphql/${address}`, { body: { query }, token });
  const ids = async (where: string) => {
    const res = await gql(`{ getShifts(where: ${where}, order: [{id: ASC}]) { id } }`);
    expect([where, res.body.errors]).toEqual([where, undefined]);
    return res.body.data.getShifts.map((r: { id: string }) => r.id);
  };

  beforeAll(async () => {
    run = await startApp();
    token = await run.adminToken();
    db = await createMysqlDatabase();
    await db.exec(SETUP);
    const app = (await run.http('POST', '/api/apps', { token, body: { name: 'Shifts', address } }))
      .body;
    await registerSalesDatabase(run, token, app.id, 'mysql', { url: db.url, tables: ['shifts'] });
    const api = await run.http('POST', `/api/apps/${app.id}/apis`, {
      token,
      body: {
        name: 'shifts',
        table: 'shifts',
        actions: { select: true, insert: true, update: true, delete: true },
      },
    });
    expect(api.status).toBe(201);
  });

  afterAll(async () => {
    await run?.close();
    await db?.drop();
  });

  it('types TIME columns Duration, in rows, arguments and filters', async () => {
    const res = await gql(`{
      row: __type(name: "Shifts") { fields { name type { name ofType { name } } } }
      filter: __type(name: "ShiftsFilter") { inputFields { name type { name } } }
      ops: __type(name: "DurationFilter") { inputFields { name } }
      scalar: __type(name: "Duration") { kind description } }`);
    const types = Object.fromEntries(
      res.body.data.row.fields.map(
        (f: { name: string; type: { name: string | null; ofType: { name: string } | null } }) => [
          f.name,
          f.type.name ?? f.type.ofType?.name,
        ],
      ),
    );
    expect(types).toEqual({ id: 'ID', span: 'Duration', exact: 'Duration', short: 'Duration' });
    const filter = res.body.data.filter.inputFields.find(
      (f: { name: string }) => f.name === 'span',
    );
    expect(filter.type.name).toBe('DurationFilter');
    expect(res.body.data.ops.inputFields.map((f: { name: string }) => f.name)).toEqual([
      'eq',
      'neq',
      'contains',
      'startsWith',
      'endsWith',
      'gt',
      'gte',
      'lt',
      'lte',
      'in',
      'nin',
    ]);
    expect(res.body.data.scalar.kind).toBe('SCALAR');
    expect(res.body.data.scalar.description).toContain('-838:59:59 to 838:59:59');
  });

  it('reads negative and longer-than-a-day values as MariaDB holds them', async () => {
    const res = await gql('{ getShifts(order: [{id: ASC}]) { id span exact short } }');
    expect(res.body).toEqual({
      data: {
        getShifts: [
          { id: '1', span: '-01:30:00', exact: '-00:00:00.000001', short: '12:00:00' },
          { id: '2', span: '100:00:00', exact: '838:59:59', short: '-838:59:59' },
          { id: '3', span: '13:45:00', exact: '34:00:00.25', short: '13:45:00.123' },
          { id: '4', span: null, exact: null, short: '00:00:00' },
        ],
      },
    });
  });

  it('adds and updates durations, and writes back what it reads unchanged', async () => {
    const added = await gql(
      'mutation { addShifts(id: 10, span: "-838:59:59", exact: "-12:30:00.5", short: "200:00:00.001") { id span exact short } }',
    );
    expect(added.body).toEqual({
      data: {
        addShifts: { id: '10', span: '-838:59:59', exact: '-12:30:00.5', short: '200:00:00.001' },
      },
    });
    const read = await gql(
      '{ getShifts(where: {id: {in: [1, 2, 3]}}, order: [{id: ASC}]) { span exact short } }',
    );
    const rows = read.body.data.getShifts as Record<string, string>[];
    for (const [i, row] of rows.entries()) {
      const copied = await gql(
        `mutation { updateShifts(id: 10, span: ${JSON.stringify(row.span)}, exact: ${JSON.stringify(row.exact)}, short: ${JSON.stringify(row.short)}) { span exact short } }`,
      );
      expect([i, copied.body]).toEqual([i, { data: { updateShifts: row } }]);
    }
    // The last copy is row 3: a time of day is a duration too.
    const back = await gql('{ getShifts(where: {id: {eq: 10}}) { span exact short } }');
    expect(back.body.data.getShifts).toEqual([rows[2]]);
    const [stored] = (await db.exec(
      'SELECT CAST(span AS CHAR) AS span, CAST(exact AS CHAR) AS exact FROM shifts WHERE id = 10',
    )) as Record<string, string>[];
    expect(stored).toEqual({ span: '13:45:00', exact: '34:00:00.250000' });
    const removed = await gql('mutation { deleteShifts(id: 10) }');
    expect(removed.body).toEqual({ data: { deleteShifts: true } });
  });

  it('filters as durations: eq, neq, lt, gt, in, nin with negative and longer-than-a-day values', async () => {
    expect(await ids('{span: {eq: "-01:30:00"}}')).toEqual(['1']);
    expect(await ids('{span: {eq: "100:00:00"}}')).toEqual(['2']);
    expect(await ids('{span: {neq: "-01:30:00"}}')).toEqual(['2', '3']);
    // Not text order: -01:30:00 is below 00:00:00, 100:00:00 above 24:00:00.
    expect(await ids('{span: {lt: "00:00:00"}}')).toEqual(['1']);
    expect(await ids('{span: {gt: "24:00:00"}}')).toEqual(['2']);
    expect(await ids('{span: {gte: "-01:30:00", lte: "13:45:00"}}')).toEqual(['1', '3']);
    expect(await ids('{span: {in: ["100:00:00", "-01:30:00"]}}')).toEqual(['1', '2']);
    expect(await ids('{span: {nin: ["100:00:00", "-01:30:00"]}}')).toEqual(['3']);
    expect(await ids('{exact: {eq: "-00:00:00.000001"}}')).toEqual(['1']);
    expect(await ids('{exact: {eq: "34:00:00.25"}}')).toEqual(['3']);
    expect(await ids('{exact: {lt: "00:00:00"}}')).toEqual(['1']);
    expect(await ids('{short: {eq: "-838:59:59"}}')).toEqual(['2']);
    // Every value read finds its row.
    const read = await gql('{ getShifts(order: [{id: ASC}]) { id span exact short } }');
    for (const row of read.body.data.getShifts as Record<string, string | null>[]) {
      for (const column of ['span', 'exact', 'short']) {
        if (row[column] === null) continue;
        const found = await ids(`{${column}: {eq: ${JSON.stringify(row[column])}}}`);
        expect([column, row[column], found]).toEqual([column, row[column], [row.id]]);
      }
    }
    const count = await gql(
      '{ countShifts(where: {span: {lt: "-00:00:01"}, exact: {neq: null}}) }',
    );
    expect(count.body).toEqual({ data: { countShifts: 1 } });
  });

  it('in a filter, a value beyond ±838:59:59 matches no row, as a number beyond its column does', async () => {
    expect(await ids('{span: {eq: "839:00:00"}}')).toEqual([]);
    expect(await ids('{span: {neq: "839:00:00"}}')).toEqual(['1', '2', '3']);
    expect(await ids('{span: {lt: "839:00:00"}}')).toEqual(['1', '2', '3']);
    expect(await ids('{span: {gt: "839:00:00"}}')).toEqual([]);
    expect(await ids('{span: {gt: "-839:00:00"}}')).toEqual(['1', '2', '3']);
    expect(await ids('{span: {in: ["839:00:00", "100:00:00"]}}')).toEqual(['2']);
    expect(await ids('{span: {nin: ["839:00:00"]}}')).toEqual(['1', '2', '3']);
    expect(await ids('{exact: {gt: "838:59:59.5"}}')).toEqual([]);
  });

  it('refuses a value beyond ±838:59:59 in a write as INVALID_VALUE naming the field, before SQL', async () => {
    for (const [mutation, field] of [
      ['addShifts(id: 11, span: "839:00:00") { id }', 'span'],
      ['addShifts(id: 11, exact: "-838:59:59.000001") { id }', 'exact'],
      ['updateShifts(id: 1, short: "838:59:59.5") { id }', 'short'],
      ['updateShifts(id: 1, span: "-999:00:00", exact: "00:00:00") { id }', 'span'],
    ] as const) {
      const res = await gql(`mutation { ${mutation} }`);
      expect([mutation, res.body.errors?.[0]?.extensions]).toEqual([
        mutation,
        { code: 'INVALID_VALUE', field },
      ]);
      expect(res.body.errors[0].message).toMatch(
        /^\w+ cannot hold .+: it takes durations from -838:59:59 to 838:59:59$/,
      );
    }
    const rows = await gql('{ countShifts getShifts(where: {id: {eq: 1}}) { span exact short } }');
    expect(rows.body.data).toEqual({
      countShifts: 4,
      getShifts: [{ span: '-01:30:00', exact: '-00:00:00.000001', short: '12:00:00' }],
    });
  });

  it('refuses text that is no duration with the scalar’s error, in arguments and filters', async () => {
    for (const query of [
      'mutation { addShifts(id: 12, span: "1000:00:00") { id } }',
      'mutation { addShifts(id: 12, span: "10:60:00") { id } }',
      '{ getShifts(where: {span: {eq: "1 day"}}) { id } }',
      '{ getShifts(where: {span: {in: ["10:00:00.1234567"]}}) { id } }',
    ]) {
      const res = await gql(query);
      expect([query, res.status, res.body.errors?.[0]?.extensions?.code]).toEqual([
        query,
        400,
        invalidValueCode(),
      ]);
      expect(res.body.errors[0].message).toContain('Duration cannot represent');
    }
  });
});
