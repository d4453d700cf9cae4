import {
  getNamedType,
  type GraphQLArgument,
  type GraphQLField,
  isObjectType,
  isScalarType,
} from 'graphql';
import type { ApiEntry } from './api-catalog';

/**
 * A GraphQL operation a tool call runs: its text (built only from names read from the caller's
 * own schema, never from the caller's text) and its variables (the caller's values, coerced and
 * checked by the same request steps as any GraphQL request's).
 */
export interface ToolOperation {
  text: string;
  variables: Record<string, unknown>;
}

/**
 * A tool input the tool refuses before any GraphQL runs (an unknown API, column or aggregate
 * name): answered as a tool error with `code` (CONTRACT.md §6 error codes).
 */
export class ToolInputError extends Error {
  constructor(
    message: string,
    readonly code = 'BAD_USER_INPUT',
  ) {
    super(message);
    this.name = 'ToolInputError';
  }
}

/** Rows `get_rows` answers without `take` (PEERS.md §F4). */
export const DEFAULT_TAKE = 50;
/** Most rows one `get_rows` call answers; `nextSkip` pages on (PEERS.md §F4). */
export const MAX_TAKE = 500;

/** `a, b and c`, for messages naming what is allowed. */
function listed(names: readonly string[]): string {
  return names.length ? names.join(', ') : '(none)';
}

/**
 * `($where: CustomersFilter, $take: Int)` and `(where: $where, take: $take)` for the arguments of
 * `field` named in `values` (in the field's order); every value name must be an argument.
 */
function argumentsOf(
  field: GraphQLField<unknown, unknown>,
  values: Record<string, unknown>,
): { declared: string; passed: string } {
  const used = field.args.filter((a: GraphQLArgument) => values[a.name] !== undefined);
  if (!used.length) return { declared: '', passed: '' };
  return {
    declared: `(${used.map((a) => `$${a.name}: ${String(a.type)}`).join(', ')})`,
    passed: `(${used.map((a) => `${a.name}: $${a.name}`).join(', ')})`,
  };
}

/** The selection of `fields` (default: every column) after checking each is a column. */
function columnSelection(entry: ApiEntry, fields: readonly string[] | undefined): string {
  const columns = entry.columns.map((c) => c.name);
  if (!fields?.length) return `{ ${columns.join(' ')} }`;
  for (const name of fields) {
    if (!columns.includes(name)) {
      throw new ToolInputError(
        `fields: ${name} is not a column of ${entry.name}; its columns are ${listed(columns)}`,
      );
    }
  }
  return `{ ${[...new Set(fields)].join(' ')} }`;
}

/** Only the defined entries of `values`. */
function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
}

/** The operation `op` of `entry`, or a refusal saying the key cannot use it on that API. */
function operationOf(
  entry: ApiEntry,
  op: keyof ApiEntry['operations'],
  tool: string,
): GraphQLField<unknown, unknown> {
  const field = entry.operations[op];
  if (!field) {
    throw new ToolInputError(
      `${tool} is not available on ${entry.name}: the API does not offer it to this key (describe_apis lists each API's tools)`,
      'FORBIDDEN',
    );
  }
  return field;
}

/** Rows of a one-to-many navigation `include` reads per row. */
export const INCLUDE_TAKE = 20;

/**
 * The selections of `include` (`{navigation: [columns]}`): each navigation must be one of the
 * row type's, each column one of the related row type's; a one-to-many reads at most
 * {@link INCLUDE_TAKE} rows per row.
 */
function includeSelection(entry: ApiEntry, include: Record<string, string[]> | undefined): string {
  const parts: string[] = [];
  for (const [name, fields] of Object.entries(include ?? {})) {
    const nav = entry.navigations.find((n) => n.name === name);
    if (!nav) {
      throw new ToolInputError(
        `include: ${name} is not a navigation of ${entry.name}; its navigations are ${listed(entry.navigations.map((n) => n.name))}`,
      );
    }
    const columns = Object.keys(nav.fields);
    const chosen = fields.length ? [...new Set(fields)] : columns;
    for (const column of chosen) {
      if (!columns.includes(column)) {
        throw new ToolInputError(
          `include.${name}: ${column} is not a column of ${nav.type}; its columns are ${listed(columns)}`,
        );
      }
    }
    parts.push(`${name}${nav.many ? `(take: ${INCLUDE_TAKE})` : ''} { ${chosen.join(' ')} }`);
  }
  return parts.join(' ');
}

/** `get_rows`: `get<Base>(where, order, take + 1, skip)` (one more row tells whether more follow). */
export function getRowsOperation(
  entry: ApiEntry,
  input: {
    where?: unknown;
    order?: unknown;
    take: number;
    skip?: number;
    fields?: string[];
    include?: Record<string, string[]>;
  },
): ToolOperation {
  const field = operationOf(entry, 'get', 'get_rows');
  const variables = defined({
    where: input.where,
    order: input.order,
    take: input.take + 1,
    skip: input.skip,
  });
  const args = argumentsOf(field, variables);
  const columns = columnSelection(entry, input.fields);
  const included = includeSelection(entry, input.include);
  const selection = included ? `${columns.slice(0, -1)}${included} }` : columns;
  return {
    text: `query McpGetRows${args.declared} { rows: ${field.name}${args.passed} ${selection} }`,
    variables,
  };
}

/** `count_rows`: `count<Base>(where)`. */
export function countRowsOperation(entry: ApiEntry, input: { where?: unknown }): ToolOperation {
  const field = operationOf(entry, 'count', 'count_rows');
  const variables = defined({ where: input.where });
  const args = argumentsOf(field, variables);
  return {
    text: `query McpCountRows${args.declared} { count: ${field.name}${args.passed} }`,
    variables,
  };
}

/** Group parts `aggregate_rows` may ask for per column. */
export const COLUMN_MEASURES = ['countDistinct', 'sum', 'avg', 'min', 'max'] as const;

/** What `aggregate_rows` takes besides `api`. */
export interface AggregateInput {
  where?: unknown;
  groupBy?: string[];
  buckets?: unknown;
  having?: unknown;
  order?: unknown;
  take?: number;
  skip?: number;
  countDistinct?: string[];
  sum?: string[];
  avg?: string[];
  min?: string[];
  max?: string[];
}

/**
 * `aggregate_rows`: `aggregate<Base>(where, groupBy, buckets, having, order, take, skip)` selecting
 * `key { <groupBy> }`, `count` and each measure's columns; every name is checked against the
 * schema's `<Base>Group` type before the text is built.
 */
export function aggregateRowsOperation(entry: ApiEntry, input: AggregateInput): ToolOperation {
  const field = operationOf(entry, 'aggregate', 'aggregate_rows');
  const group = getNamedType(field.type);
  if (!isObjectType(group))
    throw new ToolInputError(`aggregate_rows is not available on ${entry.name}`);
  const parts = group.getFields();
  const subfields = (part: string): string[] => {
    const type = parts[part] ? getNamedType(parts[part].type) : null;
    return type && isObjectType(type) ? Object.keys(type.getFields()) : [];
  };
  const selection: string[] = [];
  const keyColumns = subfields('key');
  const grouped = [...new Set(input.groupBy ?? [])];
  for (const name of grouped) {
    if (!keyColumns.includes(name)) {
      throw new ToolInputError(
        `groupBy: ${name} cannot group ${entry.name}; its groupable columns are ${listed(keyColumns)}`,
      );
    }
  }
  if (grouped.length) selection.push(`key { ${grouped.join(' ')} }`);
  selection.push('count');
  for (const measure of COLUMN_MEASURES) {
    const names = [...new Set(input[measure] ?? [])];
    if (!names.length) continue;
    const allowed = subfields(measure);
    for (const name of names) {
      if (!allowed.includes(name)) {
        throw new ToolInputError(
          `${measure}: ${name} is not a column ${measure} applies to on ${entry.name}; it applies to ${listed(allowed)}`,
        );
      }
    }
    selection.push(`${measure} { ${names.join(' ')} }`);
  }
  const variables = defined({
    where: input.where,
    groupBy: grouped.length ? grouped : undefined,
    buckets: input.buckets,
    having: input.having,
    order: input.order,
    take: input.take,
    skip: input.skip,
  });
  const args = argumentsOf(field, variables);
  return {
    text: `query McpAggregateRows${args.declared} { groups: ${field.name}${args.passed} { ${selection.join(' ')} } }`,
    variables,
  };
}

/** Every name of `values` must be an argument of `field` (a column the operation writes). */
function checkWritten(
  entry: ApiEntry,
  field: GraphQLField<unknown, unknown>,
  values: Record<string, unknown>,
  label: string,
): void {
  const names = field.args.map((a) => a.name);
  for (const name of Object.keys(values)) {
    if (!names.includes(name)) {
      throw new ToolInputError(
        `${label}.${name} is not a column ${field.name} takes on ${entry.name}; it takes ${listed(names)}`,
      );
    }
  }
}

/** The row selection of a write's result: every column, or none when it answers a scalar. */
function writeSelection(entry: ApiEntry, field: GraphQLField<unknown, unknown>): string {
  return isScalarType(getNamedType(field.type)) ? '' : ` ${columnSelection(entry, undefined)}`;
}

/** `add_row`: `add<Base>(<values>)` selecting the row (or `Boolean` where the database returns none). */
export function addRowOperation(
  entry: ApiEntry,
  input: { values: Record<string, unknown> },
): ToolOperation {
  const field = operationOf(entry, 'add', 'add_row');
  checkWritten(entry, field, input.values, 'values');
  const variables = defined(input.values);
  const args = argumentsOf(field, variables);
  return {
    text: `mutation McpAddRow${args.declared} { row: ${field.name}${args.passed}${writeSelection(entry, field)} }`,
    variables,
  };
}

/** The key values of a row: exactly the API's key columns. */
function checkKey(entry: ApiEntry, key: Record<string, unknown>): void {
  for (const name of entry.key) {
    if (key[name] === undefined || key[name] === null) {
      throw new ToolInputError(
        `key.${name} is required: ${entry.name} rows are found by ${listed(entry.key)}`,
      );
    }
  }
  for (const name of Object.keys(key)) {
    if (!entry.key.includes(name)) {
      throw new ToolInputError(
        `key.${name} is not a key column of ${entry.name}; its key is ${listed(entry.key)}`,
      );
    }
  }
}

/** `update_row`: `update<Base>(<key>, <set>)` selecting the row (null: no such row in reach). */
export function updateRowOperation(
  entry: ApiEntry,
  input: { key: Record<string, unknown>; set: Record<string, unknown> },
): ToolOperation {
  const field = operationOf(entry, 'update', 'update_row');
  checkKey(entry, input.key);
  checkWritten(entry, field, input.set, 'set');
  for (const name of Object.keys(input.set)) {
    if (entry.key.includes(name)) {
      throw new ToolInputError(
        `set.${name}: key columns are given in key, not changed by update_row`,
      );
    }
  }
  const variables = defined({ ...input.set, ...input.key });
  const args = argumentsOf(field, variables);
  return {
    text: `mutation McpUpdateRow${args.declared} { row: ${field.name}${args.passed}${writeSelection(entry, field)} }`,
    variables,
  };
}

/** `delete_row`: `delete<Base>(<key>)` (false: no such row in reach). */
export function deleteRowOperation(
  entry: ApiEntry,
  input: { key: Record<string, unknown> },
): ToolOperation {
  const field = operationOf(entry, 'delete', 'delete_row');
  checkKey(entry, input.key);
  const variables = defined(input.key);
  const args = argumentsOf(field, variables);
  return {
    text: `mutation McpDeleteRow${args.declared} { deleted: ${field.name}${args.passed} }`,
    variables,
  };
}
