import DataLoader from 'dataloader';
import {
  type FieldNode,
  getArgumentValues,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  Kind,
  type ValueNode,
} from 'graphql';
import { DomainError, ErrorCode } from '../common/domain-error';
import type {
  Capabilities,
  ColumnValue,
  CompiledQuery,
  Condition,
  Dialect,
  StatementResult,
  WriteContext,
} from '../datasources/dialect';
import { isInvalidValueError } from '../datasources/invalid-value';
import { invalidValue, nameInvalidValue } from '../datasources/refusal-helpers';
import type { NavigationNode, RowNode } from './api-tree';
import type { GatewayContext } from './gateway-context';
import { DatabaseRefusalError } from './graphql-errors';
import {
  columnKinds,
  FilterInput,
  planOrder,
  planPage,
  planWhere,
  selectColumns,
  shapeRows,
  tableRef,
} from './query-planner';
import { planValues, primaryKeyCondition, writableColumns } from './write-planner';

/** Arguments of `get<Base>` and of one-to-many navigation fields. */
export interface ListArgs {
  where?: FilterInput | null;
  order?: Record<string, 'ASC' | 'DESC'>[] | null;
  take?: number | null;
  skip?: number | null;
}

type Row = Record<string, unknown>;

/** Parent keys per batch: bounded so the IN list stays within every database's parameter limit. */
const MAX_BATCH = 1000;

/** Arguments read per request (its variable values) and field occurrence (its field nodes). */
const ARGUMENTS = new WeakMap<object, WeakMap<readonly FieldNode[], Record<string, unknown>>>();

/** Marks a field occurrence whose arguments read variables, so are read per request. */
const PER_REQUEST = Symbol('arguments read per request');

/**
 * Arguments of field occurrences that read no variable: the same in every request, so read once
 * per occurrence of a cached operation (graphql-jit hands every request the `fieldNodes` array it
 * compiled the occurrence with; graphql-js makes new ones per execution, which then only miss).
 */
const LITERAL_ARGUMENTS = new WeakMap<
  readonly FieldNode[],
  Record<string, unknown> | typeof PER_REQUEST
>();

/**
 * Whether a value node is or holds a variable. Recursive: the document passed validation, whose
 * rules recurse through the same literals (a literal too deep for them was refused at compile).
 */
function readsVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(readsVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((f) => readsVariable(f.value));
  return false;
}

/** Whether a field occurrence's arguments are all literals (they then never change). */
function hasLiteralArguments(info: GraphQLResolveInfo): boolean {
  return literalArguments(info) !== PER_REQUEST;
}

function literalArguments(info: GraphQLResolveInfo): Record<string, unknown> | typeof PER_REQUEST {
  let args = LITERAL_ARGUMENTS.get(info.fieldNodes);
  if (args === undefined) {
    const node = info.fieldNodes[0];
    const variables = (node.arguments ?? []).some((a) => readsVariable(a.value));
    args = variables ? PER_REQUEST : readArguments(info);
    LITERAL_ARGUMENTS.set(info.fieldNodes, args);
  }
  return args;
}

function readArguments(info: GraphQLResolveInfo): Record<string, unknown> {
  const field = info.parentType.getFields()[info.fieldName];
  return getArgumentValues(field, info.fieldNodes[0], info.variableValues);
}

/**
 * A field's arguments as graphql-js's `getArgumentValues` reads them from the field node and the
 * request's coerced variables, whichever executor called the resolver. graphql-jit builds them
 * otherwise: it writes literal values into generated code as JSON (a `Base64` literal's Buffer
 * arrives as `{type, data}`) and gives a variable left out inside a literal object or list
 * `null` where graphql-js leaves the field out. Arguments that read no variable are read once per
 * field occurrence ({@link LITERAL_ARGUMENTS}); others once per field occurrence and request, so
 * every parent row of a navigation field shares one object: resolvers never change their
 * arguments.
 * @throws GraphQLError as `getArgumentValues` does (a non-null argument given a null variable).
 */
function argumentsOf(info: GraphQLResolveInfo): Record<string, unknown> {
  const literal = literalArguments(info);
  if (literal !== PER_REQUEST) return literal;
  const variables = (info.variableValues ?? {}) as object;
  let byField = ARGUMENTS.get(variables);
  if (!byField) ARGUMENTS.set(variables, (byField = new WeakMap()));
  let args = byField.get(info.fieldNodes);
  if (!args) {
    args = readArguments(info);
    byField.set(info.fieldNodes, args);
  }
  return args;
}

/** `resolve` called with {@link argumentsOf} in place of the executor's arguments. */
function withGraphQLArguments<S, A>(
  resolve: GraphQLFieldResolver<S, GatewayContext, A>,
): GraphQLFieldResolver<S, GatewayContext, A> {
  return (source, _args, ctx, info) => resolve(source, argumentsOf(info) as A, ctx, info);
}

/**
 * A root read's statement (null: `take: 0`, nothing to run) and the columns it reads. Planned from
 * the arguments, the caller's scope and the dialect only, so a field occurrence whose arguments
 * are literals, read by a caller no row rule bounds, is planned once (issue 8 item 1: the SQL of a
 * cached operation is not built again per request). Kept per field occurrence in a WeakMap: it
 * lives as long as the cached operation, whose document the cache charges by its text (a
 * statement's SQL and values are bounded by that text).
 */
interface PlannedRead {
  query: CompiledQuery | null;
  columns: string[];
}

/**
 * The planned statement of a root read for this request: the one kept for the field occurrence
 * when {@link PlannedRead} allows, else `plan()` now (kept when it allows).
 */
function plannedRead(
  kept: WeakMap<readonly FieldNode[], PlannedRead>,
  info: GraphQLResolveInfo,
  scope: Condition,
  plan: () => PlannedRead,
): PlannedRead {
  const keep = admitsEveryRow(scope) && hasLiteralArguments(info);
  let read = keep ? kept.get(info.fieldNodes) : undefined;
  if (!read) {
    read = plan();
    if (keep) kept.set(info.fieldNodes, read);
  }
  return read;
}

/** `get<Base>`: one SELECT with the filter, order and page, reading only the requested columns. */
export function getResolver(
  node: RowNode,
): GraphQLFieldResolver<unknown, GatewayContext, ListArgs> {
  const kept = new WeakMap<readonly FieldNode[], PlannedRead>();
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const page = planPage(args.take, args.skip);
    const conn = await ctx.connection(node.table.datasourceId);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const { query, columns } = plannedRead(kept, info, scope, () => {
      const where = planWhere(node, args.where, conn.dialect);
      if (page.take === 0) return { query: null, columns: [] };
      const columns = selectColumns(node, info.fieldNodes, info.fragments);
      const query = conn.dialect.compileSelect({
        table: tableRef(node.table),
        columns,
        kinds: columnKinds(node.table),
        where,
        scope,
        order: planOrder(node, args.order),
        ...page,
      });
      return { query, columns };
    });
    if (!query) return [];
    return shapeRows(node.table, columns, (await conn.run(query)).rows, conn.dialect);
  });
}

/** `count<Base>`: one `SELECT COUNT(*)` with the same filter as `get<Base>`, planned as a get is. */
export function countResolver(
  node: RowNode,
): GraphQLFieldResolver<unknown, GatewayContext, { where?: FilterInput | null }> {
  const kept = new WeakMap<readonly FieldNode[], PlannedRead>();
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const { query } = plannedRead(kept, info, scope, () => ({
      query: conn.dialect.compileCount({
        table: tableRef(node.table),
        where: planWhere(node, args.where, conn.dialect),
        scope,
      }),
      columns: [],
    }));
    const { rows } = await conn.run(query!);
    return Number(rows[0]?.count ?? 0);
  });
}

/**
 * A navigation field. All parent rows of one level share one DataLoader, so a level costs one
 * query however many parents it has (`WHERE key IN (…)`; one-to-many pages per parent with
 * `ROW_NUMBER() OVER (PARTITION BY …)`).
 */
export function navigationResolver(
  nav: NavigationNode,
): GraphQLFieldResolver<Row, GatewayContext, ListArgs> {
  const { navigation, node } = nav;
  const many = navigation.kind === 'oneToMany';
  return withGraphQLArguments(async (row, args, ctx, info) => {
    const key = row[navigation.fromColumn];
    if (key === null || key === undefined) return many ? [] : null;
    const page = many ? planPage(args.take, args.skip) : null;
    let loader = ctx.loaders.get(info.fieldNodes);
    if (!loader) {
      // Built once per field occurrence; every parent row of the level then shares it.
      const columns = selectColumns(node, info.fieldNodes, info.fragments, [navigation.toColumn]);
      loader = new DataLoader<unknown, unknown>(
        async (keys) => {
          const conn = await ctx.connection(node.table.datasourceId);
          const toColumn = node.table.columns.find((c) => c.name === navigation.toColumn)!;
          const inKeys: Condition = {
            kind: 'in',
            column: toColumn.name,
            values: keys.map((k) => conn.dialect.bindValue(toColumn, k)),
            negated: false,
          };
          const where: Condition = many
            ? { kind: 'and', items: [inKeys, planWhere(node, args.where, conn.dialect)] }
            : inKeys;
          const query = conn.dialect.compileSelect({
            table: tableRef(node.table),
            columns,
            kinds: columnKinds(node.table),
            where,
            // Rows outside the caller's rule are invisible through navigation too: a many-to-one
            // field gives null, a one-to-many one leaves them out (CONTRACT.md §4).
            scope: ctx.scopes.of(node.table, conn.dialect),
            order: planOrder(node, many ? args.order : null),
            take: page ? page.take : null,
            skip: page ? page.skip : 0,
            ...(many ? { partition: { column: toColumn.name } } : {}),
          });
          const rows = shapeRows(node.table, columns, (await conn.run(query)).rows, conn.dialect);
          const groups = new Map<string, Row[]>();
          for (const r of rows) {
            const k = String(r[toColumn.name]);
            const group = groups.get(k);
            if (group) group.push(r);
            else groups.set(k, [r]);
          }
          return keys.map((k) =>
            many ? (groups.get(String(k)) ?? []) : (groups.get(String(k))?.[0] ?? null),
          );
        },
        { cacheKeyFn: (k) => String(k), maxBatchSize: MAX_BATCH },
      );
      ctx.loaders.set(info.fieldNodes, loader);
    }
    if (page && page.take === 0) return [];
    return loader.load(key);
  });
}

type Run = (query: CompiledQuery) => Promise<StatementResult>;

/**
 * Runs a write; a driver error that is a refusal of the contract's kinds becomes a
 * {@link DatabaseRefusalError} (the statement failed whole, so the database is unchanged).
 * The request's statement guard answers a bad value with a field-less INVALID_VALUE carrying the
 * driver's error as `cause`; the write translates that driver error again with the dialect's
 * `translateError`, which knows the table and may name the column; one the translation does not
 * know but {@link isInvalidValueError} does stays INVALID_VALUE. An INVALID_VALUE the database
 * did not tie to a column (a CHECK constraint with its own name, PostgreSQL's data exceptions,
 * SQL Server's conversion errors) names the column the write set, when it set exactly one outside
 * the primary key (issue 11, item 2).
 */
async function runWrite(
  run: Run,
  dialect: Dialect,
  node: RowNode,
  operation: WriteContext['operation'],
  query: CompiledQuery,
  written: ColumnValue[] = [],
): Promise<StatementResult> {
  try {
    return await run(query);
  } catch (thrown) {
    const error =
      thrown instanceof DatabaseRefusalError && thrown.cause !== undefined ? thrown.cause : thrown;
    let refusal =
      dialect.translateError(error, {
        table: tableRef(node.table),
        columns: node.table.columns,
        primaryKey: node.table.primaryKey,
        operation,
      }) ??
      (isInvalidValueError(dialect.type, error)
        ? invalidValue(null, 'it is out of range or malformed for its type')
        : null);
    if (!refusal) throw thrown;
    if (refusal.code === 'INVALID_VALUE' && refusal.field === null && operation !== 'delete') {
      const key = new Set(node.table.primaryKey);
      const set = written.length > 1 ? written.filter((v) => !key.has(v.column)) : written;
      if (set.length === 1) refusal = nameInvalidValue(refusal, set[0].column);
    }
    // Some databases (SQLite, SQL Server) do not say which foreign key failed: when an insert set
    // exactly one foreign-key column, that is the one. (An update may instead have hit rows that
    // depend on this one, so it is left as the database said.)
    if (
      refusal.code === 'FOREIGN_KEY_VIOLATION' &&
      refusal.field === null &&
      operation === 'insert'
    ) {
      const fks = written.filter((v) =>
        node.table.foreignKeys.some((fk) => fk.columns.includes(v.column)),
      );
      if (fks.length === 1) {
        refusal.field = fks[0].column;
        refusal.message = `${fks[0].column} refers to a row that does not exist`;
      }
    }
    throw new DatabaseRefusalError(refusal);
  }
}

type Args = Record<string, unknown>;

/** Whether a scope admits every row (no rule bounds the caller): then no check is needed. */
function admitsEveryRow(scope: Condition): boolean {
  return scope.kind === 'and' && scope.items.length === 0;
}

/** A written row outside the caller's rule: the write is rolled back (CONTRACT.md §4). */
function outsideRule(table: string): DomainError {
  return new DomainError(
    ErrorCode.Forbidden,
    `The row would be outside the rows your role may write in ${table}; nothing was written`,
  );
}

/** Whether the row with these key values is inside `scope` (read in the write's transaction). */
async function insideScope(
  run: Run,
  dialect: Dialect,
  node: RowNode,
  key: Record<string, unknown>,
  scope: Condition,
): Promise<boolean> {
  const items: Condition[] = node.table.primaryKey.map((column) => ({
    kind: 'compare',
    column,
    op: 'eq',
    value: key[column],
  }));
  const { rows } = await run(
    dialect.compileSelect({
      table: tableRef(node.table),
      columns: node.table.primaryKey,
      where: { kind: 'and', items },
      scope,
      order: planOrder(node, null),
      take: 1,
      skip: 0,
    }),
  );
  return rows.length > 0;
}

/**
 * `add<Base>`: one INSERT that reads the row back (`RETURNING`/`OUTPUT`) with the requested
 * columns; `true` where the database cannot return the row in the same statement (MySQL). When a
 * row rule bounds the caller, the INSERT and a read of the new row under the rule run in one
 * transaction, rolled back when the row is outside it (CONTRACT.md §4).
 */
export function addResolver(
  node: RowNode,
  capabilities: Capabilities,
): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  const columns = writableColumns(node, 'insert');
  const key = node.table.primaryKey;
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const values = planValues(node, columns, args, conn.dialect);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const checked = !admitsEveryRow(scope);
    const requested = capabilities.insertReturning
      ? selectColumns(node, info.fieldNodes, info.fragments)
      : [];
    const returning =
      checked && capabilities.insertReturning ? [...new Set([...requested, ...key])] : requested;
    const insert = conn.dialect.compileInsert({
      table: tableRef(node.table),
      values,
      returning,
      kinds: columnKinds(node.table),
    });
    const write = async (run: Run) => {
      const result = await runWrite(run, conn.dialect, node, 'insert', insert, values);
      if (checked) {
        const written: Record<string, unknown> = { ...result.rows[0] };
        for (const v of values) if (!(v.column in written)) written[v.column] = v.value;
        if (!(key[0] in written) && result.insertId !== undefined)
          written[key[0]] = result.insertId;
        const known = key.length > 0 && key.every((c) => written[c] !== undefined);
        if (!known || !(await insideScope(run, conn.dialect, node, written, scope))) {
          throw outsideRule(node.table.name);
        }
      }
      return result;
    };
    const { rows } = checked ? await conn.transaction(write) : await write(conn.run);
    if (!capabilities.insertReturning) return true;
    return shapeRows(node.table, requested, rows, conn.dialect)[0] ?? null;
  });
}

/**
 * `update<Base>`: changes only the columns sent (null empties one) of the row with the given
 * primary key; the row, or null when no row has that key or the row is outside the caller's
 * rule (CONTRACT.md §6, §4). A change that would move the row outside the rule is rolled back.
 * Where the database has no `UPDATE … RETURNING` (MySQL, MariaDB) the UPDATE and the read-back
 * by key run in one transaction.
 */
export function updateResolver(
  node: RowNode,
  capabilities: Capabilities,
): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  const key = new Set(node.table.primaryKey);
  const columns = writableColumns(node, 'update').filter((c) => !key.has(c.name));
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const where = primaryKeyCondition(node, args, conn.dialect);
    const set = planValues(node, columns, args, conn.dialect);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const returning = selectColumns(node, info.fieldNodes, info.fragments);
    const table = tableRef(node.table);
    const kinds = columnKinds(node.table);
    const readBack = conn.dialect.compileSelect({
      table,
      columns: returning,
      kinds,
      where,
      scope,
      order: planOrder(node, null),
      take: 1,
      skip: 0,
    });
    let rows: Record<string, unknown>[];
    if (set.length === 0) {
      rows = (await conn.run(readBack)).rows;
    } else if (capabilities.updateReturning && admitsEveryRow(scope)) {
      const update = conn.dialect.compileUpdate({ table, set, where, scope, returning, kinds });
      rows = (await runWrite(conn.run, conn.dialect, node, 'update', update, set)).rows;
    } else {
      // The UPDATE (of a row inside the rule) and the read-back under the rule in one
      // transaction: a row the change moved outside the rule is no row to return, so the change
      // is rolled back. The key never changes, so the row is read back by it.
      rows = await conn.transaction(async (run) => {
        const update = conn.dialect.compileUpdate({
          table,
          set,
          where,
          scope,
          returning: [],
          kinds,
        });
        const { affected } = await runWrite(run, conn.dialect, node, 'update', update, set);
        if ((affected ?? 0) === 0) return [];
        const back = (await run(readBack)).rows;
        if (back.length === 0) throw outsideRule(node.table.name);
        return back;
      });
    }
    return shapeRows(node.table, returning, rows, conn.dialect)[0] ?? null;
  });
}

/**
 * `delete<Base>`: true when a row with that primary key, inside the caller's rule, was deleted;
 * false when none was (CONTRACT.md §6, §4).
 */
export function deleteResolver(node: RowNode): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  return withGraphQLArguments(async (_source, args, ctx) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const where = primaryKeyCondition(node, args, conn.dialect);
    const { affected } = await runWrite(
      conn.run,
      conn.dialect,
      node,
      'delete',
      conn.dialect.compileDelete({
        table: tableRef(node.table),
        where,
        scope: ctx.scopes.of(node.table, conn.dialect),
      }),
    );
    return (affected ?? 0) > 0;
  });
}
