import { upsertAfter, upsertBefore } from '../../webhooks/change-capture';
import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLFieldConfig,
  type GraphQLFieldResolver,
  GraphQLEnumType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
} from 'graphql';
import { invalidInput } from '../../common/domain-error';
import {
  ALL_ROWS,
  type Capabilities,
  type ColumnValue,
  type Condition,
  type Dialect,
  type ModelColumn,
  UPSERT_INSERTED,
} from '../../datasources/core/dialect';
import { PARAMETER_LIMITS } from '../../datasources/core/sql-compiler';
import type { ModelTable } from '../../platform/version-definition';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import { DatabaseRefusalError } from '../graphql-errors';
import {
  columnKinds,
  columnModels,
  type FilterInput,
  planWhere,
  selectColumns,
  shapeRows,
  tableRef,
} from '../query-planner';
import { admitsEveryRow } from '../request/row-scopes';
import { planValues, type Reference, referencesOf, writableColumns } from '../write-planner';
import { addInputType, fieldsNamed, ofRow } from './add-many';
import { withGraphQLArguments } from './arguments';
import type { OperationKind, OperationTypes } from './operation-kind';
import {
  byColumn,
  guardedReferences,
  HIDDEN_CONFLICT,
  outsideRule,
  refuseHiddenReferences,
  type Run,
  runWrite,
} from './writes';

/*
 * `upsert<Base>` and `upsertMany<Base>` (issue 24 item 2, README "Writing rows", "Add or update
 * rows by a key"): insert each row, or update the row that already holds its key.
 */

/** What happened to one row of an upsert. */
export type UpsertStatus = 'INSERTED' | 'UPDATED' | 'UNCHANGED';

/**
 * How often MySQL/MariaDB's upsert reads the existing keys again after a plain INSERT of the new
 * rows met a row another transaction inserted meanwhile (a duplicate key), before answering that
 * refusal.
 */
export const MYSQL_UPSERT_ATTEMPTS = 3;

/** A conflict target `on` offers: the enum value's name (its columns joined by `_`) and columns. */
export interface UpsertKey {
  name: string;
  columns: string[];
}

/** A GraphQL name (GraphQL spec, "Names"), not `true`/`false`/`null` (enum values may not be). */
const ENUM_VALUE = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * The keys an upsert of `node` can be matched by (`<Base>UpsertKey`): the primary key the database
 * declares (not one a builder chose for a table without one: no database constraint backs it),
 * then each plain unique key (`ModelTable.uniqueKeys`, not `partial`), each whose columns the API
 * writes on insert (`writableColumns`), named by its columns (`tenant_id_email`). Where an upsert
 * conflicts on every unique key (`Capabilities.upsertMatchesAnyKey`, MySQL/MariaDB), only a table
 * with exactly one unique key set (primary or unique, partial ones counted) has one: none else.
 */
export function upsertKeys(node: RowNode, capabilities: Capabilities): UpsertKey[] {
  const sets = uniqueKeySets(node.table);
  if (capabilities.upsertMatchesAnyKey && sets.length !== 1) return [];
  const writable = new Set(writableColumns(node, 'insert').map((c) => c.name));
  const keys: UpsertKey[] = [];
  for (const set of sets) {
    if (set.partial || set.columns.length === 0) continue;
    if (!set.columns.every((c) => writable.has(c))) continue;
    const name = set.columns.join('_');
    if (!ENUM_VALUE.test(name) || ['true', 'false', 'null'].includes(name)) continue;
    if (keys.some((k) => k.name === name)) continue;
    keys.push({ name, columns: set.columns });
  }
  return keys;
}

/**
 * The unique key sets the database declares on `table`: its primary key (not one a builder chose:
 * no constraint backs it), then each unique key (`partial` ones marked), in catalog order.
 */
function uniqueKeySets(
  table: Pick<ModelTable, 'primaryKey' | 'primaryKeyChosen' | 'uniqueKeys'>,
): { columns: string[]; partial: boolean }[] {
  const sets: { columns: string[]; partial: boolean }[] = [];
  if (table.primaryKey.length > 0 && table.primaryKeyChosen !== true) {
    sets.push({ columns: table.primaryKey, partial: false });
  }
  for (const u of table.uniqueKeys ?? []) {
    sets.push({ columns: u.columns, partial: u.partial === true });
  }
  return sets;
}

/**
 * Why an API with the insert and update actions over `table` offers no `upsert<Base>` and
 * `upsertMany<Base>` although its table has unique keys, or null when that is not the case: on
 * MySQL/MariaDB (`Capabilities.upsertMatchesAnyKey`) `INSERT … ON DUPLICATE KEY UPDATE` matches
 * a row by any of the table's unique keys ("If more than one unique index is matched, only the
 * first is updated. It is not recommended to use this statement on tables with more than one
 * unique index", MariaDB docs, "INSERT ON DUPLICATE KEY UPDATE"), so the key `on` names could not
 * be the one that matched; {@link upsertKeys} offers none. Saving such an API answers this as a
 * notice (README "Writing rows"), naming the key sets.
 * @param base the API's base name (`Customers`: `upsertCustomers`).
 */
export function upsertNotOffered(
  table: Pick<ModelTable, 'name' | 'primaryKey' | 'primaryKeyChosen' | 'uniqueKeys'>,
  capabilities: Capabilities,
  base: string,
): string | null {
  const sets = uniqueKeySets(table);
  if (!capabilities.upsertMatchesAnyKey || sets.length <= 1) return null;
  const keys = sets.map((k) => `(${k.columns.join(', ')})`).join(', ');
  return (
    `upsert${base} and upsertMany${base} are not offered: "${table.name}" has ${sets.length} unique keys ` +
    `${keys}, and on MySQL/MariaDB an upsert (INSERT … ON DUPLICATE KEY UPDATE) matches a row by any ` +
    `of them, not only by the one named; the API's other operations are offered as usual`
  );
}

/** Arguments of `upsert<Base>` (`row`) and `upsertMany<Base>` (`rows`). */
interface UpsertArgs {
  rows?: Record<string, unknown>[];
  row?: Record<string, unknown>;
  on: string;
  update?: string[] | null;
  when?: FilterInput | null;
}

/** One sent row, planned. */
interface PlannedRow {
  index: number;
  /** `rows[3]`, or `row`: how refusals name it. */
  path: string;
  values: ColumnValue[];
  /** The key's values as bound, in key order. */
  key: unknown[];
  /** The key as the service compares it ({@link keyText}). */
  text: string;
}

/** What one row answers. */
interface RowAnswer {
  status: UpsertStatus;
  row: Record<string, unknown> | null;
}

/**
 * A key's values as one text, for finding duplicates and matching the rows the database answers
 * to the rows sent: each value in its output form (`formatValue`, so a bound value and a read one
 * compare alike), numbers without leading or trailing zeros, UUIDs lower-cased. On MySQL/MariaDB
 * and SQL Server a text value is compared lower-cased and without trailing spaces, as their
 * default collations compare it (case-insensitive, PAD SPACE).
 */
export function keyText(
  dialect: Dialect,
  columns: ModelColumn[],
  values: readonly unknown[],
): string {
  return columns.map((column, i) => keyPart(dialect, column, values[i])).join('\u0000');
}

/** One value of {@link keyText}. */
function keyPart(dialect: Dialect, column: ModelColumn, raw: unknown): string {
  if (raw === null || raw === undefined) return '\u0001null';
  let value: unknown = raw;
  try {
    value = dialect.formatValue(column, raw);
  } catch {
    // The value as given.
  }
  const text =
    typeof value === 'object' && value !== null
      ? JSON.stringify(value)
      : String(value as string | number | boolean | bigint);
  switch (column.kind) {
    case 'int':
    case 'bigint':
      return /^\s*-?\d+\s*$/.test(text) ? BigInt(text.trim()).toString() : text;
    case 'decimal':
    case 'float': {
      const match = /^\s*(-?)0*(\d*?)(?:\.(\d*?)0*)?\s*$/.exec(text);
      if (!match) return text;
      const whole = match[2] || '0';
      const digits = `${whole}${match[3] ? `.${match[3]}` : ''}`;
      return digits === '0' ? '0' : `${match[1]}${digits}`;
    }
    case 'uuid':
      return text.toLowerCase();
    case 'text':
      return dialect.type === 'mysql' || dialect.type === 'mssql'
        ? text.toLowerCase().trimEnd()
        : text;
    default:
      return text;
  }
}

/** The rows of the chunk by key: `key IN (…)` for one column, else `(a = ? AND b = ?) OR …`. */
function keysCondition(columns: string[], rows: readonly PlannedRow[]): Condition {
  if (columns.length === 1) {
    return { kind: 'in', column: columns[0], values: rows.map((r) => r.key[0]), negated: false };
  }
  return {
    kind: 'or',
    items: rows.map((r) => ({
      kind: 'and',
      items: columns.map((column, i) => ({ kind: 'compare', column, op: 'eq', value: r.key[i] })),
    })),
  };
}

/** The rows one statement carries: rows that set the same columns, within the parameter limit. */
interface Chunk {
  columns: string[];
  rows: PlannedRow[];
}

/** SQL Server takes at most 1,000 row values in one VALUES list (Microsoft docs, "Table Value Constructor"). */
const ROWS_PER_STATEMENT = 1_000;
/** Bound values kept free in each statement for `when`, the row rule and the key reads. */
const PARAMETER_MARGIN = 200;

/** The rows grouped by the columns they set (first appearance first), then sliced. */
function chunksOf(dialect: Dialect, planned: PlannedRow[]): Chunk[] {
  const groups = new Map<string, Chunk>();
  for (const row of planned) {
    const columns = row.values.map((v) => v.column);
    const id = columns.join('\u0000');
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { columns, rows: [] }));
    group.rows.push(row);
  }
  const limit = PARAMETER_LIMITS[dialect.type].max - PARAMETER_MARGIN;
  const chunks: Chunk[] = [];
  for (const group of groups.values()) {
    const size = Math.min(
      ROWS_PER_STATEMENT,
      Math.max(1, Math.floor(limit / Math.max(1, group.columns.length))),
    );
    for (let start = 0; start < group.rows.length; start += size) {
      chunks.push({ columns: group.columns, rows: group.rows.slice(start, start + size) });
    }
  }
  return chunks;
}

/** The request as the resolver plans it. */
interface UpsertRequest {
  node: RowNode;
  dialect: Dialect;
  run: Run;
  key: UpsertKey;
  keyColumns: ModelColumn[];
  /** `update` as sent, or null when omitted. */
  update: string[] | null;
  when: Condition;
  scope: Condition;
  checked: boolean;
  /** Charges rows written to the request's rows (and its cost, README "Cost budgets"). */
  charge: (rows: number) => void;
}

/** The update columns of a chunk: as sent (less the key), or every column it sets but the key. */
function updateColumns(request: UpsertRequest, chunk: Chunk): string[] {
  const key = new Set(request.key.columns);
  if (request.update === null) return chunk.columns.filter((c) => !key.has(c));
  for (const column of request.update) {
    if (!chunk.columns.includes(column)) {
      throw invalidInput(
        `${chunk.rows[0].path}: update names ${column}, which this row does not set; send it, or leave it out of update`,
      );
    }
  }
  return request.update.filter((c) => !key.has(c));
}

/**
 * The keys among `chunk`'s that exist within `scope` (and `when`), read in the request's
 * transaction; `lock` reads them `FOR UPDATE` (`Dialect.compileSelectForUpdate`).
 */
async function existingKeys(
  request: UpsertRequest,
  chunk: Chunk,
  scope: Condition,
  lock: boolean,
): Promise<Set<string>> {
  const { node, dialect, key } = request;
  const plan = {
    table: tableRef(node.table),
    columns: key.columns,
    where: keysCondition(key.columns, chunk.rows),
    scope,
    order: key.columns.map((column) => ({ column, direction: 'ASC' as const })),
    take: null,
    skip: 0,
    kinds: columnKinds(node.table),
  };
  const query = lock ? dialect.compileSelectForUpdate(plan) : dialect.compileSelect(plan);
  const { rows } = await request.run(query);
  // One row sent and found: theirs, whatever form the database gave its key in.
  if (chunk.rows.length === 1 && rows.length > 0) return new Set([chunk.rows[0].text]);
  return new Set(
    rows.map((r) =>
      keyText(
        dialect,
        request.keyColumns,
        key.columns.map((c) => r[c]),
      ),
    ),
  );
}

/** `scope AND when`, as one condition. */
function scopeAndWhen(request: UpsertRequest): Condition {
  return { kind: 'and', items: [request.scope, request.when] };
}

/**
 * The databases whose statement tells an inserted row from an updated one and filters the
 * existing row itself (PostgreSQL, `xmax = 0`; SQL Server, `$action`): one upsert statement per
 * chunk, `when` and the row rule in its DO UPDATE WHERE (or WHEN MATCHED AND). A row the statement
 * did not return kept its existing row: UNCHANGED (or, outside the caller's rule, a hidden
 * conflict, found by the read that follows).
 */
async function upsertByStatement(
  request: UpsertRequest,
  chunk: Chunk,
  update: string[],
): Promise<Map<string, UpsertStatus>> {
  const { node, dialect, key } = request;
  const query = dialect.compileUpsert({
    table: tableRef(node.table),
    columns: chunk.columns,
    rows: chunk.rows.map((r) => r.values.map((v) => v.value)),
    key: key.columns,
    update,
    when: request.when,
    scope: request.scope,
    returning: key.columns,
    kinds: columnKinds(node.table),
    model: columnModels(node.table),
  });
  const result = await write(request, chunk, query);
  const statuses = new Map<string, UpsertStatus>();
  for (const row of result.rows) {
    const flag = row[UPSERT_INSERTED];
    const inserted = flag === true || flag === 1 || flag === '1' || flag === 't';
    // One row sent, one answered: theirs, whatever form the database gave its key in.
    const text =
      chunk.rows.length === 1
        ? chunk.rows[0].text
        : keyText(
            dialect,
            request.keyColumns,
            key.columns.map((c) => row[c]),
          );
    statuses.set(text, inserted ? 'INSERTED' : 'UPDATED');
  }
  return statuses;
}

/**
 * SQLite: no statement flag tells an insert from an update, but the request's write transaction
 * (`BEGIN IMMEDIATE`) keeps every other writer out, so the keys read first are exact: a key not
 * there is inserted, one there whose row passes the rule and `when` is updated, any other is left
 * as it is. Then one `INSERT … ON CONFLICT … DO UPDATE … WHERE` per chunk.
 */
async function upsertAfterReading(
  request: UpsertRequest,
  chunk: Chunk,
  update: string[],
): Promise<Map<string, UpsertStatus>> {
  const { node, dialect, key } = request;
  const statuses = await readStatuses(request, chunk, update, false);
  const query = dialect.compileUpsert({
    table: tableRef(node.table),
    columns: chunk.columns,
    rows: chunk.rows.map((r) => r.values.map((v) => v.value)),
    key: key.columns,
    update,
    when: request.when,
    scope: request.scope,
    returning: [],
    kinds: columnKinds(node.table),
  });
  await write(request, chunk, query);
  return statuses;
}

/**
 * Each row's status from the keys that exist (all, within the rule, within the rule and `when`),
 * read in the transaction (`lock`: FOR UPDATE). A key held by a row outside the caller's rule is
 * refused as any unique conflict is ({@link HIDDEN_CONFLICT}), before anything is written.
 */
async function readStatuses(
  request: UpsertRequest,
  chunk: Chunk,
  update: string[],
  lock: boolean,
): Promise<Map<string, UpsertStatus>> {
  const existing = await existingKeys(request, chunk, ALL_ROWS, lock);
  const statuses = new Map<string, UpsertStatus>();
  if (existing.size === 0) {
    for (const row of chunk.rows) statuses.set(row.text, 'INSERTED');
    return statuses;
  }
  const visible = request.checked
    ? await existingKeys(request, chunk, request.scope, false)
    : existing;
  const hidden = [...existing].some((k) => !visible.has(k));
  if (hidden) throw new DatabaseRefusalError({ ...HIDDEN_CONFLICT });
  const updatable =
    update.length === 0
      ? new Set<string>()
      : admitsEveryRow(request.when)
        ? visible
        : await existingKeys(request, chunk, scopeAndWhen(request), false);
  for (const row of chunk.rows) {
    const status = !existing.has(row.text)
      ? 'INSERTED'
      : updatable.has(row.text)
        ? 'UPDATED'
        : 'UNCHANGED';
    statuses.set(row.text, status);
  }
  return statuses;
}

/**
 * MySQL/MariaDB: `ON DUPLICATE KEY UPDATE` can neither filter nor return the existing row, and
 * matches a row another transaction inserts meanwhile. So: read the chunk's existing keys `FOR
 * UPDATE` (their rows stay locked until the request ends), insert the new rows with a plain
 * multi-row INSERT, and update the rows to update with `INSERT … ON DUPLICATE KEY UPDATE` (their
 * keys exist and are locked, so each is an update). A row inserted by another transaction between
 * the read and the INSERT (READ COMMITTED takes no gap locks) makes the INSERT fail whole with a
 * duplicate key: the keys are read again, up to {@link MYSQL_UPSERT_ATTEMPTS} times, so that row
 * is updated instead; after that the refusal is answered.
 */
async function upsertMysql(
  request: UpsertRequest,
  chunk: Chunk,
  update: string[],
): Promise<Map<string, UpsertStatus>> {
  const { node, dialect, key } = request;
  for (let attempt = 1; ; attempt++) {
    const statuses = await readStatuses(request, chunk, update, true);
    const fresh = chunk.rows.filter((r) => statuses.get(r.text) === 'INSERTED');
    if (fresh.length > 0) {
      const insert = dialect.compileInsertMany({
        table: tableRef(node.table),
        columns: chunk.columns,
        rows: fresh.map((r) => r.values.map((v) => v.value)),
        returning: [],
        kinds: columnKinds(node.table),
      });
      try {
        await write(request, { ...chunk, rows: fresh }, insert);
      } catch (error) {
        const duplicate =
          error instanceof DatabaseRefusalError && error.refusal.code === 'UNIQUE_VIOLATION';
        if (duplicate && attempt < MYSQL_UPSERT_ATTEMPTS) continue;
        throw error;
      }
    }
    const updated = chunk.rows.filter((r) => statuses.get(r.text) === 'UPDATED');
    if (updated.length > 0) {
      const query = dialect.compileUpsert({
        table: tableRef(node.table),
        columns: chunk.columns,
        rows: updated.map((r) => r.values.map((v) => v.value)),
        key: key.columns,
        update,
        when: ALL_ROWS,
        scope: ALL_ROWS,
        returning: [],
        kinds: columnKinds(node.table),
      });
      await write(request, { ...chunk, rows: updated }, query);
    }
    return statuses;
  }
}

/**
 * Runs one writing statement of a chunk with its refusals translated (`runWrite`; under a row
 * rule a unique conflict is {@link HIDDEN_CONFLICT}); a refusal names the row when the chunk has
 * one. PostgreSQL's refusal of a statement that would affect one row twice (SQLSTATE 21000: two
 * rows whose keys differ as sent but are equal as the key's index compares them, a `citext` key)
 * is BAD_USER_INPUT.
 */
async function write(
  request: UpsertRequest,
  chunk: Chunk,
  query: Parameters<Run>[0],
): ReturnType<Run> {
  const { node, dialect, run, checked } = request;
  const values = chunk.rows.length === 1 ? chunk.rows[0].values : [];
  try {
    const result = await runWrite(run, dialect, node, 'insert', query, values, checked);
    // Every row sent counts once: as a row the statement answered, else here.
    request.charge(Math.max(0, chunk.rows.length - result.rows.length));
    return result;
  } catch (error) {
    const cause = error instanceof DatabaseRefusalError ? error.cause : error;
    if ((cause as { code?: unknown } | undefined)?.code === '21000') {
      throw invalidInput(
        `Two rows have the same ${request.key.name} as the database compares it; send each key once`,
      );
    }
    throw chunk.rows.length === 1 ? ofRow(chunk.rows[0].path, error) : error;
  }
}

/**
 * Reads the chunk's rows back by key within the caller's rule, with `columns`, and pairs each
 * sent row with its answer. A row inserted or updated that the rule does not show is refused
 * (`outsideRule`: every written row must be inside the rule, and the request rolls back); a row
 * left as it was that the rule does not show held its key outside the rule: refused as any unique
 * conflict ({@link HIDDEN_CONFLICT}), never shown.
 */
async function answerChunk(
  request: UpsertRequest,
  chunk: Chunk,
  statuses: Map<string, UpsertStatus>,
  columns: string[],
): Promise<Map<number, RowAnswer>> {
  const { node, dialect, key } = request;
  if (!request.checked && columns.length === 0) {
    // No row asked for and no rule to check: the statuses are known, nothing to read back.
    const status = (sent: Chunk['rows'][number]) => statuses.get(sent.text) ?? 'UNCHANGED';
    return new Map(chunk.rows.map((sent) => [sent.index, { status: status(sent), row: null }]));
  }
  const read = [...new Set([...columns, ...key.columns])];
  const { rows } = await request.run(
    dialect.compileSelect({
      table: tableRef(node.table),
      columns: read,
      where: keysCondition(key.columns, chunk.rows),
      scope: request.scope,
      order: key.columns.map((column) => ({ column, direction: 'ASC' as const })),
      take: null,
      skip: 0,
      kinds: columnKinds(node.table),
    }),
  );
  const byKey = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    // One row sent, one read by its key: theirs, whatever form the database gave its key in.
    const text =
      chunk.rows.length === 1
        ? chunk.rows[0].text
        : keyText(
            dialect,
            request.keyColumns,
            key.columns.map((c) => row[c]),
          );
    byKey.set(text, row);
  }
  const answers = new Map<number, RowAnswer>();
  for (const sent of chunk.rows) {
    const status = statuses.get(sent.text) ?? 'UNCHANGED';
    const found = byKey.get(sent.text);
    if (!found && request.checked) {
      if (status === 'UNCHANGED') throw new DatabaseRefusalError({ ...HIDDEN_CONFLICT });
      throw outsideRule(node.table.name);
    }
    const row = found ? shapeRows(node.table, columns, [found], dialect)[0] : null;
    answers.set(sent.index, { status, row });
  }
  return answers;
}

/**
 * Plans the sent rows: each row's values as `add<Base>` checks them (a refusal names the row,
 * `rows[3].email`), no nested rows, every key column given and not null, no key twice.
 * @throws DomainError INVALID_INPUT (BAD_USER_INPUT) naming the row, before any SQL.
 */
function planRows(
  node: RowNode,
  dialect: Dialect,
  key: UpsertKey,
  keyColumns: ModelColumn[],
  sent: { path: string; row: Record<string, unknown> }[],
): PlannedRow[] {
  const columns = writableColumns(node, 'insert');
  const names = new Set(columns.map((c) => c.name));
  const seen = new Map<string, string>();
  return sent.map(({ path, row }, index) => {
    for (const field of Object.keys(row)) {
      if (!names.has(field) && row[field] !== undefined) {
        throw invalidInput(
          `${path}.${field}: upsert takes no nested rows; add them with add or addMany`,
        );
      }
    }
    let values: ColumnValue[];
    try {
      values = planValues(node, columns, row, dialect);
    } catch (error) {
      throw ofRow(path, error);
    }
    const given = byColumn(values);
    const keyValues = key.columns.map((column) => {
      if (given[column] === null || given[column] === undefined) {
        throw invalidInput(
          `${path}.${column}: on: ${key.name} matches rows by ${key.columns.join(', ')}, so every row gives ${key.columns.length === 1 ? 'it' : 'them'} (not null)`,
        );
      }
      return given[column];
    });
    const text = keyText(dialect, keyColumns, keyValues);
    const first = seen.get(text);
    if (first !== undefined) {
      throw invalidInput(
        `${first} and ${path} have the same ${key.columns.join(', ')}: send each key once`,
      );
    }
    seen.set(text, path);
    return { index, path, values, key: keyValues, text };
  });
}

/**
 * Upserts `sent` (README "Writing rows", "Add or update rows by a key") inside the request's
 * transaction and answers each row's status and row, in the order sent. The strategy per database
 * is the one that keeps statuses exact when two requests race for the same new key:
 * PostgreSQL and SQL Server by the statement ({@link upsertByStatement}), SQLite by reading first
 * ({@link upsertAfterReading}), MySQL/MariaDB by locking, inserting and updating apart
 * ({@link upsertMysql}). Foreign keys to rows the caller's rule hides are refused per row first
 * (`refuseHiddenReferences`), and every row is read back within the rule afterwards.
 * @param requested the columns the selection reads of `row`.
 */
async function upsertRows(
  node: RowNode,
  references: readonly Reference[],
  keys: readonly UpsertKey[],
  ctx: GatewayContext,
  args: UpsertArgs,
  sent: { path: string; row: Record<string, unknown> }[],
  requested: string[],
): Promise<RowAnswer[]> {
  const conn = await ctx.connection(node.table.datasourceId);
  const dialect = conn.dialect;
  const key = keys.find((k) => k.name === args.on);
  if (!key) throw invalidInput(`on: ${args.on} is not a key of ${node.table.name}`);
  const keyColumns = key.columns.map((c) => node.table.columns.find((m) => m.name === c)!);
  const planned = planRows(node, dialect, key, keyColumns, sent);
  const scope = ctx.scopes.of(node.table, dialect);
  const request: UpsertRequest = {
    node,
    dialect,
    run: conn.run,
    key,
    keyColumns,
    update: args.update ?? null,
    when: planWhere(node, args.when, dialect, ctx.scopes),
    scope,
    checked: !admitsEveryRow(scope),
    charge: (rows) => ctx.budget.chargeRows(rows, 0),
  };
  // Rows go to the database in key order, whatever order they were sent in: two requests with
  // the same keys then lock them in the same order and wait for each other instead of
  // deadlocking (answers keep the order sent: they are matched by key and index).
  const byKey = [...planned].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const chunks = chunksOf(dialect, byKey);
  const updates = chunks.map((chunk) => updateColumns(request, chunk));
  // A foreign key to a row the caller cannot see is refused before anything is written.
  for (const row of planned) {
    const guarded = guardedReferences(references, row.values, ctx.scopes, dialect);
    const given = byColumn(row.values);
    const complete = guarded.filter((r) => r.columns.every((c) => c in given));
    try {
      await refuseHiddenReferences(conn.run, dialect, complete, given);
    } catch (error) {
      throw ofRow(row.path, error);
    }
  }
  const answers = new Map<number, RowAnswer>();
  for (const [i, chunk] of chunks.entries()) {
    const where = keysCondition(key.columns, chunk.rows);
    const seen = await upsertBefore(ctx, conn, node.table, where, chunk.rows.length);
    const statuses =
      dialect.type === 'mysql'
        ? await upsertMysql(request, chunk, updates[i])
        : dialect.type === 'sqlite'
          ? await upsertAfterReading(request, chunk, updates[i])
          : await upsertByStatement(request, chunk, updates[i]);
    await upsertAfter(ctx, conn, seen);
    for (const [index, answer] of await answerChunk(request, chunk, statuses, requested)) {
      answers.set(index, answer);
    }
  }
  return planned.map((r) => answers.get(r.index)!);
}

/** The columns the selection reads of each answered `row` (`rows { row { … } }`, or `row { … }`). */
function requestedColumns(
  node: RowNode,
  nodes: readonly FieldNode[],
  fragments: Record<string, FragmentDefinitionNode>,
  many: boolean,
): string[] {
  const outer = many ? fieldsNamed('rows', nodes, fragments) : nodes;
  const rowFields = fieldsNamed('row', outer, fragments);
  return rowFields.length ? selectColumns(node, rowFields, fragments) : node.table.primaryKey;
}

/**
 * `upsertMany<Base>`'s resolver: {@link upsertRows} over `rows` (`rows[i]` in refusals), answering
 * `{inserted, updated, unchanged, rows: [{status, row}]}` in the order sent.
 */
export function upsertManyResolver(
  node: RowNode,
  references: readonly Reference[],
  keys: readonly UpsertKey[],
): GraphQLFieldResolver<unknown, GatewayContext, UpsertArgs> {
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const sent = (args.rows ?? []).map((row, i) => ({ path: `rows[${i}]`, row }));
    const requested = requestedColumns(node, info.fieldNodes, info.fragments, true);
    const rows = await upsertRows(node, references, keys, ctx, args, sent, requested);
    const count = (status: UpsertStatus) => rows.filter((r) => r.status === status).length;
    return {
      inserted: count('INSERTED'),
      updated: count('UPDATED'),
      unchanged: count('UNCHANGED'),
      rows,
    };
  });
}

/** `upsert<Base>`'s resolver: {@link upsertRows} of the one `row`, answering `{status, row}`. */
export function upsertResolver(
  node: RowNode,
  references: readonly Reference[],
  keys: readonly UpsertKey[],
): GraphQLFieldResolver<unknown, GatewayContext, UpsertArgs> {
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const sent = [{ path: 'row', row: args.row ?? {} }];
    const requested = requestedColumns(node, info.fieldNodes, info.fragments, false);
    const [answer] = await upsertRows(node, references, keys, ctx, args, sent, requested);
    return answer;
  });
}

/** The types both upsert fields share, built once per API root (cached per version's types). */
interface UpsertTypes {
  key: GraphQLEnumType;
  column: GraphQLEnumType;
  row: GraphQLObjectType;
  result: GraphQLObjectType;
}

const UPSERT_TYPES = new WeakMap<OperationTypes, Map<string, UpsertTypes>>();

/**
 * `<Base>UpsertKey` (the keys `on` takes, {@link upsertKeys}), `<Base>Column` (the columns
 * `update` names), `<Base>UpsertStatus` (INSERTED, UPDATED, UNCHANGED), `<Base>UpsertRow`
 * `{status, row}` and `<Base>UpsertResult` `{inserted, updated, unchanged, rows}`, each claimed
 * like every generated name (a clash is refused, 409).
 */
function upsertTypes(node: RowNode, types: OperationTypes, keys: UpsertKey[]): UpsertTypes {
  let built = UPSERT_TYPES.get(types);
  if (!built) UPSERT_TYPES.set(types, (built = new Map()));
  const known = built.get(node.typeName);
  if (known) return known;
  const base = node.typeName;
  const claim = (suffix: string) => {
    const name = `${base}${suffix}`;
    types.claim(name, `upsert ${node.shape}`, `the upsert types of ${node.table.name} (${base})`);
    return name;
  };
  const key = new GraphQLEnumType({
    name: claim('UpsertKey'),
    description: `A key of ${node.table.name} an upsert matches existing rows by, named by its columns.`,
    values: Object.fromEntries(
      keys.map((k) => [k.name, { value: k.name, description: k.columns.join(', ') }]),
    ),
  });
  const column = new GraphQLEnumType({
    name: claim('Column'),
    description: `A column of ${node.table.name} an upsert may update.`,
    // An enum value may not be `true`, `false` or `null` (GraphQL spec, "Enum Value").
    values: Object.fromEntries(
      writableColumns(node, 'insert')
        .filter((c) => !['true', 'false', 'null'].includes(c.name))
        .map((c) => [c.name, { value: c.name }]),
    ),
  });
  const status = new GraphQLEnumType({
    name: claim('UpsertStatus'),
    description: 'What an upsert did with one row.',
    values: {
      INSERTED: { description: 'No row held its key: it was added.' },
      UPDATED: { description: 'The row holding its key was updated (update and when allowed it).' },
      UNCHANGED: {
        description: 'The row holding its key was left as it was (update: [], or when failed).',
      },
    },
  });
  const row = new GraphQLObjectType({
    name: claim('UpsertRow'),
    description: 'One row an upsert sent: what happened, and the row as it is now.',
    fields: () => ({
      status: { type: new GraphQLNonNull(status) },
      row: { type: types.row(node), description: 'The row as it is now, read back by its key.' },
    }),
  });
  const result = new GraphQLObjectType({
    name: claim('UpsertResult'),
    description: 'What upsertMany did.',
    fields: () => ({
      inserted: { type: new GraphQLNonNull(GraphQLInt), description: 'Rows added.' },
      updated: { type: new GraphQLNonNull(GraphQLInt), description: 'Existing rows updated.' },
      unchanged: {
        type: new GraphQLNonNull(GraphQLInt),
        description: 'Existing rows left as they were.',
      },
      rows: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(row))),
        description: 'Each row sent, in the order sent.',
        // Read back by key: at most LIMIT_BULK_ROWS, no statement per row.
        extensions: { rowEstimate: { rows: 1_000 } },
      },
    }),
  });
  const made = { key, column, row, result };
  built.set(node.typeName, made);
  return made;
}

/** The arguments both upsert fields take after `row`/`rows`. */
function upsertArgs(
  node: RowNode,
  types: OperationTypes,
  made: UpsertTypes,
): GraphQLFieldConfig<unknown, GatewayContext>['args'] {
  return {
    on: {
      type: new GraphQLNonNull(made.key),
      description: 'The key that tells whether a row exists: its primary key or a unique key.',
    },
    update: {
      type: new GraphQLList(new GraphQLNonNull(made.column)),
      description:
        'The columns to change when the row exists; omitted: every column sent but the key; []: leave the existing row as it is.',
    },
    when: {
      type: types.filter(node),
      description: 'Update an existing row only when it matches this filter; else it is UNCHANGED.',
    },
  };
}

/** Whether an API offers the upsert kinds: insert and update actions, and a key to match by. */
function offersUpsert(
  api: { actions: { insert: boolean; update: boolean } },
  node: RowNode,
  capabilities: Capabilities,
): boolean {
  return api.actions.insert && api.actions.update && upsertKeys(node, capabilities).length > 0;
}

/**
 * `upsertMany<Base>(rows: [<Base>AddInput!]!, on: <Base>UpsertKey!, update: [<Base>Column!],
 * when: <Base>Filter): <Base>UpsertResult!`, offered with the insert and update actions (issue 24
 * item 2) where the table has a key to match by ({@link upsertKeys}); at most `LIMIT_BULK_ROWS`
 * rows (1,000), refused before SQL beyond (`operation-cost.ts`).
 */
export const upsertMany: OperationKind = {
  action: 'insert',
  root: 'mutation',
  rootFieldName: (base) => `upsertMany${base}`,
  offered: offersUpsert,
  isPublic: (api) => api.public.insert && api.public.update,
  field: ({ node, types, capabilities, tables }) => {
    const keys = upsertKeys(node, capabilities);
    const made = upsertTypes(node, types, keys);
    return {
      type: new GraphQLNonNull(made.result),
      // Its rows count against LIMIT_BULK_ROWS before any SQL (`operation-cost.ts`).
      extensions: { writesRows: true },
      args: {
        rows: {
          type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(addInputType(node, types)))),
          description: 'The rows to add or update; at most 1,000 (LIMIT_BULK_ROWS).',
        },
        ...upsertArgs(node, types, made),
      },
      resolve: upsertManyResolver(node, referencesOf(tables, node.table), keys) as never,
    };
  },
};

/**
 * `upsert<Base>(row: <Base>AddInput!, on, update, when): <Base>UpsertRow!`: {@link upsertMany}
 * of one row.
 */
export const upsert: OperationKind = {
  action: 'insert',
  root: 'mutation',
  rootFieldName: (base) => `upsert${base}`,
  offered: offersUpsert,
  isPublic: (api) => api.public.insert && api.public.update,
  field: ({ node, types, capabilities, tables }) => {
    const keys = upsertKeys(node, capabilities);
    const made = upsertTypes(node, types, keys);
    return {
      type: new GraphQLNonNull(made.row),
      extensions: { writesRows: true },
      args: {
        row: { type: new GraphQLNonNull(addInputType(node, types)) },
        ...upsertArgs(node, types, made),
      },
      resolve: upsertResolver(node, referencesOf(tables, node.table), keys) as never,
    };
  },
};
