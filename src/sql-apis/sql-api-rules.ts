import type { ColumnKind } from '../datasources/core/dialect';
import { baseName } from '../graphql-gateway/api-tree';
import { OPERATION_KINDS } from '../graphql-gateway/operations';
import type {
  SqlApiArgument,
  SqlApiColumn,
  SqlApiDefinition,
  VersionDefinition,
} from '../platform/version-definition';

/*
 * The rules of an SQL API definition that need no database (README "SQL APIs"): names, what a
 * save keeps of the builder's confirmations, what publishing needs. Shared by the REST service
 * and the GraphQL schema part (`graphql-gateway/sql-api-schema.ts`).
 */

/** An SQL API's name: its GraphQL root field, so a GraphQL name of at most 63 characters. */
export const SQL_API_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/**
 * The kinds a builder may confirm for an argument or a column: every {@link ColumnKind} but
 * `array`, whose element kind only the catalog of a table tells.
 */
export const CONFIRMABLE_KINDS: readonly ColumnKind[] = [
  'text',
  'int',
  'bigint',
  'float',
  'decimal',
  'boolean',
  'date',
  'time',
  'duration',
  'timestamp',
  'timestamptz',
  'json',
  'uuid',
  'binary',
  'other',
];

/**
 * Arguments a query kind's field takes besides the statement's own: a statement parameter of one
 * of these names would hide them, so it is refused at save.
 */
export const RESERVED_ARGUMENTS = ['take', 'skip', 'where', 'order'] as const;

/**
 * An implicit parameter read from the calling app user (README "SQL APIs"): `:user_id` is the
 * user's id, `:user_<attr>` the user's attribute `<attr>`. Null for any other name.
 */
export function implicitUserValue(name: string): { attribute: string | null } | null {
  if (name === 'user_id') return { attribute: null };
  const m = /^user_(.+)$/.exec(name);
  return m ? { attribute: m[1] } : null;
}

/** `salesReport` → `SalesReport`: the start of the row and result type names. */
export function sqlTypeBase(name: string): string {
  return baseName(name);
}

/** The GraphQL type names an SQL API mints: `<Name>Row`, its filter and order, `<Name>Result`. */
export function sqlApiTypeNames(api: Pick<SqlApiDefinition, 'name' | 'kind'>): string[] {
  const base = sqlTypeBase(api.name);
  return api.kind === 'query'
    ? [`${base}Row`, `${base}RowFilter`, `${base}RowOrder`]
    : [`${base}Row`, `${base}Result`];
}

/**
 * The problem of an SQL API's name against the rest of the definition, or null: another SQL API
 * of the same name (names differ by more than case), or a Table API operation that is already
 * the root field (`getCustomers` of the Table API `customers`, CONTRACT.md §6).
 */
export function nameProblem(def: VersionDefinition, api: SqlApiDefinition): string | null {
  const lower = api.name.toLowerCase();
  const other = (def.sqlApis ?? []).find((a) => a.id !== api.id && a.name.toLowerCase() === lower);
  if (other)
    return `An SQL API named "${other.name}" exists already (names differ by more than case)`;
  for (const table of def.apis) {
    for (const kind of OPERATION_KINDS) {
      const op = kind.rootFieldName(baseName(table.name));
      if (op.toLowerCase() === lower) {
        return `"${api.name}" is the operation ${op} of the Table API "${table.name}"; choose another name`;
      }
    }
  }
  return null;
}

/** The problem of a statement parameter's name (a reserved argument, a `__` name), or null. */
export function parameterProblem(name: string): string | null {
  if (name.startsWith('__')) return `:${name}: names starting with __ are GraphQL's own; rename it`;
  return (RESERVED_ARGUMENTS as readonly string[]).includes(name)
    ? `:${name} would hide the ${name} argument of the field; rename the parameter`
    : null;
}

/** The problem of a result column's name (not a GraphQL name, or given twice), or null. */
export function columnNameProblems(names: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name.startsWith('__')) {
      problems.push(
        `column "${name}" is not a GraphQL name: give it an alias of letters, digits and _ (AS total_amount)`,
      );
    } else if (seen.has(name)) {
      problems.push(`column "${name}" appears twice: give one an alias`);
    }
    seen.add(name);
  }
  return problems;
}

/** What the database said of a statement (`StatementDescription` of `Dialect.describeStatement`). */
export interface DescribedStatement {
  parameters: { name: string; databaseType: string | null; kind: ColumnKind | null }[];
  columns: {
    name: string;
    databaseType: string | null;
    kind: ColumnKind | null;
    nullable: boolean | null;
  }[];
}

/**
 * The arguments and columns of a saved statement: what the database proposed, with the builder's
 * confirmations kept for every name that still exists (`confirmed`). An unconfirmed argument
 * takes the proposed kind (null when the database could not tell: MySQL, MariaDB and SQLite type
 * no parameter) and is required; an unconfirmed column takes the proposed kind and nullability,
 * nullable when the database could not tell (an expression), so a NULL never breaks a row.
 */
export function mergeDescription(
  description: DescribedStatement,
  previous: Pick<SqlApiDefinition, 'arguments' | 'columns'> | null,
): { arguments: SqlApiArgument[]; columns: SqlApiColumn[] } {
  const kept = <T extends { name: string; confirmed?: boolean }>(
    list: T[] | undefined,
    name: string,
  ) => list?.find((e) => e.name === name && e.confirmed);
  const args = description.parameters.map((p): SqlApiArgument => {
    const proposed = { databaseType: p.databaseType, kind: p.kind, nullable: null };
    const old = kept(previous?.arguments, p.name);
    if (old) return { ...old, proposed };
    return { name: p.name, type: p.kind, nullable: false, proposed };
  });
  const columns = description.columns.map((c): SqlApiColumn => {
    const proposed = { databaseType: c.databaseType, kind: c.kind, nullable: c.nullable };
    const old = kept(previous?.columns, c.name);
    if (old) return { ...old, proposed };
    return { name: c.name, kind: c.kind, nullable: c.nullable ?? true, proposed };
  });
  return { arguments: args, columns };
}

/**
 * Why an SQL API cannot be published (or served) yet, one entry per problem: an argument without
 * a type, a column without a kind (README "SQL APIs": the database could not tell, so the builder
 * confirms one), an enum that left the model. Empty when it can be.
 */
export function typingProblems(def: VersionDefinition, api: SqlApiDefinition): string[] {
  const problems: string[] = [];
  const enums = new Set(def.enums.map((e) => e.name));
  for (const a of api.arguments) {
    if (implicitUserValue(a.name)) continue;
    if (a.type === null)
      problems.push(`argument ${a.name} needs a type (PATCH …/arguments/${a.name} {"kind": …})`);
    if (a.enum !== undefined && !enums.has(a.enum))
      problems.push(`argument ${a.name}: there is no enum "${a.enum}" any more`);
  }
  for (const c of api.columns) {
    if (c.kind === null)
      problems.push(`column ${c.name} needs a kind (PATCH …/columns/${c.name} {"kind": …})`);
    if (c.enum !== undefined && !enums.has(c.enum))
      problems.push(`column ${c.name}: there is no enum "${c.enum}" any more`);
  }
  return problems;
}

/**
 * What keeps an SQL API from publishing besides its typing (README "SQL APIs", issue 26 item 4):
 * its datasource gone (`datasource` null), or a query kind on a SQL Server datasource without a
 * read-only login (SQL Server has no read-only transaction: that login is what refuses a write).
 * Each reason says what to do.
 */
export function publishProblems(
  api: Pick<SqlApiDefinition, 'kind' | 'datasourceId'>,
  datasource: { type: string; readOnlyLogin: boolean } | null,
): string[] {
  if (datasource === null) return [`datasource ${api.datasourceId} does not exist any more`];
  if (datasource.type === 'mssql' && api.kind === 'query' && !datasource.readOnlyLogin)
    return [
      "a query kind on SQL Server needs its datasource's read-only login (SQL Server has no read-only transaction): set readOnlyLogin on the datasource (its page, or PATCH /api/apps/:appId/datasources/:id), or make it a mutation kind",
    ];
  return [];
}
