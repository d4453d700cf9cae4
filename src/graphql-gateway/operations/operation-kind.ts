import type {
  GraphQLFieldConfig,
  GraphQLFieldConfigArgumentMap,
  GraphQLInputObjectType,
  GraphQLInputType,
  GraphQLObjectType,
  GraphQLOutputType,
} from 'graphql';
import type { Capabilities, ModelColumn } from '../../datasources/core/dialect';
import type { ModelTable, TableApiDefinition } from '../../platform/version-definition';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';

/** The Table API action behind a root field. */
export type ApiAction = 'select' | 'insert' | 'update' | 'delete' | 'aggregate';

/**
 * The shared GraphQL types of a version an operation kind builds its field from (`TypeFactory` in
 * `schema-builder.ts`): cached by row type name and claimed against clashes there, so every kind
 * and navigation field of one row type gets the same objects.
 */
export interface OperationTypes {
  /** A column's type in output and in `add`/`update`/`delete` arguments (`ID` for keys, …). */
  column(node: RowNode, c: ModelColumn): GraphQLInputType & GraphQLOutputType;
  /** `<Type>Filter`. */
  filter(node: RowNode): GraphQLInputObjectType;
  /** `where`, `order`, `take`, `skip` of a list of rows (`get<Base>`, one-to-many navigation). */
  listArgs(node: RowNode): GraphQLFieldConfigArgumentMap;
  /** The row type `<Type>`, with its navigation fields. */
  row(node: RowNode): GraphQLObjectType;
  /**
   * Records that `owner` mints the GraphQL name `name` (`label` names it in a refusal).
   * @throws DefinitionClash when another part of the definition minted it (409, CONTRACT.md §3).
   */
  claim(name: string, owner: unknown, label: string): void;
}

/** What an operation kind builds one API's root field from. */
export interface OperationContext {
  /** The API's root row node (`buildApiTrees`). */
  node: RowNode;
  types: OperationTypes;
  /**
   * What the API's datasource can do in one statement: one decision per datasource shapes both
   * the operation's type and what its resolver runs (a datasource without RETURNING gets
   * `add<Base>: Boolean`, CONTRACT.md §6).
   */
  capabilities: Capabilities;
  /** Every model table of the version (the targets of the table's foreign keys). */
  tables: readonly ModelTable[];
}

/**
 * One operation kind of a Table API (`get`, `count`, `add`, `update`, `delete`; CONTRACT.md §6):
 * its root field's name, when an API offers it, and the field itself (type, arguments and the
 * resolver that plans and runs its statements). `VersionTypes` builds every API's root fields by
 * asking each kind of `OPERATION_KINDS` (`operations/index.ts`) in turn, so adding an operation
 * kind is adding a file and listing it there. The cost of a root field is read from its shape by
 * `request/operation-cost.ts` (rows for lists and objects, one statement per root field), whatever
 * its kind.
 */
export interface OperationKind {
  /** The action switch that enables the kind and whose public switch and key scope it follows. */
  readonly action: ApiAction;
  /** The root type the field goes under. */
  readonly root: 'query' | 'mutation';
  /** The root field's name for an API of base name `base` (`count<Base>`). */
  rootFieldName(base: string): string;
  /**
   * Whether the API offers the kind (its action switch, and whatever the table must have;
   * `capabilities`, its datasource's, where the database decides it: `upsert<Base>` on MySQL).
   */
  offered(api: TableApiDefinition, node: RowNode, capabilities: Capabilities): boolean;
  /**
   * Whether anonymous callers may call the field, for a kind that needs more than its own action
   * (`upsert<Base>`: the insert and the update switch both public). Absent: `api.public[action]`.
   */
  isPublic?(api: TableApiDefinition): boolean;
  /** The root field: type, arguments in schema order, resolver. Description is the schema's. */
  field(ctx: OperationContext): GraphQLFieldConfig<unknown, GatewayContext>;
}
