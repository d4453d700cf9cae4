import {
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldResolver,
  GraphQLBoolean,
  GraphQLNonNull,
} from 'graphql';
import { isRequiredOnInsert } from '../../data-model/model-graph';
import type { Capabilities, Condition, Dialect } from '../../datasources/core/dialect';
import type { RowNode } from '../api-tree';
import type { GatewayContext } from '../gateway-context';
import { columnKinds, columnModels, selectColumns, shapeRows, tableRef } from '../query-planner';
import { admitsEveryRow } from '../request/row-scopes';
import { planValues, type Reference, referencesOf, writableColumns } from '../write-planner';
import { rowsInserted } from '../../webhooks/change-capture';
import { invalidInput } from '../../common/domain-error';
import type { ModelTable } from '../../platform/version-definition';
import { insertChildren, nestedRowArgs } from './add-many';
import { type Args, withGraphQLArguments } from './arguments';
import type { OperationKind, OperationTypes } from './operation-kind';
import {
  byColumn,
  guardedReferences,
  hiddenReference,
  outsideRule,
  readRow,
  refuseHiddenReferences,
  type Run,
  runWrite,
} from './writes';

/** The row of `node`'s table with these primary key values (as the driver gave or took them). */
function keyCondition(node: RowNode, key: Record<string, unknown>): Condition {
  return {
    kind: 'and',
    items: node.table.primaryKey.map((column) => ({
      kind: 'compare',
      column,
      op: 'eq',
      value: key[column],
    })),
  };
}

/** Whether the row with these key values is inside `scope` (read in the write's transaction). */
async function insideScope(
  run: Run,
  dialect: Dialect,
  node: RowNode,
  key: Record<string, unknown>,
  scope: Condition,
): Promise<boolean> {
  const where = keyCondition(node, key);
  return (await readRow(run, dialect, node, where, node.table.primaryKey, scope)) !== null;
}

/**
 * `add<Base>`: one INSERT that reads the row back (`RETURNING`/`OUTPUT`) with the requested
 * columns; `true` where the database cannot return the row in the same statement (MySQL). When a
 * row rule bounds the caller, the INSERT and a read of the new row under the rule run in one
 * transaction, rolled back when the row is outside it (CONTRACT.md §4); a foreign key set to a
 * row outside the caller's rule on the referenced table is refused in that transaction before the
 * INSERT ({@link refuseHiddenReferences}; a composite key the INSERT sets only partly is checked
 * after it, on the row's own values, the others being defaults).
 * @param references the table's foreign keys to model tables (`referencesOf`).
 */
export function addResolver(
  node: RowNode,
  capabilities: Capabilities,
  references: readonly Reference[] = [],
  tables: readonly ModelTable[] = [],
): GraphQLFieldResolver<unknown, GatewayContext, Args> {
  const columns = writableColumns(node, 'insert');
  const key = node.table.primaryKey;
  return withGraphQLArguments(async (_source, args, ctx, info) => {
    const conn = await ctx.connection(node.table.datasourceId);
    const values = planValues(node, columns, args, conn.dialect);
    const scope = ctx.scopes.of(node.table, conn.dialect);
    const checked = !admitsEveryRow(scope);
    const sent = byColumn(values);
    const guarded = guardedReferences(references, values, ctx.scopes, conn.dialect);
    const before = guarded.filter((r) => r.columns.every((c) => c in sent));
    const after = guarded.filter((r) => !before.includes(r));
    // One-to-many children sent with the row (README "Writing rows", nested rows).
    const nested = node.navigations.filter(
      (n) => n.navigation.kind === 'oneToMany' && Array.isArray(args[n.navigation.name]),
    );
    // Webhooks read the new row again by key (README "Webhooks").
    const watching = (await ctx.changes?.watches(node.table, 'inserted')) ?? false;
    const readsRow = checked || after.length > 0 || nested.length > 0 || watching;
    const requested = capabilities.insertReturning
      ? selectColumns(node, info.fieldNodes, info.fragments)
      : [];
    const returning =
      readsRow && capabilities.insertReturning
        ? [
            ...new Set([
              ...requested,
              ...key,
              ...after.flatMap((r) => r.columns),
              ...nested.map((n) => n.navigation.fromColumn),
            ]),
          ]
        : requested;
    const insert = conn.dialect.compileInsert({
      table: tableRef(node.table),
      values,
      returning,
      kinds: columnKinds(node.table),
      model: columnModels(node.table),
    });
    const write = async (run: Run) => {
      await refuseHiddenReferences(run, conn.dialect, before, sent);
      const result = await runWrite(run, conn.dialect, node, 'insert', insert, values, checked);
      // The row written counts once against the request's rows (and its cost): as the row the
      // INSERT answered, else here (README "Cost budgets").
      ctx.budget.chargeRows(Math.max(0, 1 - result.rows.length), 0);
      if (readsRow) {
        const written: Record<string, unknown> = { ...result.rows[0] };
        for (const v of values) if (!(v.column in written)) written[v.column] = v.value;
        if (!(key[0] in written) && result.insertId !== undefined)
          written[key[0]] = result.insertId;
        const known = key.length > 0 && key.every((c) => written[c] !== undefined);
        if (watching) await rowsInserted(ctx, conn, node.table, [written]);
        if (after.length > 0) {
          const row = capabilities.insertReturning
            ? written
            : known
              ? await readRow(
                  run,
                  conn.dialect,
                  node,
                  keyCondition(node, written),
                  after.flatMap((r) => r.columns),
                )
              : null;
          // A row that cannot be read back cannot be checked: refused (fails closed).
          if (!row) throw hiddenReference(after[0]);
          await refuseHiddenReferences(run, conn.dialect, after, { ...row, ...sent });
        }
        if (checked && (!known || !(await insideScope(run, conn.dialect, node, written, scope)))) {
          throw outsideRule(node.table.name);
        }
        if (nested.length > 0) {
          const keys = nested.map((n) => n.navigation.fromColumn);
          const parent = keys.every((c) => written[c] !== undefined)
            ? written
            : known
              ? await readRow(run, conn.dialect, node, keyCondition(node, written), keys)
              : null;
          if (!parent) {
            throw invalidInput(
              'Nested rows need the new row read back by its key, which this table does not allow; add the children with their own add',
            );
          }
          const at = { ctx, conn, tables, returnsRows: capabilities.insertReturning };
          await insertChildren(at, node, [args], [parent], () => '');
        }
      }
      return result;
    };
    const { rows } =
      checked || guarded.length > 0 ? await conn.transaction(write) : await write(conn.run);
    if (!capabilities.insertReturning) return true;
    return shapeRows(node.table, requested, rows, conn.dialect)[0] ?? null;
  });
}

/**
 * Arguments of `add<Base>`: its writable columns (`writableColumns`), those the insert requires
 * (`isRequiredOnInsert`) non-null, the rest optional.
 */
export function addArgs(types: OperationTypes, node: RowNode): GraphQLFieldConfigArgumentMap {
  return Object.fromEntries(
    writableColumns(node, 'insert').map((c) => {
      const type = types.column(node, c);
      return [c.name, { type: isRequiredOnInsert(c) ? new GraphQLNonNull(type) : type }];
    }),
  );
}

/** `add<Base>(<columns>)`, offered by the insert action (CONTRACT.md §6). */
export const add: OperationKind = {
  action: 'insert',
  root: 'mutation',
  rootFieldName: (base) => `add${base}`,
  offered: (api) => api.actions.insert,
  field: ({ node, types, capabilities, tables }) => ({
    // CONTRACT.md §6: `<Base>`, or `Boolean` (always `true`) where the row cannot come back.
    type: capabilities.insertReturning ? types.row(node) : GraphQLBoolean,
    args: { ...addArgs(types, node), ...nestedRowArgs(types, node) } as never,
    resolve: addResolver(node, capabilities, referencesOf(tables, node.table), tables) as never,
    // Its rows and nested rows count against LIMIT_BULK_ROWS (`operation-cost.ts`).
    extensions: { writesRows: true },
  }),
};
