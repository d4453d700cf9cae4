/**
 * Longest key {@link valueKey} makes, in characters: the variables of the operations clients send
 * (a filter, an order, a page) take a few hundred; larger ones (a batch of rows to write) are not
 * worth remembering anything by, and a key's memory is bounded before it is paid.
 */
export const MAX_VALUE_KEY_CHARS = 2048;

/**
 * Deepest nesting {@link valueKey} follows: above what coerced values may hold
 * (`MAX_VARIABLE_DEPTH`, `MAX_LITERAL_DEPTH` = 256), so it never runs out of stack.
 */
const MAX_KEY_DEPTH = 300;

/** Gives up on a key: too long, too deep, or a value of a kind it does not recognise. */
class NoKey extends Error {}
const NO_KEY = new NoKey();

/**
 * A text that identifies a coerced GraphQL value exactly (arguments or variables after graphql-js
 * coercion): two values have the same key only when every part has the same kind and the same
 * content, so whatever is planned from one value holds for the other. Each kind has its own mark
 * (`n` null, `u` undefined, `t`/`f` booleans, `d` numbers with `-0` apart, `b` bigints, strings as
 * JSON, `x` bytes in hex, `D` dates by their time); lists and objects are bracketed, object keys
 * in their own order (graphql-js builds input objects in the order of the type's fields, so equal
 * inputs give equal keys; another order only gives another key). Prefix-free, so the parts never
 * run into one another.
 * @param maxChars the longest key made; longer values have none.
 * @returns the key, or undefined when it would be longer than `maxChars`, the value nests deeper
 * than 300 levels or holds anything but JSON-like values, bigints, bytes and dates (a class
 * instance, a function, a symbol): the caller then remembers nothing for it.
 */
export function valueKey(value: unknown, maxChars = MAX_VALUE_KEY_CHARS): string | undefined {
  const parts: string[] = [];
  let length = 0;
  const put = (part: string) => {
    length += part.length;
    if (length > maxChars) throw NO_KEY;
    parts.push(part);
  };
  const walk = (v: unknown, depth: number): void => {
    if (depth > MAX_KEY_DEPTH) throw NO_KEY;
    if (v === null) return put('n');
    switch (typeof v) {
      case 'undefined':
        return put('u');
      case 'boolean':
        return put(v ? 't' : 'f');
      case 'number':
        return put(Object.is(v, -0) ? 'd-0' : `d${v}`);
      case 'bigint':
        return put(`b${v}`);
      case 'string':
        // Bounded before JSON.stringify copies it.
        if (length + v.length > maxChars) throw NO_KEY;
        return put(JSON.stringify(v));
      case 'object':
        break;
      default:
        throw NO_KEY;
    }
    if (Array.isArray(v)) {
      put('[');
      for (let i = 0; i < v.length; i++) {
        if (i) put(',');
        walk(v[i], depth + 1);
      }
      return put(']');
    }
    if (v instanceof Uint8Array) {
      if (length + 2 * v.length > maxChars) throw NO_KEY;
      return put(`x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`);
    }
    if (v instanceof Date) return put(`D${v.getTime()}`);
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) throw NO_KEY;
    put('{');
    let first = true;
    for (const key of Object.keys(v)) {
      if (!first) put(',');
      first = false;
      if (length + key.length > maxChars) throw NO_KEY;
      put(JSON.stringify(key));
      put(':');
      walk((v as Record<string, unknown>)[key], depth + 1);
    }
    return put('}');
  };
  try {
    walk(value, 0);
  } catch (error) {
    if (error === NO_KEY) return undefined;
    throw error;
  }
  return parts.join('');
}

/** Keys already made per request's variables object (`null`: it has none). */
const VARIABLES_KEYS = new WeakMap<object, string | null>();

/**
 * {@link valueKey} of a request's coerced variables, made once per variables object: the
 * endpoint's cost check, the arguments and the planned reads of one request share it.
 * @returns undefined as `valueKey` does.
 */
export function variablesKey(variables: Readonly<Record<string, unknown>>): string | undefined {
  let key = VARIABLES_KEYS.get(variables);
  if (key === undefined) {
    key = valueKey(variables) ?? null;
    VARIABLES_KEYS.set(variables, key);
  }
  return key ?? undefined;
}

/**
 * Gives `copy` the key of `original` when it holds the same values (the same names, each the same
 * value by identity), without walking them again: graphql-jit's compiled query hands resolvers
 * its own shallow copy of the coerced variables it was called with (`info.variableValues`), whose
 * key is then the original's, made once per coerced object and shared by every request that
 * coerced the same values (`coerceRequestVariables`). Otherwise nothing is noted, and
 * {@link variablesKey} walks `copy` itself.
 */
export function sameVariablesAs(
  copy: Readonly<Record<string, unknown>>,
  original: Readonly<Record<string, unknown>>,
): void {
  if (copy === original || VARIABLES_KEYS.has(copy)) return;
  const names = Object.keys(copy);
  if (names.length !== Object.keys(original).length) return;
  for (const name of names) {
    if (!Object.prototype.hasOwnProperty.call(original, name)) return;
    if (!Object.is(copy[name], original[name])) return;
  }
  VARIABLES_KEYS.set(copy, variablesKey(original) ?? null);
}
