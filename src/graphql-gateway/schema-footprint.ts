import {
  GraphQLArgument,
  GraphQLFieldMap,
  GraphQLInputFieldMap,
  GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
} from 'graphql';

/**
 * The one empty `extensions` every field, argument, input field, enum value and type without
 * extensions shares. graphql-js gives each of them its own `Object.create(null)` (`toObjMap`),
 * an object in V8's dictionary mode of ~190 bytes: in a 20-table app's schema, ~650 of them,
 * 34 % of its heap (heap snapshots of `npm run bench:apps`, bench/results/apps-2026-11-26.md).
 * Frozen: a write into it throws instead of reaching every schema.
 */
const EMPTY_EXTENSIONS: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null));

/** The one empty array a field without arguments, and a type without extension nodes, shares. */
const NO_ITEMS: readonly never[] = Object.freeze([]);

/** Whether an object has no own enumerable key. */
function isEmpty(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/** What graphql-js's defined fields, arguments and enum values hold that this file trims. */
interface Trimmable {
  extensions: Readonly<Record<string, unknown>>;
  args?: readonly GraphQLArgument[];
}

function trim(part: Trimmable): void {
  if (part.extensions !== EMPTY_EXTENSIONS && isEmpty(part.extensions))
    part.extensions = EMPTY_EXTENSIONS;
  if (part.args) {
    if (part.args.length === 0) part.args = NO_ITEMS;
    else for (const arg of part.args) trim(arg as Trimmable);
  }
}

/**
 * Makes a built schema's types share what graphql-js allocates per part although it is the same
 * for all: empty `extensions` objects and empty argument and extension-node arrays. Nothing a
 * caller, introspection or execution sees changes (the shared values are equal to those they
 * replace, and frozen); the heap of a 20-table app's schema falls by a third (383 to 257 KiB,
 * bench/apps-heap.js). Run on a schema once it is constructed (its field maps defined). A part
 * already trimmed (a version's types are shared by its audiences' schemas) is left as it is: the
 * walk reads every field of the schema, about as much as `validateSchema`.
 */
export function trimSchema(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const named = type as { extensions: Readonly<Record<string, unknown>> };
    if (named.extensions !== EMPTY_EXTENSIONS && isEmpty(named.extensions))
      named.extensions = EMPTY_EXTENSIONS;
    const nodes = type as { extensionASTNodes?: readonly unknown[] };
    if (nodes.extensionASTNodes?.length === 0) nodes.extensionASTNodes = NO_ITEMS;
    if (isObjectType(type) || isInterfaceType(type)) {
      const fields: GraphQLFieldMap<unknown, unknown> = type.getFields();
      for (const name in fields) trim(fields[name] as unknown as Trimmable);
    } else if (isInputObjectType(type)) {
      const fields: GraphQLInputFieldMap = type.getFields();
      for (const name in fields) trim(fields[name] as unknown as Trimmable);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) trim(value as unknown as Trimmable);
    }
  }
}
