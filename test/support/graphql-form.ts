import {
  ArgumentNode,
  DefinitionNode,
  DocumentNode,
  GraphQLInputType,
  GraphQLSchema,
  Kind,
  parse,
  parseType,
  print,
  TypeInfo,
  valueFromASTUntyped,
  ValueNode,
  VariableDefinitionNode,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { ParsedRequest } from '../../src/common/http-request';
import { CallerResolverService } from '../../src/graphql-gateway/caller-resolver.service';
import { audienceOf } from '../../src/graphql-gateway/request/audience';
import { SchemaProviderService } from '../../src/graphql-gateway/schema-provider.service';
import { AppsService } from '../../src/platform/apps.service';
import { VersionsService } from '../../src/platform/versions.service';

/**
 * The form the e2e suites send GraphQL arguments in (issue 21, DESIGN.md "Tests"): `literal` as
 * each test wrote its document; `variables` with every argument literal turned into a declared
 * variable holding its JSON value, as Apollo Client, urql, graphql-request and codegen clients
 * send them. Jest's `e2e-variables` project sets the `GRAPHQL_FORM` global (jest.config.js); the
 * `e2e` project runs `literal`.
 */
export type GraphQLForm = 'literal' | 'variables';

/** The form of the running Jest project (`literal` outside one). */
export function graphqlForm(): GraphQLForm {
  return (globalThis as { GRAPHQL_FORM?: GraphQLForm }).GRAPHQL_FORM === 'variables'
    ? 'variables'
    : 'literal';
}

/** A GraphQL request's parameters (GraphQL over HTTP: `query`, `variables`, `operationName`). */
export interface GraphQLParams {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** Whether a value is, or holds, a variable (such an argument is left as it is). */
function holdsVariable(value: ValueNode): boolean {
  let found = false;
  visit(value, {
    Variable() {
      found = true;
    },
  });
  return found;
}

/** The fragments an operation or fragment spreads, directly or through other fragments. */
function spreadFragments(
  definition: DefinitionNode,
  fragments: Map<string, DefinitionNode>,
): Set<string> {
  const seen = new Set<string>();
  const pending = [definition];
  while (pending.length) {
    visit(pending.pop()!, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        const fragment = fragments.get(name);
        if (!seen.has(name) && fragment) {
          seen.add(name);
          pending.push(fragment);
        }
      },
    });
  }
  return seen;
}

interface LiftedArgument {
  name: string;
  type: GraphQLInputType;
  value: unknown;
}

/**
 * The same request with every argument literal of `query` (field and directive arguments, in
 * operations and fragments) replaced by a new variable `$_aN` of the argument's declared type,
 * its value the literal's JSON (`valueFromASTUntyped`: enum values as their names), declared in
 * every operation that uses it. Arguments that hold a variable already, and arguments `schema`
 * does not know (an unknown field or argument, left for the service to refuse), stay as written.
 * A text that does not parse, or that has no argument literal, is returned unchanged.
 */
export function argumentsAsVariables(schema: GraphQLSchema, params: GraphQLParams): GraphQLParams {
  let document: DocumentNode;
  try {
    document = parse(params.query, { noLocation: true });
  } catch {
    return params;
  }
  const taken = new Set<string>(Object.keys(params.variables ?? {}));
  visit(document, {
    Variable(node) {
      taken.add(node.name.value);
    },
  });
  let counter = 0;
  const nextName = () => {
    let name: string;
    do name = `_a${++counter}`;
    while (taken.has(name));
    return name;
  };
  // Per definition (operation index or fragment name), the arguments lifted out of it.
  const lifted = new Map<DefinitionNode, LiftedArgument[]>();
  const typeInfo = new TypeInfo(schema);
  const definitions = document.definitions.map((definition) => {
    const own: LiftedArgument[] = [];
    const rewritten = visit(
      definition,
      visitWithTypeInfo(typeInfo, {
        Argument(node: ArgumentNode) {
          const argument = typeInfo.getArgument();
          if (!argument || holdsVariable(node.value)) return undefined;
          const name = nextName();
          own.push({ name, type: argument.type, value: valueFromASTUntyped(node.value) });
          return {
            ...node,
            value: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: name } },
          };
        },
      }),
    );
    lifted.set(rewritten, own);
    return rewritten;
  });
  if (counter === 0) return params;
  const fragments = new Map<string, DefinitionNode>();
  for (const d of definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const variables: Record<string, unknown> = { ...params.variables };
  const withDefinitions = definitions.map((definition) => {
    if (definition.kind !== Kind.OPERATION_DEFINITION) return definition;
    const used = [...lifted.get(definition)!];
    for (const name of spreadFragments(definition, fragments))
      used.push(...lifted.get(fragments.get(name)!)!);
    const declared: VariableDefinitionNode[] = used.map((argument) => {
      variables[argument.name] = argument.value;
      return {
        kind: Kind.VARIABLE_DEFINITION,
        variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: argument.name } },
        type: parseType(String(argument.type), { noLocation: true }),
      };
    });
    return {
      ...definition,
      variableDefinitions: [...(definition.variableDefinitions ?? []), ...declared],
    };
  });
  return {
    ...params,
    query: print({ ...document, definitions: withDefinitions }),
    variables,
  };
}

/** What {@link requestSchema} reads of the running service (its Nest providers). */
export interface SchemaSources {
  get<T>(type: abstract new (...args: never[]) => T, options: { strict: false }): T;
}

const ENDPOINT_PATH = /^\/api\/graphql(?:\/([^/]+))?\/?$/i;

/**
 * The schema the service answers a GraphQL request at `path` with, read in process as the
 * endpoint's steps 1, 2 and 5 read it (app by address or `Host`, caller from the headers, the
 * caller's version head and audience), without a request of its own: nothing is counted against a
 * rate limit and no extra schema is built. Null when any step would refuse (the request is then
 * sent as written, for the service to refuse).
 * @param headers the request's headers, names in lower case.
 */
export async function requestSchema(
  app: SchemaSources,
  path: string,
  headers: Record<string, string>,
): Promise<GraphQLSchema | null> {
  const match = ENDPOINT_PATH.exec(path.split('?', 1)[0]);
  if (!match) return null;
  try {
    const view = await app
      .get(AppsService, { strict: false })
      .findByAddressOrDomain(
        match[1] === undefined
          ? { domain: (headers.host ?? '').split(':')[0] }
          : { address: decodeURIComponent(match[1]) },
      );
    if (!view) return null;
    const cookies = Object.fromEntries(
      (headers.cookie ?? '')
        .split(';')
        .map((pair) => pair.trim().split('='))
        .filter((pair) => pair.length === 2)
        .map(([name, value]) => [name, decodeURIComponent(value)]),
    );
    const request = { headers, cookies } as unknown as ParsedRequest;
    const caller = await app
      .get(CallerResolverService, { strict: false })
      .resolve(request, view.id);
    const versions = app.get(VersionsService, { strict: false });
    const head =
      caller.kind === 'builder'
        ? await versions.builderHead(view.id, caller.session.accountId)
        : await versions.mainHead(view.id);
    if (!head) return null;
    const schemas = app.get(SchemaProviderService, { strict: false });
    return (await schemas.get(head, audienceOf(caller, view.id))).schema;
  } catch {
    return null;
  }
}

/**
 * The code of a request refused for an argument value its type does not take, in the running
 * form: a literal fails validation (`GRAPHQL_VALIDATION_FAILED`), the same value sent as a variable
 * fails variable coercion (`BAD_USER_INPUT`). Both are `400` (CONTRACT.md §6 Error codes).
 */
export function invalidValueCode(): 'GRAPHQL_VALIDATION_FAILED' | 'BAD_USER_INPUT' {
  return graphqlForm() === 'literal' ? 'GRAPHQL_VALIDATION_FAILED' : 'BAD_USER_INPUT';
}
