/** A type reference as introspection answers it (`__Type` with `kind`, `name`, `ofType`). */
export interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}

/** The selection that reads a {@link TypeRef} four wrappers deep (e.g. `[[Int!]!]!`). */
export const TYPE_REF =
  '{ kind name ofType { kind name ofType { kind name ofType { kind name } } } }';

/** A type reference as GraphQL prints it in a variable definition: `[String!]`, `BigInt!`. */
export const printType = (t: TypeRef): string =>
  t.kind === 'NON_NULL'
    ? `${printType(t.ofType!)}!`
    : t.kind === 'LIST'
      ? `[${printType(t.ofType!)}]`
      : t.name!;

/** The named type inside the list and non-null wrappers. */
export const namedType = (t: TypeRef): string => (t.ofType ? namedType(t.ofType) : t.name!);
