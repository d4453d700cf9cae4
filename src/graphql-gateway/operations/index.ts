import { add } from './add';
import { addMany } from './add-many';
import { aggregate } from './aggregate';
import { count } from './count';
import { del } from './delete';
import { deleteMany } from './delete-many';
import { get } from './get';
import type { OperationKind } from './operation-kind';
import { update } from './update';
import { updateMany } from './update-many';
import { upsert, upsertMany } from './upsert';

/**
 * The operation kinds of every Table API, in schema order: each API's root fields appear in this
 * order under `Query` and `Mutation` (CONTRACT.md §6).
 */
export const OPERATION_KINDS: readonly OperationKind[] = [
  get,
  count,
  add,
  update,
  del,
  aggregate,
  addMany,
  updateMany,
  deleteMany,
  upsert,
  upsertMany,
];
