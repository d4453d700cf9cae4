import { DatasourcePoolsService } from '../../src/datasources/datasource-pools.service';
import { RunningApp, startApp } from '../support/app-harness';
import { DataSource } from 'typeorm';
import {
  loadLibraryIntoMysql,
  loadLibraryIntoPostgres,
  loadLibraryIntoSqlite,
} from '../support/library-fixture';
import { createMysqlDatabase } from '../support/mysql-fixture';
import { createPgDatabase } from '../support/postgres-fixture';
import { placeSqliteFile } from '../support/sqlite-placement';
import { describeWith } from '../support/services';

interface DialectCase {
  type: 'postgres' | 'sqlite' | 'mysql';
  describe: jest.Describe;
  setup(dataDir: string): Promise<{ url: string; tables: string[]; cleanup(): Promise<void> }>;
  /** `books.published_at` as written, and as read back: timestamptz (an instant) on PostgreSQL, DATETIME (local) on SQLite. */
  publishedAt: { write: string; read: string };
  /** `books.price` for "12.50". */
  price: string;
}

const CASES: DialectCase[] = [
  {
    type: 'postgres',
    describe: describeWith('postgres'),
    async setup() {
      const db = await createPgDatabase('tg_writes');
      await loadLibraryIntoPostgres(db);
      return {
        url: db.url,
        tables: ['public.countries', 'public.authors', 'public.books'],
        cleanup: () => db.drop(),
      };
    },
    publishedAt: { write: '2024-05-06T07:08:09.120+02:00', read: '2024-05-06T05:08:09.120Z' },
    price: '12.50',
  },
  {
    type: 'mysql',
    describe: describeWith('mysql'),
    async setup() {
      const db = await createMysqlDatabase('tg_writes');
      await loadLibraryIntoMysql(db);
      return { url: db.url, tables: ['countries', 'authors', 'books'], cleanup: () => db.drop() };
    },
    publishedAt: { write: '2024-05-06T07:08:09.120+02:00', read: '2024-05-06T05:08:09.120Z' },
    price: '12.50',
  },
  {
    type: 'sqlite',
    describe,
    async setup(dataDir) {
      return {
        url: loadLibraryIntoSqlite(dataDir),
        tables: ['countries', 'authors', 'books'],
        cleanup: async () => undefined,
      };
    },
    publishedAt: { write: '2024-05-06T07:08:09.120', read: '2024-05-06T07:08:09.120' },
    price: '12.5',
  },
];

const ALL = { select: true, insert: true, update: true, delete: true };

/** A fields tree alternating books → author → books … `levels` navigation fields deep. */
function chain(levels: number): Record<string, unknown> {
  let tree: Record<string, unknown> = { id: true };
  for (let i = levels; i > 0; i--) tree = { id: true, [i % 2 === 1 ? 'author' : 'books']: tree };
  return tree;
}
function chainQuery(levels: number): string {
  let sel = 'id';
  for (let i = levels; i > 0; i--)
    sel = `id ${i % 2 === 1 ? 'author' : 'books(take: 1)'} { ${sel} }`;
  return `{ getDeep(take: 1) { ${sel} } }`;
}

for (const dialect of CASES) {
  dialect.describe(`Writes, enums and value rules over HTTP on ${dialect.type}`, () => {
    let run: RunningApp;
    let cleanup: () => Promise<void>;
    let token: string;
    let appId: string;
    let key: string;
    const address = `library-${dialect.type}`;

    const gql = (query: string, variables?: Record<string, unknown>) =>
      run.http('POST', `/api/graphql/${address}`, {
        body: { query, variables },
        headers: { 'x-api-key': key },
      });
    const ok = async (query: string, variables?: Record<string, unknown>) => {
      const res = await gql(query, variables);
      if (res.status !== 200 || res.body.errors)
        throw new Error(`GraphQL failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data;
    };
    const refused = async (query: string, variables?: Record<string, unknown>) => {
      const res = await gql(query, variables);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].message).not.toMatch(
        /\b(INSERT|UPDATE|DELETE|SELECT|FROM|WHERE)\b|constraint|stack|\(/,
      );
      return res.body.errors[0];
    };
    const publish = async () =>
      expect(
        (await run.http('POST', `/api/apps/${appId}/versions/publish`, { token })).status,
      ).toBe(200);

    beforeAll(async () => {
      run = await startApp();
      token = await run.adminToken();
      const db = await dialect.setup(run.dataDir);
      cleanup = db.cleanup;
      appId = (await run.http('POST', '/api/apps', { token, body: { name: 'Library', address } }))
        .body.id;
      const ds = await run.http('POST', `/api/apps/${appId}/datasources`, {
        token,
        body: {
          name: 'library',
          type: dialect.type,
          url: placeSqliteFile(run.dataDir, appId, db.url),
        },
      });
      expect(ds.status).toBe(201);
      expect(
        (
          await run.http('POST', `/api/apps/${appId}/model/import`, {
            token,
            body: { datasourceId: ds.body.id, tables: db.tables },
          })
        ).status,
      ).toBe(201);
      const status = await run.http('POST', `/api/apps/${appId}/enums`, {
        token,
        body: {
          name: 'BookStatus',
          description: 'Where a book stands',
          values: [
            { value: 'DRAFT', label: 'Draft' },
            { value: 'PUBLISHED' },
            { value: 'ARCHIVED' },
          ],
        },
      });
      expect(status.status).toBe(201);
      expect(
        (
          await run.http('PATCH', `/api/apps/${appId}/model/tables/books/fields/status`, {
            token,
            body: { enum: 'BookStatus' },
          })
        ).status,
      ).toBe(200);
      const apis = [
        { name: 'countries', table: 'countries', actions: ALL },
        {
          name: 'authors',
          table: 'authors',
          actions: ALL,
          fields: {
            id: true,
            name: true,
            email: true,
            country_code: true,
            born: true,
            created_at: true,
            books: { id: true, title: true },
            // The field set of the root API `countries`: the nested row shares its type.
            country_code_by_country_code: { code: true, name: true },
          },
        },
        {
          name: 'books',
          table: 'books',
          actions: ALL,
          fields: {
            id: true,
            title: true,
            status: true,
            price: true,
            copies: true,
            pages: true,
            in_print: true,
            published_at: true,
            written_on: true,
            edited_at: true,
            shout: true,
            author: { id: true, name: true },
          },
        },
        {
          name: 'readOnlyAuthors',
          table: 'authors',
          actions: { select: true, insert: true, update: false, delete: false },
          fields: { id: true, email: true },
        },
        {
          name: 'deep',
          table: 'books',
          actions: { select: true, insert: false, update: false, delete: false },
          fields: chain(13),
        },
      ];
      for (const spec of apis) {
        const api = await run.http('POST', `/api/apps/${appId}/apis`, { token, body: spec });
        expect(api.status).toBe(201);
        expect(
          (await run.http('POST', `/api/apps/${appId}/apis/${api.body.id}/publish`, { token }))
            .status,
        ).toBe(200);
      }
      await publish();
      key = (
        await run.http('POST', '/api/admin/api-keys', {
          token,
          body: { name: 'writes', scope: [{ appId, endpoints: 'all' }] },
        })
      ).body.key;
    });

    afterAll(async () => {
      await run?.close();
      await cleanup?.();
    });

    it('adds a row with a generated key and defaults, returning it with navigation fields', async () => {
      const { addAuthors } = await ok(
        'mutation { addAuthors(name: "Clarice", email: "clarice@example.com", country_code: "BR") { id name country_code created_at books { id } } }',
      );
      expect(addAuthors).toEqual({
        id: expect.stringMatching(/^\d+$/),
        name: 'Clarice',
        country_code: 'BR',
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/),
        books: [],
      });
      const { addBooks } = await ok(
        `mutation { addBooks(author_id: ${addAuthors.id}, title: "A hora da estrela") { id status author { name } } }`,
      );
      expect(addBooks).toEqual({
        id: expect.any(String),
        status: 'DRAFT',
        author: { name: 'Clarice' },
      });
    });

    it('takes a natural primary key as a required argument', async () => {
      expect(
        (await ok('mutation { addCountries(code: "PT", name: "Portugal") { code name } }'))
          .addCountries,
      ).toEqual({ code: 'PT', name: 'Portugal' });
      const missing = await gql('mutation { addCountries(name: "Nowhere") { code } }');
      expect(missing.status).toBe(400);
      expect(missing.body.errors[0].message).toContain('code');
    });

    it('gives one __typename per table and field set, nested or not (issue 11, item 5)', async () => {
      // What a normalized client cache keys rows by: the row an update returns and the same row
      // reached through a navigation field with the same fields are one entity.
      const { updateCountries } = await ok(
        'mutation { updateCountries(code: "BR", name: "Brasil") { __typename code name } }',
      );
      expect(updateCountries).toEqual({ __typename: 'Countries', code: 'BR', name: 'Brasil' });
      const read = await ok(`{
        getAuthors(where: {id: {eq: 1}}) {
          __typename
          country_code_by_country_code { __typename code name }
          books(take: 1) { __typename }
        }
        getBooks(where: {id: {eq: 1}}) { __typename author { __typename } }
      }`);
      expect(read).toEqual({
        getAuthors: [
          {
            __typename: 'Authors',
            country_code_by_country_code: { __typename: 'Countries', code: 'BR', name: 'Brasil' },
            // Other field sets of a table held by a root API: the table's name and a suffix.
            books: [{ __typename: 'Books_2' }],
          },
        ],
        getBooks: [{ __typename: 'Books', author: { __typename: 'Authors_2' } }],
      });
    });

    it('updates only the columns sent, empties a column sent as null, and answers null/false for a missing key', async () => {
      const { addAuthors } = await ok(
        'mutation { addAuthors(name: "Jorge", email: "jorge@example.com", country_code: "BR", born: "1912-08-10") { id } }',
      );
      const id = addAuthors.id;
      await ok(`mutation { updateAuthors(id: ${id}, born: "1912-08-11") { id } }`);
      const read = await ok(
        `{ getAuthors(where: {id: {eq: ${id}}}) { name email country_code born } }`,
      );
      expect(read.getAuthors).toEqual([
        { name: 'Jorge', email: 'jorge@example.com', country_code: 'BR', born: '1912-08-11' },
      ]);
      expect(
        (
          await ok(
            `mutation { updateAuthors(id: ${id}, country_code: null) { country_code name } }`,
          )
        ).updateAuthors,
      ).toEqual({ country_code: null, name: 'Jorge' });
      expect((await ok(`mutation { updateAuthors(id: ${id}) { name } }`)).updateAuthors).toEqual({
        name: 'Jorge',
      });
      expect(
        (await ok('mutation { updateAuthors(id: 999999, name: "Ghost") { id } }')).updateAuthors,
      ).toBeNull();
      expect((await ok('mutation { deleteAuthors(id: 999999) }')).deleteAuthors).toBe(false);
      expect((await ok(`mutation { deleteAuthors(id: ${id}) }`)).deleteAuthors).toBe(true);
      expect((await ok(`{ countAuthors(where: {id: {eq: ${id}}}) }`)).countAuthors).toBe(0);
    });

    it('turns each database refusal into a plain error naming the field, leaving the data unchanged', async () => {
      const before = await ok(
        '{ countAuthors countBooks getAuthors(where: {id: {eq: 1}}) { name } }',
      );

      const duplicate = await refused(
        'mutation { addAuthors(name: "Copy", email: "machado@example.com") { id } }',
      );
      expect(duplicate.extensions).toEqual({ code: 'UNIQUE_VIOLATION', field: 'email' });
      expect(duplicate.message).toContain('email');

      const dependents = await refused('mutation { deleteAuthors(id: 1) }');
      expect(dependents.extensions.code).toBe('FOREIGN_KEY_VIOLATION');
      expect(dependents.message).toMatch(/cannot be deleted/);

      const dangling = await refused(
        'mutation { addBooks(author_id: 424242, title: "Orphan") { id } }',
      );
      expect(dangling.extensions).toEqual({ code: 'FOREIGN_KEY_VIOLATION', field: 'author_id' });

      const empty = await refused('mutation { updateAuthors(id: 1, name: null) { id } }');
      expect(empty.extensions).toEqual({ code: 'NOT_NULL_VIOLATION', field: 'name' });

      const long = await refused(
        'mutation { addAuthors(name: "A name longer than twenty", email: "long@example.com") { id } }',
      );
      expect(long.extensions).toEqual({ code: 'VALUE_TOO_LONG', field: 'name' });
      expect(long.message).toBe('name is too long: at most 20 characters');

      expect(
        await ok('{ countAuthors countBooks getAuthors(where: {id: {eq: 1}}) { name } }'),
      ).toEqual(before);
    });

    it('writes an enum column bare or quoted, in literals and variables, and refuses other values naming the enum', async () => {
      const bare = await ok(
        'mutation { addBooks(author_id: 1, title: "Bare", status: ARCHIVED) { id status } }',
      );
      expect(bare.addBooks.status).toBe('ARCHIVED');
      const quoted = await ok(
        'mutation { addBooks(author_id: 1, title: "Quoted", status: "PUBLISHED") { status } }',
      );
      expect(quoted.addBooks.status).toBe('PUBLISHED');
      const viaVariable = await ok(
        'mutation($s: BookStatus) { addBooks(author_id: 1, title: "Var", status: $s) { status } }',
        { s: 'DRAFT' },
      );
      expect(viaVariable.addBooks.status).toBe('DRAFT');
      const updated = await ok(
        `mutation { updateBooks(id: ${bare.addBooks.id}, status: "DRAFT") { status } }`,
      );
      expect(updated.updateBooks.status).toBe('DRAFT');
      expect((await ok('{ countBooks(where: {status: {eq: "ARCHIVED"}}) }')).countBooks).toBe(0);

      for (const res of [
        await gql('mutation { addBooks(author_id: 1, title: "Bad", status: LOST) { id } }'),
        await gql('mutation { addBooks(author_id: 1, title: "Bad", status: "LOST") { id } }'),
        await gql(
          'mutation($s: BookStatus) { addBooks(author_id: 1, title: "Bad", status: $s) { id } }',
          { s: 'LOST' },
        ),
      ]) {
        expect(res.status).toBe(400);
        expect(res.body.errors[0].message).toContain('BookStatus');
      }
    });

    it('follows enum changes and deletion on the next request', async () => {
      const typeOfStatus = async () => {
        const data = await ok(
          '{ __type(name: "Books") { fields { name type { name ofType { name } } } } }',
        );
        const field = data.__type.fields.find((f: { name: string }) => f.name === 'status');
        return field.type.ofType?.name ?? field.type.name;
      };
      expect(await typeOfStatus()).toBe('BookStatus');
      const put = await run.http('PUT', `/api/apps/${appId}/enums/BookStatus`, {
        token,
        body: {
          name: 'BookStatus',
          values: [
            { value: 'DRAFT' },
            { value: 'PUBLISHED' },
            { value: 'ARCHIVED' },
            { value: 'REVIEW' },
          ],
        },
      });
      expect(put.status).toBe(200);
      await publish();
      expect(
        (
          await ok(
            'mutation { addBooks(author_id: 1, title: "New value", status: REVIEW) { status } }',
          )
        ).addBooks.status,
      ).toBe('REVIEW');
      expect(
        (await run.http('DELETE', `/api/apps/${appId}/enums/BookStatus`, { token })).status,
      ).toBe(204);
      await publish();
      expect(await typeOfStatus()).toBe('String');
      expect(
        (
          await ok(
            'mutation { addBooks(author_id: 1, title: "Text again", status: "ANYTHING") { status } }',
          )
        ).addBooks.status,
      ).toBe('ANYTHING');
    });

    it('coerces numeric text, numbers and "true"/"false" in literals and variables, and still refuses ambiguous values', async () => {
      const literal = await ok(
        'mutation { addBooks(author_id: "1", title: 1984, pages: "328", in_print: "true") { title pages in_print } }',
      );
      expect(literal.addBooks).toEqual({ title: '1984', pages: 328, in_print: true });
      const variables = await ok(
        'mutation($t: String!, $p: Int, $i: Boolean) { addBooks(author_id: 1, title: $t, pages: $p, in_print: $i) { title pages in_print } }',
        { t: 451, p: '159', i: 'false' },
      );
      expect(variables.addBooks).toEqual({ title: '451', pages: 159, in_print: false });
      expect((await ok('{ countBooks(where: {pages: {gt: "200"}}) }')).countBooks).toBe(1);
      const ambiguous = await gql(
        'mutation { addBooks(author_id: 1, title: "X", pages: "12.5") { id } }',
      );
      expect(ambiguous.status).toBe(400);
      expect(ambiguous.body.errors[0].message).toMatch(/Int/);
      const ambiguousVar = await gql(
        'mutation($p: Int) { addBooks(author_id: 1, title: "X", pages: $p) { id } }',
        { p: '12abc' },
      );
      expect(ambiguousVar.status).toBe(400);
    });

    it('keeps dates, timestamps, 64-bit integers and decimals exact', async () => {
      const write = `mutation { addBooks(author_id: 1, title: "Dates", price: "12.50", copies: "9007199254740993",
        published_at: "${dialect.publishedAt.write}", written_on: "2023-12-31", edited_at: "2024-01-02T03:04:05") { id } }`;
      const { addBooks } = await ok(write);
      const read = `{ getBooks(where: {id: {eq: ${addBooks.id}}}) { price copies published_at written_on edited_at } }`;
      // The process runs in America/Sao_Paulo (global setup); time-zones.e2e-spec.ts compares two zones.
      expect((await ok(read)).getBooks[0]).toEqual({
        price: dialect.price,
        copies: '9007199254740993',
        published_at: dialect.publishedAt.read,
        written_on: '2023-12-31',
        edited_at: '2024-01-02T03:04:05',
      });
    });

    it('applies the nesting and alias limits before any SQL runs', async () => {
      const pools = run.app.get(DatasourcePoolsService);
      expect((await gql(chainQuery(12))).status).toBe(200);
      const before = pools.statementsExecuted;
      const deep = await gql(chainQuery(13));
      expect(deep.status).toBe(400);
      expect(deep.body.errors[0].message).toContain('the limit is 12');
      const aliases = (n: number) =>
        `{ ${Array.from({ length: n }, (_, i) => `a${i}: countBooks`).join(' ')} }`;
      const tooMany = await gql(aliases(101));
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.errors[0].message).toContain('the limit is 100');
      const negative = await gql('{ getBooks(take: -1) { id } }');
      expect(negative.status).toBe(400);
      expect(pools.statementsExecuted).toBe(before);
      const atLimit = await ok(aliases(100));
      expect(Object.keys(atLimit)).toHaveLength(100);
    });

    if (dialect.type === 'mysql') {
      it('answers add with true on MySQL, which has no INSERT … RETURNING (server version switch)', async () => {
        // This machine runs MariaDB; the stored server version is what decides (Dialect.capabilities).
        const metadata = run.app.get(DataSource);
        const setVersion = async (version: string | null) => {
          await metadata.query('UPDATE datasource SET server_version = ? WHERE app_id = ?', [
            version,
            appId,
          ]);
          const api = (await run.http('GET', `/api/apps/${appId}/apis`, { token })).body.find(
            (a: { name: string }) => a.name === 'countries',
          );
          expect(
            (
              await run.http('PATCH', `/api/apps/${appId}/apis/${api.id}`, {
                token,
                body: { name: 'countries' },
              })
            ).status,
          ).toBe(200);
          await publish();
        };
        const [{ server_version: original }] = await metadata.query(
          'SELECT server_version FROM datasource WHERE app_id = ?',
          [appId],
        );
        expect(original).toMatch(/MariaDB/);
        await setVersion('8.0.36');
        try {
          const type = await ok(
            '{ __type(name: "Mutation") { fields { name type { kind name ofType { name } } } } }',
          );
          expect(
            type.__type.fields.find((f: { name: string }) => f.name === 'addCountries').type,
          ).toEqual({ kind: 'SCALAR', name: 'Boolean', ofType: null });
          expect(
            (await ok('mutation { addCountries(code: "AR", name: "Argentina") }')).addCountries,
          ).toBe(true);
          expect(
            (await ok('{ getCountries(where: {code: {eq: "AR"}}) { name } }')).getCountries,
          ).toEqual([{ name: 'Argentina' }]);
          expect(
            (await ok('mutation { updateCountries(code: "AR", name: "Argentina!") { name } }'))
              .updateCountries,
          ).toEqual({ name: 'Argentina!' });
        } finally {
          await setVersion(original);
        }
      });
    }

    it('reads a computed column and never takes it as an argument', async () => {
      const { addBooks } = await ok(
        'mutation { addBooks(author_id: 1, title: "Loud") { id shout } }',
      );
      expect(addBooks.shout).toBe('LOUD');
      const mutation = await ok('{ __type(name: "Mutation") { fields { name args { name } } } }');
      for (const name of ['addBooks', 'updateBooks']) {
        const args = mutation.__type.fields
          .find((f: { name: string }) => f.name === name)
          .args.map((a: { name: string }) => a.name);
        expect(args).toContain('title');
        expect(args).not.toContain('shout');
      }
      const refused = await gql(`mutation { updateBooks(id: ${addBooks.id}, shout: "x") { id } }`);
      expect(refused.status).toBe(400);
    });

    it('introspects exactly what the caller can call', async () => {
      const data = await ok(`{
        m: __type(name: "Mutation") { fields { name args { name type { kind name ofType { name } } } } }
        t: __type(name: "ReadOnlyAuthors") { fields { name } }
      }`);
      const names = data.m.fields.map((f: { name: string }) => f.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'addAuthors',
          'updateAuthors',
          'deleteAuthors',
          'addReadOnlyAuthors',
          'addCountries',
        ]),
      );
      expect(names).not.toContain('updateReadOnlyAuthors');
      expect(names).not.toContain('deleteReadOnlyAuthors');
      expect(names).not.toContain('addDeep');
      // Required columns are included whatever the fields tree says, and marked non-null.
      expect(data.t.fields.map((f: { name: string }) => f.name).sort()).toEqual([
        'email',
        'id',
        'name',
      ]);
      const add = data.m.fields.find((f: { name: string }) => f.name === 'addAuthors');
      const arg = (n: string) => add.args.find((a: { name: string }) => a.name === n).type;
      expect(arg('name')).toEqual({ kind: 'NON_NULL', name: null, ofType: { name: 'String' } });
      expect(arg('id')).toEqual({ kind: 'SCALAR', name: 'ID', ofType: null });
      expect(arg('born')).toEqual({ kind: 'SCALAR', name: 'Date', ofType: null });
      const update = data.m.fields.find((f: { name: string }) => f.name === 'updateAuthors');
      expect(update.args.find((a: { name: string }) => a.name === 'id').type.kind).toBe('NON_NULL');
      expect(update.args.find((a: { name: string }) => a.name === 'name').type.kind).toBe('SCALAR');
    });
  });
}
