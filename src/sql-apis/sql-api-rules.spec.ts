import { emptyDefinition, type SqlApiDefinition } from '../platform/version-definition';
import {
  columnNameProblems,
  implicitUserValue,
  mergeDescription,
  nameProblem,
  parameterProblem,
  publishProblems,
  typingProblems,
} from './sql-api-rules';

/** README "SQL APIs": the rules of a definition that need no database. */

const api = (over: Partial<SqlApiDefinition> = {}): SqlApiDefinition => ({
  id: 'a1',
  name: 'salesReport',
  datasourceId: 'ds',
  statement: 'SELECT 1 AS one',
  kind: 'query',
  arguments: [],
  columns: [],
  filterable: false,
  public: false,
  status: 'draft',
  createdAt: '',
  updatedAt: '',
  ...over,
});

const proposed = { databaseType: null, kind: null, nullable: null };

describe('SQL API rules', () => {
  it('refuses a name another SQL API has (by case) or a Table API operation holds', () => {
    const def = emptyDefinition();
    def.sqlApis = [api({ id: 'other', name: 'SalesReport' })];
    expect(nameProblem(def, api())).toMatch(/An SQL API named "SalesReport" exists already/);
    def.sqlApis = [];
    def.apis.push({
      id: 't',
      name: 'customers',
      table: 'customers',
      actions: { select: true, insert: false, update: false, delete: false },
      public: { select: false, insert: false, update: false, delete: false },
      fields: null,
      status: 'draft',
      createdAt: '',
      updatedAt: '',
    });
    expect(nameProblem(def, api({ name: 'getCustomers' }))).toBe(
      '"getCustomers" is the operation getCustomers of the Table API "customers"; choose another name',
    );
    expect(nameProblem(def, api({ name: 'countcustomers' }))).toMatch(/countCustomers/);
    expect(nameProblem(def, api({ name: 'customers' }))).toBeNull();
  });

  it('keeps confirmations by name on a new description, and proposes the rest', () => {
    const previous = {
      arguments: [
        { name: 'since', type: 'date' as const, nullable: true, proposed, confirmed: true },
        { name: 'gone', type: 'int' as const, nullable: false, proposed, confirmed: true },
        { name: 'status', type: 'text' as const, nullable: false, proposed },
      ],
      columns: [
        { name: 'total', kind: 'decimal' as const, nullable: false, proposed, confirmed: true },
        { name: 'at', kind: 'timestamp' as const, nullable: true, proposed },
      ],
    };
    const merged = mergeDescription(
      {
        parameters: [
          { name: 'since', databaseType: 'date', kind: 'date' },
          { name: 'status', databaseType: null, kind: null },
        ],
        columns: [
          { name: 'total', databaseType: 'numeric', kind: 'decimal', nullable: null },
          { name: 'at', databaseType: 'timestamptz', kind: 'timestamptz', nullable: false },
          { name: 'label', databaseType: null, kind: null, nullable: null },
        ],
      },
      previous,
    );
    expect(merged.arguments).toEqual([
      {
        name: 'since',
        type: 'date',
        nullable: true,
        confirmed: true,
        proposed: { databaseType: 'date', kind: 'date', nullable: null },
      },
      {
        name: 'status',
        type: null,
        nullable: false,
        proposed: { databaseType: null, kind: null, nullable: null },
      },
    ]);
    expect(merged.columns.map((c) => [c.name, c.kind, c.nullable, c.confirmed])).toEqual([
      ['total', 'decimal', false, true],
      ['at', 'timestamptz', false, undefined],
      // Unknown nullability is nullable: a NULL never breaks a row.
      ['label', null, true, undefined],
    ]);
  });

  it('says what publishing needs: a type per argument and a kind per column', () => {
    const def = emptyDefinition();
    const problems = typingProblems(
      def,
      api({
        arguments: [
          { name: 'status', type: null, nullable: false, proposed },
          { name: 'user_id', type: null, nullable: false, proposed },
          { name: 'tag', type: 'text', nullable: false, enum: 'Gone', proposed },
        ],
        columns: [{ name: 'label', kind: null, nullable: true, proposed }],
      }),
    );
    expect(problems).toEqual([
      'argument status needs a type (PATCH …/arguments/status {"kind": …})',
      'argument tag: there is no enum "Gone" any more',
      'column label needs a kind (PATCH …/columns/label {"kind": …})',
    ]);
  });

  it('reads implicit user parameters and refuses reserved ones and unusable column names', () => {
    expect(implicitUserValue('user_id')).toEqual({ attribute: null });
    expect(implicitUserValue('user_region')).toEqual({ attribute: 'region' });
    expect(implicitUserValue('userid')).toBeNull();
    expect(parameterProblem('take')).toMatch(/would hide the take argument/);
    expect(parameterProblem('since')).toBeNull();
    expect(parameterProblem('__typename')).toMatch(/GraphQL's own/);
    expect(columnNameProblems(['ok', 'sum(total)', 'ok', '__x'])).toEqual([
      'column "sum(total)" is not a GraphQL name: give it an alias of letters, digits and _ (AS total_amount)',
      'column "ok" appears twice: give one an alias',
      'column "__x" is not a GraphQL name: give it an alias of letters, digits and _ (AS total_amount)',
    ]);
  });
});

describe('publishProblems: what publishing needs besides types (issue 26 item 4)', () => {
  it('refuses a query kind on SQL Server without a read-only login, saying what to set', () => {
    const problems = publishProblems(api(), { type: 'mssql', readOnlyLogin: false });
    expect(problems).toEqual([
      expect.stringMatching(
        /^a query kind on SQL Server needs its datasource's read-only login .*set readOnlyLogin on the datasource/,
      ),
    ]);
  });

  it('publishes a query kind on SQL Server with one, and a mutation kind without one', () => {
    expect(publishProblems(api(), { type: 'mssql', readOnlyLogin: true })).toEqual([]);
    expect(
      publishProblems(api({ kind: 'mutation' }), { type: 'mssql', readOnlyLogin: false }),
    ).toEqual([]);
  });

  it('needs no read-only login on the databases with a read-only transaction', () => {
    for (const type of ['postgres', 'mysql', 'sqlite'])
      expect(publishProblems(api(), { type, readOnlyLogin: false })).toEqual([]);
  });

  it('names a datasource that is gone', () => {
    expect(publishProblems(api(), null)).toEqual(['datasource ds does not exist any more']);
  });
});
