import {
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  GraphQLError,
  GraphQLInt,
  Kind,
  OperationDefinitionNode,
  SelectionSetNode,
  ValidationContext,
  ValidationRule,
  valueFromAST,
} from 'graphql';
import { planPage } from './query-planner';

/** Navigation fields on the longest path below the root operation field (CONTRACT.md §6 Limits). */
export const NESTING_LIMIT = 12;
/** Aliases in one request (CONTRACT.md §6 Limits). */
export const ALIAS_LIMIT = 100;

/** A refusal of the request as a whole, before any SQL runs: HTTP 400, code `BAD_USER_INPUT`. */
export function requestError(message: string, code = 'BAD_USER_INPUT'): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status: 400 } } });
}

function fragmentsOf(document: DocumentNode): Record<string, FragmentDefinitionNode> {
  const out: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) out[d.name.value] = d;
  return out;
}

/** Depth of navigation fields below a selection set; introspection fields do not count. */
function navigationDepth(
  set: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  visiting: Set<string>,
): number {
  let depth = 0;
  for (const s of set?.selections ?? []) {
    if (s.kind === Kind.FIELD) {
      if (s.selectionSet && !s.name.value.startsWith('__'))
        depth = Math.max(depth, 1 + navigationDepth(s.selectionSet, fragments, visiting));
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      depth = Math.max(depth, navigationDepth(s.selectionSet, fragments, visiting));
    } else if (!visiting.has(s.name.value)) {
      visiting.add(s.name.value);
      depth = Math.max(
        depth,
        navigationDepth(fragments[s.name.value]?.selectionSet, fragments, visiting),
      );
      visiting.delete(s.name.value);
    }
  }
  return depth;
}

/** The fields an operation selects at its root, fragments expanded. */
export function rootFieldsOf(
  operation: OperationDefinitionNode,
  document: DocumentNode,
): FieldNode[] {
  const fragments = fragmentsOf(document);
  const out: FieldNode[] = [];
  const walk = (set: SelectionSetNode | undefined, seen: Set<string>) => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) out.push(s);
      else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, seen);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        walk(fragments[s.name.value]?.selectionSet, seen);
      }
    }
  };
  walk(operation.selectionSet, new Set());
  return out;
}

/**
 * Validation rule: refuses more than {@link NESTING_LIMIT} levels of navigation fields. Apollo
 * answers every validation error with code GRAPHQL_VALIDATION_FAILED; the message names the limit.
 */
export const NestingLimitRule: ValidationRule = (context: ValidationContext) => ({
  OperationDefinition(operation) {
    const document = context.getDocument();
    const fragments = fragmentsOf(document);
    for (const root of rootFieldsOf(operation, document)) {
      if (root.name.value.startsWith('__')) continue;
      const depth = navigationDepth(root.selectionSet, fragments, new Set());
      if (depth > NESTING_LIMIT) {
        context.reportError(
          new GraphQLError(
            `Nesting limit exceeded: "${root.name.value}" nests ${depth} relations; the limit is ${NESTING_LIMIT}`,
            {
              nodes: [root],
            },
          ),
        );
      }
    }
  },
});

/** Validation rule: refuses more than {@link ALIAS_LIMIT} aliases in one document. */
export const AliasLimitRule: ValidationRule = (context: ValidationContext) => {
  let aliases = 0;
  return {
    Field(node) {
      if (node.alias) aliases++;
    },
    Document: {
      leave() {
        if (aliases > ALIAS_LIMIT) {
          context.reportError(
            new GraphQLError(
              `Alias limit exceeded: the request has ${aliases} aliases; the limit is ${ALIAS_LIMIT}`,
            ),
          );
        }
      },
    },
  };
};

/**
 * Checks every `take` and `skip` of the operation with the request's variables, before any
 * resolver runs (CONTRACT.md §6: limits are checked before any SQL).
 * @throws GraphQLError (HTTP 400) naming the limit.
 */
export function checkPageArguments(
  operation: OperationDefinitionNode,
  document: DocumentNode,
  variables: Record<string, unknown>,
): void {
  const fragments = fragmentsOf(document);
  const visit = (set: SelectionSetNode | undefined, seen: Set<string>) => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) {
        const value = (name: string) => {
          const arg = s.arguments?.find((a) => a.name.value === name);
          return arg
            ? (valueFromAST(arg.value, GraphQLInt, variables) as number | null | undefined)
            : undefined;
        };
        try {
          planPage(value('take'), value('skip'));
        } catch (error) {
          throw requestError(`${s.name.value}: ${(error as Error).message}`);
        }
        visit(s.selectionSet, seen);
      } else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet, seen);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        visit(fragments[s.name.value]?.selectionSet, seen);
      }
    }
  };
  visit(operation.selectionSet, new Set());
}
