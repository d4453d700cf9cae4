import { Logger } from '@nestjs/common';
import {
  type CallToolResult,
  McpServer,
  type StandardSchemaWithJSON,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { DomainError } from '../common/domain-error';
import { GRAPHQL_CODE_OF } from '../graphql-gateway/graphql-errors';
import { RequestRefusal } from '../graphql-gateway/request/compiled-operation';
import { CostBudgetExceeded } from '../rate-limits/cost-budgets.service';
import type { GraphQLResponse } from '../graphql-gateway/request/execute-operation';
import type { ApiCatalog, ApiEntry, JsonSchema } from './api-catalog';
import {
  addRowOperation,
  aggregateRowsOperation,
  COLUMN_MEASURES,
  countRowsOperation,
  DEFAULT_TAKE,
  deleteRowOperation,
  getRowsOperation,
  INCLUDE_TAKE,
  MAX_TAKE,
  ToolInputError,
  type ToolOperation,
  updateRowOperation,
} from './tool-operations';

const logger = new Logger('Mcp');

/** What one MCP request's tools act for: the caller's APIs, its delete switch and its runner. */
export interface McpSession {
  /** The Table APIs of the caller's own schema ({@link catalogOf}). */
  catalog: ApiCatalog;
  /** The key's `mcpDeletes` switch: `delete_row` is refused without it. */
  deletes: boolean;
  /**
   * Runs a tool's GraphQL operation through the GraphQL request steps 6-8 for this caller.
   * @throws RequestRefusal or DomainError of those steps.
   */
  run(operation: ToolOperation): Promise<GraphQLResponse>;
}

/** The tools in the order `tools/list` gives them (PEERS.md §F4: a fixed set). */
export const TOOL_NAMES = [
  'describe_apis',
  'get_rows',
  'count_rows',
  'aggregate_rows',
  'add_row',
  'update_row',
  'delete_row',
] as const;

/** Most elements (values, keys, items) one tool call's arguments may hold, counted by the SDK. */
const MAX_INPUT_ELEMENTS = 10_000;

/**
 * A Standard Schema that only carries a JSON Schema: the tools' `outputSchema`, generated from the
 * caller's row types. Our own answers are its only values, so it accepts them as they are.
 */
function jsonSchemaOnly(schema: JsonSchema): StandardSchemaWithJSON {
  return {
    '~standard': {
      version: 1,
      vendor: 'tablegraph',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  } as StandardSchemaWithJSON;
}

/** An API name argument. */
const api = z.string().min(1).max(200).describe('The API to call: a name describe_apis lists.');
/** A JSON object of our filter language (the GraphQL `<Base>Filter`). */
const where = z
  .record(z.string(), z.unknown())
  .optional()
  .describe(
    'Filter in the GraphQL <Base>Filter language as JSON: one key per column with operators ({"name": {"contains": "a"}, "id": {"in": [1, 2]}}), "and"/"or" lists, navigation keys; keys at one level combine with AND. describe_apis gives each column\'s operators.',
  );
const order = z
  .array(z.record(z.string(), z.unknown()))
  .max(100)
  .optional()
  .describe(
    'Sort, as the GraphQL <Base>Order list: [{"name": "ASC"}, {"id": "DESC"}]; one column per element, in the order given; the key completes every order.',
  );
const columns = z.array(z.string().max(200)).max(1000);
const values = z.record(z.string(), z.unknown());

/** Per-column measures of `aggregate_rows`. */
const measures = Object.fromEntries(
  COLUMN_MEASURES.map((m) => [m, columns.optional().describe(`Columns to answer ${m} of.`)]),
) as Record<(typeof COLUMN_MEASURES)[number], z.ZodOptional<typeof columns>>;

/** Each tool's arguments: made once, so their JSON Schemas are converted once (`listedOnly`). */
const INPUTS = {
  describe_apis: z.object({
    apis: z.array(z.string().max(200)).max(1000).optional().describe('Only these APIs.'),
    nameOnly: z.boolean().optional().describe('Only the API names.'),
  }),
  get_rows: z.object({
    api,
    where,
    order,
    take: z.number().int().min(0).max(MAX_TAKE).optional(),
    skip: z.number().int().min(0).optional(),
    fields: columns.optional().describe('Columns to answer; default every column.'),
    include: z
      .record(z.string(), columns)
      .optional()
      .describe(
        `Related rows to read with each row: {"<navigation>": ["<column>", …]} ([]: every column); a one-to-many navigation reads at most ${INCLUDE_TAKE} rows per row. describe_apis lists each API's navigations.`,
      ),
  }),
  count_rows: z.object({ api, where }),
  aggregate_rows: z.object({
    api,
    where,
    groupBy: columns.optional().describe('Columns to group by.'),
    buckets: values.optional().describe('YEAR/MONTH/DAY/HOUR of a grouped date column.'),
    having: values.optional().describe('Conditions on the groups (<Base>Having).'),
    order: z.array(values).max(100).optional().describe('Sort of the groups (<Base>GroupOrder).'),
    take: z.number().int().min(0).optional(),
    skip: z.number().int().min(0).optional(),
    ...measures,
  }),
  add_row: z.object({ api, values }),
  update_row: z.object({ api, key: values, set: values }),
  delete_row: z.object({ api, key: values }),
};

/**
 * A tool error as the caller reads it (CONTRACT.md §6 error codes): `{"error": {code, message,
 * field?}}` as text, never `structuredContent` (1.x clients would validate it against the
 * `outputSchema`: typescript-sdk #2748); `cost`, a key's cost report (README "Cost budgets"), in
 * `_meta`.
 */
function toolError(code: string, message: string, field?: unknown, cost?: unknown): CallToolResult {
  const error = { code, message, ...(typeof field === 'string' && { field }) };
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify({ error }) }],
    ...(cost !== undefined && { _meta: { cost } }),
  };
}

/**
 * A tool's answer: `structuredContent` and the same JSON as text, for clients that read text;
 * the GraphQL answer's `extensions.cost` (a key's cost report) in `_meta.cost`.
 */
function answered(structured: Record<string, unknown>, cost?: unknown): CallToolResult {
  return {
    structuredContent: structured,
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    ...(cost !== undefined && { _meta: { cost } }),
  };
}

/**
 * A refusal or failure as a tool error: our refusals keep their code and message (a request
 * refusal's messages joined), anything else is a bug of ours, logged by name and answered
 * `Internal server error` (never a stack, SQL or driver text).
 */
function failure(error: unknown): CallToolResult {
  if (error instanceof ToolInputError) return toolError(error.code, error.message);
  if (error instanceof CostBudgetExceeded) {
    return toolError(GRAPHQL_CODE_OF[error.code], error.message, undefined, error.report);
  }
  if (error instanceof RequestRefusal) {
    const code = String(error.errors[0]?.extensions?.code ?? 'BAD_REQUEST');
    return toolError(code, error.errors.map((e) => e.message).join('; '));
  }
  if (error instanceof DomainError) return toolError(GRAPHQL_CODE_OF[error.code], error.message);
  logger.error(`Tool failed: ${(error as Error)?.name ?? 'Error'}: ${(error as Error)?.message}`);
  return toolError('INTERNAL_SERVER_ERROR', 'Internal server error');
}

/**
 * Runs a tool body: a refusal before or during the operation is a tool error, and an answer with
 * errors is the first error's code, message and field (the GraphQL answer's own).
 */
async function runTool(
  session: McpSession,
  build: () => ToolOperation,
  shape: (data: Record<string, unknown>) => Record<string, unknown>,
): Promise<CallToolResult> {
  try {
    const answer = await session.run(build());
    const cost = answer.extensions?.cost;
    const first = answer.errors?.[0];
    if (first) {
      const extensions = first.extensions ?? {};
      return toolError(
        String(extensions.code ?? 'INTERNAL_SERVER_ERROR'),
        first.message,
        extensions.field,
        cost,
      );
    }
    return answered(shape(answer.data ?? {}), cost);
  } catch (error) {
    return failure(error);
  }
}

/**
 * The SDK's view of a tool's input schema: zod's JSON Schema for `tools/list`, and a validation
 * that passes everything, so that {@link registerChecked} checks the arguments itself and answers
 * a bad one as our tool error (the SDK would answer its own text).
 */
function listedOnly(schema: z.ZodType): StandardSchemaWithJSON {
  let listed = LISTED.get(schema);
  if (!listed) {
    type JsonSchemaOf = StandardSchemaWithJSON['~standard']['jsonSchema'];
    const convert = (schema['~standard'] as unknown as { jsonSchema: JsonSchemaOf }).jsonSchema;
    const converted = new Map<string, Record<string, unknown>>();
    // zod converts on every call; the arguments never change, so once per direction and target.
    const once =
      (direction: 'input' | 'output') =>
      (options: Parameters<JsonSchemaOf['input']>[0]): Record<string, unknown> => {
        const key = `${direction}:${options.target}`;
        let json = converted.get(key);
        if (!json) converted.set(key, (json = convert[direction](options)));
        return structuredClone(json);
      };
    listed = {
      '~standard': {
        version: 1,
        vendor: 'tablegraph',
        validate: (value: unknown) => ({ value }),
        jsonSchema: { input: once('input'), output: once('output') },
      },
    } as StandardSchemaWithJSON;
    LISTED.set(schema, listed);
  }
  return listed;
}

/** {@link listedOnly}'s wrapper of each tool's arguments. */
const LISTED = new WeakMap<z.ZodType, StandardSchemaWithJSON>();

/**
 * Registers a tool whose arguments are checked against `input` (zod) before `body` runs: a
 * failure is a `BAD_USER_INPUT` tool error naming each problem and where it is.
 */
function registerChecked<S extends z.ZodObject>(
  server: McpServer,
  name: string,
  config: {
    title: string;
    description: string;
    input: S;
    outputSchema: StandardSchemaWithJSON;
    annotations: ToolAnnotations;
  },
  body: (input: z.output<S>) => CallToolResult | Promise<CallToolResult>,
): void {
  const { input, ...rest } = config;
  server.registerTool(name, { ...rest, inputSchema: listedOnly(input) }, (raw: unknown) => {
    const parsed = input.safeParse(raw);
    if (!parsed.success) {
      return toolError(
        'BAD_USER_INPUT',
        `Invalid arguments for ${name}: ${z.prettifyError(parsed.error)}`,
      );
    }
    return body(parsed.data);
  });
}

/** The API of a tool call, or a refusal naming the APIs the caller has. */
function entryOf(session: McpSession, name: string): ApiEntry {
  const entry = session.catalog.get(name);
  if (!entry) {
    throw new ToolInputError(
      `No API named ${name} for this key; its APIs are ${[...session.catalog.keys()].join(', ') || '(none)'}`,
      'NOT_FOUND',
    );
  }
  return entry;
}

/** `describe_apis`' answer for one API. */
function description(entry: ApiEntry, deletes: boolean): Record<string, unknown> {
  const tools: string[] = [];
  if (entry.operations.get) tools.push('get_rows');
  if (entry.operations.count) tools.push('count_rows');
  if (entry.operations.aggregate) tools.push('aggregate_rows');
  if (entry.operations.add) tools.push('add_row');
  if (entry.operations.update) tools.push('update_row');
  if (entry.operations.delete && deletes) tools.push('delete_row');
  const writable = (op: 'add' | 'update') =>
    entry.operations[op]?.args.map((a) => ({ name: a.name, type: String(a.type) })) ?? [];
  return {
    name: entry.name,
    ...(entry.description && { description: entry.description }),
    tools,
    key: entry.key,
    fields: entry.columns.map((c) => ({
      name: c.name,
      type: c.type,
      nullable: c.nullable,
      ...(c.values && { values: c.values }),
      filters: c.operators,
      orderable: c.orderable,
    })),
    navigations: entry.navigations.map((n) => ({
      name: n.name,
      type: n.type,
      many: n.many,
      fields: Object.keys(n.fields),
    })),
    ...(entry.operations.add && { addTakes: writable('add') }),
    ...(entry.operations.update && { updateTakes: writable('update') }),
  };
}

/** The `anyOf` of every API's row schema (one row of any API the caller has). */
function anyRow(catalog: ApiCatalog): JsonSchema {
  const rows = [...catalog.values()].map((e) => e.rowSchema);
  return rows.length ? { anyOf: rows } : { type: 'object' };
}

/**
 * The MCP server of one request (stateless: one per HTTP request, as `createMcpHandler` makes
 * them): the seven tools of PEERS.md §F4 in a fixed order, whatever the tables. Each tool builds a
 * GraphQL operation with variables from names of the caller's own schema and runs it through the
 * GraphQL request steps ({@link McpSession.run}), so scope, drafts, row rules, limits, deadlines
 * and the rate limit are the GraphQL endpoint's. `outputSchema` comes from the caller's row types
 * (CONTRACT.md §6 value formats), answers are `structuredContent` with the same JSON as text, and
 * refusals are tool errors `{"error": {code, message, field?}}` with our codes.
 */
export function mcpServerFor(session: McpSession, version: string): McpServer {
  const server = new McpServer(
    { name: 'tablegraph', version },
    {
      maxToolInputElements: MAX_INPUT_ELEMENTS,
      instructions:
        'Call describe_apis first: it lists the APIs this key may call with their fields, filters and tools. Filters and sorts use the GraphQL where/order language as JSON.',
    },
  );
  const row = anyRow(session.catalog);
  const apiName = { type: 'string' };
  const readOnly: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

  registerChecked(
    server,
    'describe_apis',
    {
      title: 'Describe the APIs',
      description:
        'The APIs this key may call: for each, its tools, key, fields (type, nullable, enum values, filter operators, orderable), navigations and the columns add_row and update_row take.',
      input: INPUTS.describe_apis,
      outputSchema: jsonSchemaOnly({
        type: 'object',
        properties: { apis: { type: 'array', items: { type: 'object' } } },
        required: ['apis'],
      }),
      annotations: { ...readOnly, idempotentHint: true },
    },
    (input) => {
      try {
        const names = input.apis ?? [...session.catalog.keys()];
        const entries = names.map((name) => entryOf(session, name));
        return answered({
          apis: entries.map((e) =>
            input.nameOnly ? { name: e.name } : description(e, session.deletes),
          ),
        });
      } catch (error) {
        return failure(error);
      }
    },
  );

  registerChecked(
    server,
    'get_rows',
    {
      title: 'Read rows',
      description: `Rows of an API matching where, sorted by order, at most take (default ${DEFAULT_TAKE}, at most ${MAX_TAKE}) after skip; fields picks columns (default all), include reads related rows through navigations. nextSkip, when present, reads the next page.`,
      input: INPUTS.get_rows,
      outputSchema: jsonSchemaOnly({
        type: 'object',
        properties: {
          api: apiName,
          rows: { type: 'array', items: row },
          nextSkip: { type: 'integer' },
        },
        required: ['api', 'rows'],
      }),
      annotations: { ...readOnly, idempotentHint: true },
    },
    (input) => {
      const take = input.take ?? DEFAULT_TAKE;
      return runTool(
        session,
        () => getRowsOperation(entryOf(session, input.api), { ...input, take }),
        (data) => {
          const rows = (data.rows as unknown[]) ?? [];
          const more = rows.length > take;
          return {
            api: input.api,
            rows: more ? rows.slice(0, take) : rows,
            ...(more && { nextSkip: (input.skip ?? 0) + take }),
          };
        },
      );
    },
  );

  registerChecked(
    server,
    'count_rows',
    {
      title: 'Count rows',
      description: 'How many rows of an API match where.',
      input: INPUTS.count_rows,
      outputSchema: jsonSchemaOnly({
        type: 'object',
        properties: { api: apiName, count: { type: 'integer' } },
        required: ['api', 'count'],
      }),
      annotations: { ...readOnly, idempotentHint: true },
    },
    (input) =>
      runTool(
        session,
        () => countRowsOperation(entryOf(session, input.api), input),
        (data) => ({ api: input.api, count: data.count }),
      ),
  );

  registerChecked(
    server,
    'aggregate_rows',
    {
      title: 'Aggregate rows',
      description:
        'Groups of the rows matching where: count, and countDistinct/sum/avg/min/max of the columns named, grouped by groupBy (none: one group), with having, order, take (default 100) and skip as in the GraphQL aggregate<Base> operation.',
      input: INPUTS.aggregate_rows,
      outputSchema: jsonSchemaOnly({
        type: 'object',
        properties: { api: apiName, groups: { type: 'array', items: { type: 'object' } } },
        required: ['api', 'groups'],
      }),
      annotations: { ...readOnly, idempotentHint: true },
    },
    (input) =>
      runTool(
        session,
        () => aggregateRowsOperation(entryOf(session, input.api), input),
        (data) => ({ api: input.api, groups: data.groups }),
      ),
  );

  const written = {
    type: 'object',
    properties: { api: apiName, row: { anyOf: [row, { type: 'null' }] } },
    required: ['api', 'row'],
  };
  registerChecked(
    server,
    'add_row',
    {
      title: 'Add a row',
      description:
        'Adds one row: values names each column (describe_apis lists what add_row takes; required columns must be there). Answers the row as stored, or null where the database cannot return it.',
      input: INPUTS.add_row,
      outputSchema: jsonSchemaOnly(written),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (input) =>
      runTool(
        session,
        () => addRowOperation(entryOf(session, input.api), input),
        (data) => ({ api: input.api, row: typeof data.row === 'object' ? data.row : null }),
      ),
  );

  registerChecked(
    server,
    'update_row',
    {
      title: 'Update a row',
      description:
        'Changes the columns in set of the row whose key columns are key; only the columns sent change. Answers the row, or null when no such row is within reach.',
      input: INPUTS.update_row,
      outputSchema: jsonSchemaOnly(written),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (input) =>
      runTool(
        session,
        () => updateRowOperation(entryOf(session, input.api), input),
        (data) => ({ api: input.api, row: data.row ?? null }),
      ),
  );

  registerChecked(
    server,
    'delete_row',
    {
      title: 'Delete a row',
      description:
        'Deletes the row whose key columns are key. Off unless the key was created with mcpDeletes: true. Answers deleted: false when no such row is within reach.',
      input: INPUTS.delete_row,
      outputSchema: jsonSchemaOnly({
        type: 'object',
        properties: { api: apiName, deleted: { type: 'boolean' } },
        required: ['api', 'deleted'],
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (input) => {
      if (!session.deletes) {
        return toolError(
          'FORBIDDEN',
          'delete_row is off for this API key: deletes through MCP need a key created with mcpDeletes: true',
        );
      }
      return runTool(
        session,
        () => deleteRowOperation(entryOf(session, input.api), input),
        (data) => ({ api: input.api, deleted: data.deleted === true }),
      );
    },
  );
  return server;
}
