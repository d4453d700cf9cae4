import type DataLoader from 'dataloader';
import type { FieldNode } from 'graphql';
import type { KeyPrincipal } from '../api-keys/api-keys.service';
import type { AppUserPrincipal } from '../app-access/app-users.service';
import type { DatasourceConnection } from '../datasources/datasource-pools.service';
import type { PlatformSession } from '../platform/sessions.service';
import type { RequestBudget } from './request/request-budget';
import type { RequestTransaction } from './request/request-transaction';
import type { RowScopes } from './request/row-scopes';
import type { ChangeCapture } from '../webhooks/change-capture';

/** Who is calling the GraphQL endpoint (CONTRACT.md §6 caller table). */
export type Caller =
  | { kind: 'key'; principal: KeyPrincipal }
  | { kind: 'builder'; session: PlatformSession }
  | {
      kind: 'app-user';
      user: AppUserPrincipal;
      /**
       * Set when a signed-in builder views as this user (`x-view-as-user`): the account id. Such a
       * request is the user's own in every step (main version, schema, rules, throttle) and may
       * only read.
       */
      viewedBy?: string;
    }
  | { kind: 'anonymous' };

/** Per-request state shared by the resolvers of one GraphQL request. */
export interface GatewayContext {
  caller: Caller;
  appId: string;
  /**
   * The pooled connection of a datasource (memoised per request). Its statements carry the
   * request's abort signal (client gone, budget spent) and charge their rows to the budget.
   */
  connection(datasourceId: string): Promise<DatasourceConnection>;
  /** What the request may still read (rows and bytes); see {@link RequestBudget}. */
  budget: RequestBudget;
  /** The caller's row rule per table: the required `scope` of every plan (CONTRACT.md §4). */
  scopes: RowScopes;
  /**
   * One DataLoader per navigation-field occurrence in the document for this request. Both
   * executors hand every row of one occurrence the same `fieldNodes` array (graphql-jit: the one
   * it compiled the occurrence with), so it is the key.
   */
  loaders: WeakMap<readonly FieldNode[], DataLoader<unknown, unknown>>;
  /**
   * A mutation request's one transaction (README "Writing rows"): every statement of the request
   * runs in it; absent for queries.
   */
  transaction?: RequestTransaction;
  /**
   * A mutation request's changes for webhooks (README "Webhooks"): the write operations record
   * the rows they change; handed to the outbox once the transaction committed.
   */
  changes?: ChangeCapture;
}
