import {
  GraphQLEnumType,
  GraphQLError,
  GraphQLFieldConfig,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
} from 'graphql';
import type { RowNode } from '../graphql-gateway/api-tree';
import type { GatewayContext } from '../graphql-gateway/gateway-context';
import { JSONScalar } from '../graphql-gateway/scalars';
import type { TableApiDefinition, WebhookEvent } from '../platform/version-definition';

/** The name of the enum of change events (`ChangeEvent`), reserved in every schema. */
export const CHANGE_EVENT_NAME = 'ChangeEvent';

/** `enum ChangeEvent { INSERTED UPDATED DELETED }`, holding the webhook event names as values. */
export const ChangeEventEnum = new GraphQLEnumType({
  name: CHANGE_EVENT_NAME,
  description:
    'What happened to a row (the webhooks name the same events inserted, updated, deleted).',
  values: {
    INSERTED: { value: 'inserted', description: 'A row was added (old is null).' },
    UPDATED: { value: 'updated', description: 'A row was changed.' },
    DELETED: { value: 'deleted', description: 'A row was deleted (new is null).' },
  },
});

/** The GraphQL name of a Table API's subscription field: `on<Base>Changed` (CONTRACT.md §11). */
export function subscriptionFieldName(base: string): string {
  return `on${base}Changed`;
}

/** The GraphQL name of the type one event of a Table API is: `<Base>Change`. */
export function changeTypeName(base: string): string {
  return `${base}Change`;
}

/** One event as the subscription field's resolver receives it (and GraphQL then selects from). */
export interface ChangePayload {
  event: WebhookEvent;
  /** The row's primary key, column to value. */
  key: Record<string, unknown>;
  /** The row before the change (every column; the row type shows the API's included ones). */
  old: Record<string, unknown> | null;
  /** The row after the change; null for a delete. */
  new: Record<string, unknown> | null;
}

/** What a subscriber asked for, handed to {@link SubscriptionContext.openChanges}. */
export interface ChangeStreamRequest {
  api: TableApiDefinition;
  node: RowNode;
  /** The `where` argument after GraphQL coercion, or null. */
  where: Record<string, unknown> | null;
  /** The events asked for; every event when the argument was left out. */
  events: WebhookEvent[];
}

/**
 * The context a subscription runs with (`src/subscriptions/subscriptions-server.ts`): the
 * request context plus the opener of a change stream. Absent on HTTP, where the field refuses.
 */
export interface SubscriptionContext extends GatewayContext {
  openChanges?: (request: ChangeStreamRequest) => Promise<AsyncIterable<ChangePayload>>;
}

const EVERY_EVENT: WebhookEvent[] = ['inserted', 'updated', 'deleted'];

/** The refusal of a subscription sent over HTTP. */
const OVER_WEBSOCKET =
  'Subscriptions are served over WebSocket (subprotocol graphql-transport-ws) at this same address; send queries and mutations over HTTP';

/**
 * `on<Base>Changed(where: <Base>Filter, events: [ChangeEvent!]): <Base>Change!` of a Table API
 * with the select action (README "Subscriptions", CONTRACT.md §11): `<Base>Change` is `{event,
 * key, old, new}` with `old`/`new` of the API's row type `<Base>`, so they carry only its included
 * columns in the same value forms as queries. Its `subscribe` opens the caller's change stream
 * ({@link SubscriptionContext.openChanges}); over HTTP it refuses with where to send it.
 */
export function changeSubscriptionField(
  api: TableApiDefinition,
  node: RowNode,
  base: string,
  row: GraphQLObjectType,
  filter: GraphQLInputObjectType,
): GraphQLFieldConfig<unknown, SubscriptionContext> {
  const change = new GraphQLObjectType({
    name: changeTypeName(base),
    description: `One committed change of a row of ${api.table} (API ${api.name}).`,
    fields: {
      event: { type: new GraphQLNonNull(ChangeEventEnum) },
      key: { type: new GraphQLNonNull(JSONScalar), description: 'The primary key of the row.' },
      old: { type: row, description: 'The row before the change; null for an insert.' },
      new: { type: row, description: 'The row after the change; null for a delete.' },
    },
  });
  return {
    type: new GraphQLNonNull(change),
    args: {
      where: {
        type: filter,
        description:
          'Only changes of rows that match: the new row for inserts and updates, the old row for deletes. Relation filters are not available.',
      },
      events: {
        type: new GraphQLList(new GraphQLNonNull(ChangeEventEnum)),
        description: 'The events to receive; all three when left out.',
      },
    },
    subscribe: async (_source, args: Record<string, unknown>, ctx) => {
      if (!ctx.openChanges) throw new GraphQLError(OVER_WEBSOCKET);
      const events = (args.events as WebhookEvent[] | null | undefined) ?? EVERY_EVENT;
      return ctx.openChanges({
        api,
        node,
        where: (args.where as Record<string, unknown> | null | undefined) ?? null,
        events: [...new Set(events)],
      });
    },
    resolve: (payload: unknown) => {
      if (!payload || typeof payload !== 'object' || !('event' in payload))
        throw new GraphQLError(OVER_WEBSOCKET);
      return payload;
    },
  };
}
