import { graphqlName, sendGraphQL } from './graphql';

/**
 * What one Table API offers the row browser, read from the builder's own schema by introspection
 * (CONTRACT.md §6 "Operations of a Table API"): its row type's columns with their GraphQL types,
 * the operators `<Base>Filter` gives each column, which columns `<Base>Order` sorts, and the
 * arguments of `add<Base>`, `update<Base>` and `delete<Base>` where those actions are on. Reading
 * the schema, rather than the model, makes the page offer exactly what a client of the API gets.
 */

/** A type reference as introspection answers it, with enum values at each level. */
export interface TypeRef {
  kind: string;
  name: string | null;
  enumValues?: { name: string }[] | null;
  ofType: TypeRef | null;
}

/** A column of the row type (a scalar or enum field, or a list of them). */
export interface Column {
  name: string;
  /** The named GraphQL type: `Int`, `String`, `ID`, `DateTime`, an enum's name, … */
  type: string;
  /** Whether the type is an enum (then `enumValues` lists its values). */
  isEnum: boolean;
  enumValues: string[];
  /** A PostgreSQL array column: a list of `type` (CONTRACT.md §6 "Values"). */
  list: boolean;
  /** Whether a value may be empty (the field's type is not non-null). */
  nullable: boolean;
  /** The operators `<Base>Filter` offers on it (`eq`, `contains`, `in`, …); empty: none. */
  operators: string[];
  /** Whether `<Base>Order` sorts by it. */
  sortable: boolean;
}

/** An argument of a write operation. */
export interface Argument {
  name: string;
  /** Its type as written in a variable definition: `ID!`, `String`, `[Int]`. */
  typeText: string;
  required: boolean;
}

/** A write operation of the API and its arguments. */
export interface WriteOperation {
  name: string;
  args: Argument[];
}

/** Everything the row browser needs of one Table API. */
export interface RowSchema {
  /** `get<Base>`, and `count<Base>` when the schema has it. */
  get: string;
  count: string | null;
  filterType: string | null;
  orderType: string | null;
  /** Whether `<Base>Filter` takes `and: [...]`. */
  filterHasAnd: boolean;
  columns: Column[];
  add: WriteOperation | null;
  /** Whether `add<Base>` answers the row (false: `Boolean`, MySQL). */
  addReturnsRow: boolean;
  update: WriteOperation | null;
  remove: WriteOperation | null;
  /** The key columns (`delete<Base>`'s arguments, else `update<Base>`'s required ones). */
  key: string[];
}

const REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
const COLUMN_REF =
  'kind name enumValues { name } ofType { kind name enumValues { name } ofType { kind name enumValues { name } ofType { kind name } } }';

/** The named type under NON_NULL and LIST wrappers. */
export function namedType(ref: TypeRef): TypeRef {
  return ref.ofType ? namedType(ref.ofType) : ref;
}

/** A type reference as written in a variable definition (`[ID!]!`); names checked. */
export function typeText(ref: TypeRef): string {
  if (ref.kind === 'NON_NULL') return `${typeText(ref.ofType!)}!`;
  if (ref.kind === 'LIST') return `[${typeText(ref.ofType!)}]`;
  return graphqlName(ref.name ?? '');
}

/** A root field as the first introspection query reads it. */
interface RootField {
  name: string;
  type: TypeRef;
  args: { name: string; type: TypeRef }[];
}

/** `customers` → `Customers` (CONTRACT.md §6, the server's `baseName`). */
export const baseName = (apiName: string) => apiName.charAt(0).toUpperCase() + apiName.slice(1);

/**
 * Reads the Table API named `apiName` from the builder's schema of the app at `address`.
 * @throws Error saying so when the schema has no `get<Base>` (the API's select action is off or
 *   its table is not served), or the endpoint's refusal (e.g. `API_UNAVAILABLE`).
 */
export async function readRowSchema(address: string, apiName: string): Promise<RowSchema> {
  const base = baseName(apiName);
  const roots = await sendGraphQL<{
    __schema: {
      queryType: { fields: RootField[] } | null;
      mutationType: { fields: RootField[] } | null;
    };
  }>(
    address,
    `query RowBrowserOperations { __schema {
      queryType { fields { name type { ${REF} } args { name type { ${REF} } } } }
      mutationType { fields { name type { ${REF} } args { name type { ${REF} } } } } } }`,
  );
  const queries = roots.__schema.queryType?.fields ?? [];
  const mutations = roots.__schema.mutationType?.fields ?? [];
  const get = queries.find((f) => f.name === `get${base}`);
  if (!get)
    throw new Error(
      `Your working version’s schema has no get${base}: the API’s select action is off, or its table is not served.`,
    );
  const count = queries.find((f) => f.name === `count${base}`) ?? null;
  const rowType = namedType(get.type).name ?? '';
  const argType = (name: string) => {
    const arg = get.args.find((a) => a.name === name);
    return arg ? namedType(arg.type).name : null;
  };
  const filterType = argType('where');
  const orderType = argType('order');

  const types = await sendGraphQL<{
    row: { fields: { name: string; type: TypeRef }[] } | null;
    filter: {
      inputFields: { name: string; type: TypeRef & { inputFields?: { name: string }[] | null } }[];
    } | null;
    order: { inputFields: { name: string; type: TypeRef }[] } | null;
  }>(
    address,
    `query RowBrowserTypes($row: String!, $filter: String!, $order: String!) {
      row: __type(name: $row) { fields { name type { ${COLUMN_REF} } } }
      filter: __type(name: $filter) { inputFields { name type { kind name inputFields { name } } } }
      order: __type(name: $order) { inputFields { name type { ${REF} } } } }`,
    { row: rowType, filter: filterType ?? '', order: orderType ?? '' },
  );

  const filterFields = new Map(
    (types.filter?.inputFields ?? []).map((f) => [
      f.name,
      (f.type.inputFields ?? []).map((o) => o.name),
    ]),
  );
  const sortable = new Set(
    (types.order?.inputFields ?? [])
      .filter((f) => namedType(f.type).name === 'SortDirection')
      .map((f) => f.name),
  );
  const columns: Column[] = [];
  for (const field of types.row?.fields ?? []) {
    const named = namedType(field.type);
    if (named.kind !== 'SCALAR' && named.kind !== 'ENUM') continue;
    const inner = field.type.kind === 'NON_NULL' ? field.type.ofType! : field.type;
    columns.push({
      name: graphqlName(field.name),
      type: graphqlName(named.name ?? ''),
      isEnum: named.kind === 'ENUM',
      enumValues: (named.enumValues ?? []).map((v) => v.name),
      list: inner.kind === 'LIST',
      nullable: field.type.kind !== 'NON_NULL',
      operators: filterFields.get(field.name) ?? [],
      sortable: sortable.has(field.name),
    });
  }

  const write = (name: string): WriteOperation | null => {
    const field = mutations.find((f) => f.name === name);
    if (!field) return null;
    return {
      name: graphqlName(field.name),
      args: field.args.map((a) => ({
        name: graphqlName(a.name),
        typeText: typeText(a.type),
        required: a.type.kind === 'NON_NULL',
      })),
    };
  };
  const add = write(`add${base}`);
  const update = write(`update${base}`);
  const remove = write(`delete${base}`);
  const addField = mutations.find((f) => f.name === `add${base}`);
  return {
    get: graphqlName(get.name),
    count: count ? graphqlName(count.name) : null,
    filterType: filterType ? graphqlName(filterType) : null,
    orderType: orderType ? graphqlName(orderType) : null,
    filterHasAnd: filterFields.has('and'),
    columns,
    add,
    addReturnsRow: addField ? namedType(addField.type).kind === 'OBJECT' : false,
    update,
    remove,
    key: remove
      ? remove.args.map((a) => a.name)
      : (update?.args.filter((a) => a.required).map((a) => a.name) ?? []),
  };
}
