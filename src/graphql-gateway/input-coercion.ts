import {
  ConstValueNode,
  DocumentNode,
  GraphQLEnumType,
  GraphQLInputType,
  GraphQLNamedType,
  GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  OperationDefinitionNode,
  StringValueNode,
  TypeInfo,
  typeFromAST,
  ValueNode,
  visit,
  visitWithTypeInfo,
} from 'graphql';

/** What `coerceRequest` hands back; see its docstring. */
export interface CoercedRequest {
  document: DocumentNode;
  variables: Record<string, unknown>;
  changed: boolean;
}

/** Whole-number text, as `Int` accepts it (then range-checked). */
const WHOLE_NUMBER = /^-?\d+$/;
/** Decimal-number text, as `Float` accepts it (then checked finite). */
const DECIMAL_NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
/** Lexical forms GraphQL itself can print and re-parse (no leading zeros, no bare `.5` or `5.`). */
const GRAPHQL_INT_TOKEN = /^-?(0|[1-9]\d*)$/;
const GRAPHQL_FLOAT_TOKEN = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/;
const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
/** A calendar date alone, as `Date` takes it. */
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The start of the day a date-only text names, where `scalar` expects a date and time (issue 22
 * item 23, README "Input coercion"): midnight UTC for `DateTime` (an instant needs an offset, and
 * the service answers instants in UTC), midnight as stored for `LocalDateTime` (no zone at all);
 * `undefined` for any other text or scalar. `2024-03-05` → `2024-03-05T00:00:00Z` /
 * `2024-03-05T00:00:00`. A day that does not exist stays refused by the write's or filter's check.
 */
export function startOfDay(text: string, scalar: string | undefined): string | undefined {
  if (!DATE_ONLY.test(text)) return undefined;
  if (scalar === 'DateTime') return `${text}T00:00:00Z`;
  if (scalar === 'LocalDateTime') return `${text}T00:00:00`;
  return undefined;
}

/**
 * The named leaf type a value is checked against: non-null and list wrappers removed. A single
 * value where a list is expected is checked against the item type (GraphQL wraps it in a list
 * itself), so its item is coerced without wrapping it here.
 */
function leafOf(type: GraphQLInputType | null | undefined): GraphQLNamedType | undefined {
  let current: GraphQLInputType | null | undefined = type;
  while (current && (isNonNullType(current) || isListType(current)))
    current = current.ofType as GraphQLInputType;
  return current ?? undefined;
}

function scalarName(type: GraphQLNamedType | undefined): string | undefined {
  return type && isScalarType(type) ? type.name : undefined;
}

/** `Int` value of a whole-number text within 32-bit signed range, else `undefined`. */
function intFromText(text: string): number | undefined {
  if (!WHOLE_NUMBER.test(text)) return undefined;
  const n = Number(text);
  return n >= INT_MIN && n <= INT_MAX ? n + 0 : undefined; // `+ 0` turns -0 into 0
}

/** Finite `Float` value of a decimal-number text, else `undefined`. */
function floatFromText(text: string): number | undefined {
  if (!DECIMAL_NUMBER.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The name of the value of `type` whose stored text (its internal value) is `text`, else of the
 * value named `text`, else undefined. App enum values are named as they are stored; a database
 * enum's value may have another name (`on hold` → `on_hold`, `api-tree.ts` `enumValueNames`),
 * and a text can never be one value's stored text and another's name (a value that is a GraphQL
 * name is always its own name), so the order is never ambiguous.
 */
function enumNameOf(type: GraphQLEnumType, text: string): string | undefined {
  return type.getValues().find((v) => v.value === text)?.name ?? type.getValue(text)?.name;
}

/** The literal replacing `node` where `type` is expected, or `undefined` when it stays. */
function coerceLiteral(
  node: ValueNode,
  type: GraphQLNamedType | undefined,
): ConstValueNode | undefined {
  if (!type) return undefined;
  if (node.kind === Kind.STRING) {
    const text = node.value;
    if (isEnumType(type)) {
      const name = enumNameOf(type, text);
      return name === undefined ? undefined : { kind: Kind.ENUM, value: name };
    }
    switch (scalarName(type)) {
      case 'Int': {
        const n = intFromText(text);
        return n === undefined ? undefined : { kind: Kind.INT, value: String(n) };
      }
      case 'Float': {
        const n = floatFromText(text);
        if (n === undefined) return undefined;
        // Keep the caller's digits when GraphQL can print them back; otherwise canonical text.
        const token = GRAPHQL_FLOAT_TOKEN.test(text) ? text : String(n);
        return { kind: GRAPHQL_INT_TOKEN.test(token) ? Kind.INT : Kind.FLOAT, value: token };
      }
      case 'Boolean':
        return text === 'true' || text === 'false'
          ? { kind: Kind.BOOLEAN, value: text === 'true' }
          : undefined;
      case 'DateTime':
      case 'LocalDateTime': {
        const start = startOfDay(text, scalarName(type));
        return start === undefined ? undefined : { kind: Kind.STRING, value: start };
      }
      default:
        return undefined;
    }
  }
  if ((node.kind === Kind.INT || node.kind === Kind.FLOAT) && scalarName(type) === 'String') {
    return { kind: Kind.STRING, value: node.value } satisfies StringValueNode;
  }
  return undefined;
}

/** The JSON value replacing `value` where `type` is expected; the same value when nothing changes. */
function coerceVariable(value: unknown, type: GraphQLInputType): unknown {
  if (value === null || value === undefined) return value;
  if (isNonNullType(type)) return coerceVariable(value, type.ofType);
  if (isListType(type)) {
    const itemType = type.ofType as GraphQLInputType;
    if (!Array.isArray(value)) return coerceVariable(value, itemType);
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const coerced = coerceVariable(item, itemType);
      if (coerced !== item) (copy ??= [...value])[i] = coerced;
    });
    return copy ?? value;
  }
  if (isInputObjectType(type)) {
    if (typeof value !== 'object' || Array.isArray(value)) return value;
    const fields = type.getFields();
    const record = value as Record<string, unknown>;
    let copy: Record<string, unknown> | undefined;
    for (const [name, field] of Object.entries(fields)) {
      if (!Object.prototype.hasOwnProperty.call(record, name)) continue;
      const coerced = coerceVariable(record[name], field.type);
      if (coerced !== record[name]) (copy ??= { ...record })[name] = coerced;
    }
    return copy ?? value;
  }
  if (isEnumType(type)) {
    // JSON strings are enum value names already; a database enum's stored text becomes its name.
    if (typeof value !== 'string' || type.getValue(value)) return value;
    return enumNameOf(type, value) ?? value;
  }
  switch (scalarName(type)) {
    case 'Int':
      return typeof value === 'string' ? (intFromText(value) ?? value) : value;
    case 'Float':
      return typeof value === 'string' ? (floatFromText(value) ?? value) : value;
    case 'String':
      return typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    case 'Boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'DateTime':
    case 'LocalDateTime':
      return typeof value === 'string' ? (startOfDay(value, scalarName(type)) ?? value) : value;
    default:
      return value; // ID and the other custom scalars
  }
}

/**
 * The operation whose variables the request supplies: the one named `operationName`, or the only
 * operation of the document. `undefined` when that is ambiguous (execution refuses it anyway).
 */
function selectedOperation(
  document: DocumentNode,
  operationName: string | null | undefined,
): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operationName) {
    const named = operations.filter((o) => o.name?.value === operationName);
    return named.length === 1 ? named[0] : undefined;
  }
  return operations.length === 1 ? operations[0] : undefined;
}

/**
 * The literal half of {@link coerceRequest}: the document with every literal coerced, the same
 * object when nothing changed. Run once per (schema, query text) and cached.
 */
export function coerceDocument(
  schema: GraphQLSchema,
  document: DocumentNode,
): { document: DocumentNode; changed: boolean } {
  const typeInfo = new TypeInfo(schema);
  let changed = false;
  const leaf = (node: ValueNode): ConstValueNode | undefined => {
    const replacement = coerceLiteral(node, leafOf(typeInfo.getInputType()));
    if (replacement) changed = true;
    return replacement;
  };
  const visited = visit(
    document,
    visitWithTypeInfo(typeInfo, {
      // Replaced on leave: a leaf value has no children, and TypeInfo's stacks stay balanced.
      StringValue: { leave: leaf },
      IntValue: { leave: leaf },
      FloatValue: { leave: leaf },
    }),
  );
  return { document: changed ? visited : document, changed };
}

/**
 * The variable half of {@link coerceRequest}: `variables` coerced for the variables `operation`
 * declares (the same object when nothing changed). Run per request.
 */
export function coerceVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode | undefined,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  let coercedVariables = variables;
  for (const definition of operation?.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (!Object.prototype.hasOwnProperty.call(coercedVariables, name)) continue;
    const type = typeFromAST(schema, definition.type);
    if (!type || !isInputType(type)) continue;
    const value = coercedVariables[name];
    const coerced = coerceVariable(value, type);
    if (coerced !== value) {
      if (coercedVariables === variables) coercedVariables = { ...variables };
      coercedVariables[name] = coerced;
    }
  }
  return coercedVariables;
}

/**
 * Input coercion of CONTRACT.md §6 "Values" ("Input coercion, in literals and in variables: a
 * numeric text into `Int`/`Float`, a number into `String`, `"true"`/`"false"` into `Boolean`. An
 * enum value may be written bare (`PAID`) or as its stored value in quotes (`"PAID"`)"), as the
 * AST/variables pass before validation that DESIGN.md describes. Pure: neither input is mutated.
 *
 * Literals (every operation and fragment, argument, input-object field, list item and variable
 * default value, with the expected type from `TypeInfo`):
 * - `"42"` where `Int` is expected → `42` (whole-number text within 32-bit signed range);
 * - `"12.5"`, `"1e3"`, `"42"` where `Float` is expected → `12.5`, `1e3`, `42`;
 * - `42`, `12.5` where `String` is expected → `"42"`, `"12.5"`;
 * - `"true"` / `"false"` where `Boolean` is expected → `true` / `false`;
 * - `"PAID"` where an enum with a value named `PAID` is expected → `PAID`; a text that is the
 *   stored value of a database enum's value → that value's name (`"on hold"` → `on_hold`);
 * - a date alone, `"2024-03-05"`, where `DateTime` is expected → that day's start in UTC,
 *   `"2024-03-05T00:00:00Z"`; where `LocalDateTime` is expected → `"2024-03-05T00:00:00"`.
 *
 * Variables (only those declared by the operation that runs: the one named `operationName`, or
 * the only one): the same rules on the JSON value, through lists and input-object fields:
 * `{"n": "42"}` for `$n: Int` → `{"n": 42}`; `{"s": 42}` for `$s: String` → `{"s": "42"}`;
 * `{"b": "true"}` for `$b: Boolean` → `{"b": true}`; `{"t": "2024-03-05"}` for `$t: DateTime` →
 * `{"t": "2024-03-05T00:00:00Z"}`. Enum values are already strings in JSON
 * (their names); a string that names no value but is one value's stored text becomes its name
 * (`{"m": "on hold"}` → `{"m": "on_hold"}`).
 *
 * It never guesses: `"12.5"`, `"1e3"`, `" 12"`, `"12abc"`, `""` into `Int`; `"TRUE"`, `"yes"`, `"1"`
 * into `Boolean`; a text that names no enum value; values with no expected type (unknown field or
 * argument); `ID` and the other custom scalars (which take numbers or text themselves) all stay
 * as sent, so the standard GraphQL errors still report them.
 *
 * @returns `document`: the coerced document, the very same object when nothing changed;
 *   `variables`: the coerced variables (the same object when nothing changed, `{}` when none were
 *   sent); `changed`: whether the document changed (so the caller may skip re-printing it).
 */
export function coerceRequest(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName?: string | null,
): CoercedRequest {
  const { document: coerced, changed } = coerceDocument(schema, document);
  const operation = variables ? selectedOperation(document, operationName) : undefined;
  return {
    document: coerced,
    variables: variables ? coerceVariables(schema, operation, variables) : {},
    changed,
  };
}
