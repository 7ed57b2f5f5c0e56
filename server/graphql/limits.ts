/**
 * Limits on what one GraphQL request may ask for, checked while validating (before any resolver runs):
 *
 * - depth: at most MAX_DEPTH levels of nested fields (root fields are level 1; introspection is exempt);
 * - cost: at most MAX_COST. A field that returns objects costs 1, and a list field multiplies its own cost
 *   and its subtree's by its size: the `first` of a connection or the number of `slugs` asked for, as
 *   declared on the field (`listSize` below) — the declared default when the argument is absent, the
 *   declared maximum when it is a variable. Scalars cost nothing. So the cost bounds the objects a response
 *   can hold, whatever the aliases.
 * - tokens: a document of at most MAX_TOKENS tokens, so parsing and validation stay cheap.
 *
 * - aliases: at most MAX_ALIASES aliased fields in a document (TOO_MANY_ALIASES);
 * - AI: at most one AI-generating mutation field (generateAiAnalysis) per request (TOO_MANY_AI_MUTATIONS),
 *   whatever the aliases or fragments; each one also spends the key's ai_regeneration budget.
 * The catalogue's lists declare their real sizes (fixedListSize); every other list either declares its size
 * or is bounded by the objects around it.
 *
 * A rejected request gets a GraphQL error with `extensions.code` QUERY_TOO_DEEP, QUERY_TOO_COMPLEX,
 * TOO_MANY_ALIASES, TOO_MANY_AI_MUTATIONS or (for tokens) GRAPHQL_PARSE_FAILED, and nothing executes.
 */
import {
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  GraphQLError,
  type GraphQLField,
  type GraphQLSchema,
  getNamedType,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  parse,
  type SelectionSetNode,
  type ValidationContext,
  type ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

export const MAX_DEPTH = 8;
export const MAX_COST = 10_000;
export const MAX_TOKENS = 2_000;
/** Aliased fields in one document: aliases are how one request repeats a field many times. */
export const MAX_ALIASES = 30;
/** Mutation fields that make model calls; at most one of them per request. */
export const AI_MUTATIONS: ReadonlySet<string> = new Set(['generateAiAnalysis']);
export const MAX_AI_MUTATIONS = 1;

/** How many items a list field returns, for the cost estimate (cf. the cost spec's `@listSize`). */
export interface ListSize {
  /** The argument that sizes the list: an Int (page size) or a list (its length). */
  slicingArgument: string;
  /** The size when the argument is absent. */
  defaultSize: number;
  /** The largest size: taken when the argument is a variable, and the cap for a literal. */
  maxSize: number;
}

/** `extensions` of a list whose size is known (the static catalogue's): no argument changes it. */
export function fixedListSize(size: number): { listSize: ListSize } {
  return { listSize: { slicingArgument: '', defaultSize: size, maxSize: size } };
}

/** `extensions` of a list field, declaring its size. */
export function listSize(size: ListSize): { listSize: ListSize } {
  return { listSize: size };
}

function sizeOf(
  field: GraphQLField<unknown, unknown>,
  args: readonly { name: { value: string }; value: ValueNode }[],
) {
  const declared = field.extensions.listSize as ListSize | undefined;
  if (!declared) return 1;
  const arg = args.find((candidate) => candidate.name.value === declared.slicingArgument);
  if (!arg) return declared.defaultSize;
  const { value } = arg;
  // Clamped at 0 too: a negative page size (rejected when it executes) must not subtract from the total.
  if (value.kind === Kind.INT) return Math.max(0, Math.min(Number(value.value), declared.maxSize));
  if (value.kind === Kind.LIST) return Math.min(value.values.length, declared.maxSize);
  if (value.kind === Kind.NULL) return declared.defaultSize;
  return declared.maxSize;
}

interface Measure {
  /** Levels of fields below this selection set (a leaf field is 1). */
  depth: number;
  cost: number;
}

/**
 * Depth and cost of a selection set on `type`. Introspection fields (`__schema`, `__type`) are exempt: their
 * size is bounded by the schema, and clients' introspection queries nest deeper than any data query needs.
 * Unknown fields and fragments count as nothing (GraphQL's own rules report them), and a fragment already
 * being expanded on this path is not expanded again (cycles are reported by NoFragmentCyclesRule): unlike
 * @envelop/depth-limit, which crashes on both (a 500 instead of a validation error), so it is not used.
 */
function measure(
  schema: GraphQLSchema,
  selectionSet: SelectionSetNode,
  type: GraphQLCompositeType,
  fragments: Map<string, FragmentDefinitionNode>,
  expanding: Set<string>,
): Measure {
  let depth = 0;
  let cost = 0;
  const add = (inner: Measure) => {
    depth = Math.max(depth, inner.depth);
    cost += inner.cost;
  };
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      if (name.startsWith('__')) continue;
      const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[name] : undefined;
      const fieldType = field && getNamedType(field.type);
      if (!field || !fieldType || !selection.selectionSet || !isCompositeType(fieldType)) {
        depth = Math.max(depth, 1);
        continue;
      }
      const inner = measure(schema, selection.selectionSet, fieldType, fragments, expanding);
      depth = Math.max(depth, 1 + inner.depth);
      cost += sizeOf(field, selection.arguments ?? []) * (1 + inner.cost);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const condition = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
      if (condition && isCompositeType(condition)) {
        add(measure(schema, selection.selectionSet, condition, fragments, expanding));
      }
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      if (!fragment || expanding.has(name)) continue;
      const condition = schema.getType(fragment.typeCondition.name.value);
      if (!condition || !isCompositeType(condition)) continue;
      expanding.add(name);
      add(measure(schema, fragment.selectionSet, condition, fragments, expanding));
      expanding.delete(name);
    }
  }
  return { depth, cost };
}

/** How many root fields named in `names` a selection set runs (through aliases and fragments). */
function countRootFields(
  selectionSet: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  names: ReadonlySet<string>,
  expanding: Set<string>,
): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (names.has(selection.name.value)) count++;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += countRootFields(selection.selectionSet, fragments, names, expanding);
    } else {
      const fragment = fragments.get(selection.name.value);
      if (!fragment || expanding.has(selection.name.value)) continue;
      expanding.add(selection.name.value);
      count += countRootFields(fragment.selectionSet, fragments, names, expanding);
      expanding.delete(selection.name.value);
    }
  }
  return count;
}

/** Validation rule: rejects an operation nested deeper than `maxDepth` or estimated to cost over `maxCost`. */
export function queryLimitsRule(maxDepth: number, maxCost: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    let aliases = 0;
    return {
      Field(field) {
        if (field.alias && ++aliases === MAX_ALIASES + 1) {
          context.reportError(
            new GraphQLError(`The document uses more than ${MAX_ALIASES} aliases.`, {
              nodes: [field],
              extensions: { code: 'TOO_MANY_ALIASES', maxAliases: MAX_ALIASES },
            }),
          );
        }
      },
      OperationDefinition(operation) {
        if (operation.operation === 'mutation') {
          const ai = countRootFields(operation.selectionSet, fragments, AI_MUTATIONS, new Set());
          if (ai > MAX_AI_MUTATIONS) {
            context.reportError(
              new GraphQLError(
                `The operation asks for ${ai} AI-generating mutation fields; at most ${MAX_AI_MUTATIONS} per request.`,
                { nodes: [operation], extensions: { code: 'TOO_MANY_AI_MUTATIONS', max: MAX_AI_MUTATIONS } },
              ),
            );
          }
        }
        const root = context.getSchema().getRootType(operation.operation);
        if (!root) return;
        const { depth, cost } = measure(
          context.getSchema(),
          operation.selectionSet,
          root,
          fragments,
          new Set(),
        );
        if (depth > maxDepth) {
          context.reportError(
            new GraphQLError(`The operation nests ${depth} levels deep, over the limit of ${maxDepth}.`, {
              nodes: [operation],
              extensions: { code: 'QUERY_TOO_DEEP', depth, maxDepth },
            }),
          );
        }
        if (cost > maxCost) {
          context.reportError(
            new GraphQLError(
              `The operation's estimated cost is ${cost}, over the limit of ${maxCost}: ask for fewer or smaller pages.`,
              { nodes: [operation], extensions: { code: 'QUERY_TOO_COMPLEX', cost, maxCost } },
            ),
          );
        }
      },
    };
  };
}

/**
 * The estimated cost (as above) of the operation a request executes: what its `reads` budget is charged in
 * proportion to (server/graphql/readCost.ts). 0 when the operation is not found.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  const operations = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    else if (definition.kind === Kind.OPERATION_DEFINITION) operations.push(definition);
  }
  const operation = operationName
    ? operations.find((candidate) => candidate.name?.value === operationName)
    : operations[0];
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return 0;
  return measure(schema, operation.selectionSet, root, fragments, new Set()).cost;
}

const tokenLimit: Plugin = {
  onParse({ setParseFn }) {
    setParseFn((source, options) => parse(source, { ...options, maxTokens: MAX_TOKENS }));
  },
};

const depthAndCostLimit: Plugin = {
  onValidate({ addValidationRule }) {
    addValidationRule(queryLimitsRule(MAX_DEPTH, MAX_COST));
  },
};

/** The Yoga plugins enforcing the limits above. */
export function queryLimitPlugins(): Plugin[] {
  return [tokenLimit, depthAndCostLimit];
}
