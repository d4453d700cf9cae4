import {
  DefinitionNode,
  DocumentNode,
  FragmentDefinitionNode,
  Kind,
  OperationDefinitionNode,
  SelectionSetNode,
  visit,
} from 'graphql';

/** Navigation fields on the longest path below a root field (CONTRACT.md §6 Limits). */
export const NESTING_LIMIT = 12;
/** Aliases in one request, counted with fragments expanded (CONTRACT.md §6 Limits). */
export const ALIAS_LIMIT = 100;

/**
 * The size of one operation with every fragment spread replaced by the fragment's selections,
 * as the executor would see it. Numbers are capped at {@link SHAPE_CAP} so a document whose
 * expansion is astronomically large still yields a finite count.
 */
export interface OperationShape {
  /** Selected fields, fragments expanded (introspection fields included). */
  fields: number;
  /** Aliased fields, fragments expanded. */
  aliases: number;
  /** Navigation fields on the longest path below a root field; introspection fields do not count. */
  depth: number;
}

/** Ceiling of the numbers in {@link OperationShape}: beyond any limit, still exact in a double. */
export const SHAPE_CAP = 2 ** 50;

interface Measure {
  fields: number;
  aliases: number;
  /** 1 + the deepest selection set below a field with sub-selections (0: only leaves). */
  depth: number;
}

const EMPTY: Measure = { fields: 0, aliases: 0, depth: 0 };
const cap = (n: number) => Math.min(n, SHAPE_CAP);

/**
 * Measures documents in time linear in their size, whatever their fragments: each fragment is
 * measured once and its measure reused at every spread (a fragment that spreads the next one
 * twice, 26 levels deep, costs 26 measures, not 2^26 walks). A spread of a fragment that is
 * being measured (a cycle) or unknown counts as empty; validation reports both.
 */
class ShapeMeter {
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  private readonly measured = new Map<string, Measure>();
  private readonly measuring = new Set<string>();

  constructor(definitions: readonly DefinitionNode[]) {
    for (const d of definitions) {
      if (d.kind === Kind.FRAGMENT_DEFINITION && !this.fragments.has(d.name.value)) {
        this.fragments.set(d.name.value, d);
      }
    }
  }

  operation(operation: OperationDefinitionNode): OperationShape {
    const m = this.selectionSet(operation.selectionSet);
    // Root fields are not navigation fields: the depth below them is one less.
    return { fields: m.fields, aliases: m.aliases, depth: Math.max(0, m.depth - 1) };
  }

  private selectionSet(set: SelectionSetNode | undefined): Measure {
    if (!set) return EMPTY;
    let fields = 0;
    let aliases = 0;
    let depth = 0;
    for (const s of set.selections) {
      let m: Measure;
      if (s.kind === Kind.FIELD) {
        const sub = this.selectionSet(s.selectionSet);
        const navigates = s.selectionSet !== undefined && !s.name.value.startsWith('__');
        m = {
          fields: 1 + sub.fields,
          aliases: (s.alias ? 1 : 0) + sub.aliases,
          depth: navigates ? 1 + sub.depth : 0,
        };
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        m = this.selectionSet(s.selectionSet);
      } else {
        m = this.fragment(s.name.value);
      }
      fields = cap(fields + m.fields);
      aliases = cap(aliases + m.aliases);
      depth = Math.max(depth, m.depth);
    }
    return { fields, aliases, depth };
  }

  private fragment(name: string): Measure {
    const known = this.measured.get(name);
    if (known) return known;
    const definition = this.fragments.get(name);
    if (!definition || this.measuring.has(name)) return EMPTY;
    this.measuring.add(name);
    const m = this.selectionSet(definition.selectionSet);
    this.measuring.delete(name);
    this.measured.set(name, m);
    return m;
  }
}

/**
 * The expanded shape of every operation of a document, by operation name (`''` for an anonymous
 * one), in time linear in the document (see {@link ShapeMeter}).
 */
export function operationShapes(document: DocumentNode): Map<string, OperationShape> {
  const meter = new ShapeMeter(document.definitions);
  const out = new Map<string, OperationShape>();
  for (const d of document.definitions) {
    if (d.kind === Kind.OPERATION_DEFINITION) out.set(d.name?.value ?? '', meter.operation(d));
  }
  return out;
}

/** Fragment spreads written in a document (not expanded): CONTRACT.md §6 "fragment spreads". */
export function countFragmentSpreads(document: DocumentNode): number {
  let spreads = 0;
  visit(document, {
    FragmentSpread() {
      spreads++;
    },
  });
  return spreads;
}

/** The ceilings {@link shapeViolations} checks. */
export interface ShapeLimits {
  fragmentSpreads: number;
  /** Expanded fields may not exceed the token ceiling: no document may inflate itself past what could be written out. */
  queryTokens: number;
}

/**
 * Every shape limit a document breaks (CONTRACT.md §6 Limits): fragment spreads, aliases and
 * nesting with fragments expanded, and expanded fields. Each message names the limit and what to
 * change. Empty when the document is within every limit. Linear in the document.
 * @param shapes `operationShapes(document)` when the caller has it already.
 */
export function shapeViolations(
  document: DocumentNode,
  limits: ShapeLimits,
  shapes: Map<string, OperationShape> = operationShapes(document),
): string[] {
  const problems: string[] = [];
  const spreads = countFragmentSpreads(document);
  if (spreads > limits.fragmentSpreads) {
    problems.push(
      `Fragment spread limit exceeded: the document has ${spreads} fragment spreads; the limit is ${limits.fragmentSpreads}`,
    );
  }
  for (const [name, shape] of shapes) {
    const label = name ? `operation "${name}"` : 'the operation';
    if (shape.aliases > ALIAS_LIMIT) {
      problems.push(
        `Alias limit exceeded: ${label} has ${shape.aliases} aliases with fragments expanded; the limit is ${ALIAS_LIMIT}`,
      );
    }
    if (shape.depth > NESTING_LIMIT) {
      problems.push(
        `Nesting limit exceeded: ${label} nests ${shape.depth} relations; the limit is ${NESTING_LIMIT}`,
      );
    }
    if (shape.fields > limits.queryTokens) {
      problems.push(
        `Field limit exceeded: ${label} selects ${shape.fields} fields with fragments expanded; the limit is ${limits.queryTokens}`,
      );
    }
  }
  return problems;
}
