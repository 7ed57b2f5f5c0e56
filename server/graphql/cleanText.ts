/**
 * The clean-text rule (schema/text.ts) on every string a GraphQL request brings in: string literals of
 * arguments and every string inside the variables, before anything executes. A violation is one
 * VALIDATION_FAILED (HTTP 422) naming the argument or variable path, e.g. `input.enterprise_name`.
 */
import { type DocumentNode, Kind, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { textProblem } from '../../schema/text.ts';
import { type FieldProblem, ValidationError } from '../errors.ts';
import { toGraphQLError } from './errors.ts';

const MAX_PROBLEMS = 100;

function literalProblems(document: DocumentNode, problems: FieldProblem[]): void {
  visit(document, {
    Argument(argument) {
      const stack: Array<{ node: typeof argument.value; path: string }> = [
        { node: argument.value, path: argument.name.value },
      ];
      while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
        const { node, path } = stack.pop()!;
        if (node.kind === Kind.STRING) {
          const problem = textProblem(node.value, { multiline: node.block === true });
          if (problem) problems.push({ path, message: problem });
        } else if (node.kind === Kind.LIST) {
          node.values.forEach((value, i) => {
            stack.push({ node: value, path: `${path}[${i}]` });
          });
        } else if (node.kind === Kind.OBJECT) {
          for (const field of node.fields)
            stack.push({ node: field.value, path: `${path}.${field.name.value}` });
        }
      }
      return false;
    },
  });
}

/** Walks the variables without recursion (a deeply nested variable must not overflow the stack). */
function variableProblems(variables: unknown, problems: FieldProblem[]): void {
  if (typeof variables !== 'object' || variables === null) return;
  const stack: Array<{ value: unknown; path: string }> = Object.entries(variables).map(([name, value]) => ({
    value,
    path: name,
  }));
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) problems.push({ path, message: problem });
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => {
        stack.push({ value: item, path: `${path}[${i}]` });
      });
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (textProblem(key))
          problems.push({ path: `${path}`, message: 'has a field name that is not clean text' });
        stack.push({ value: item, path: `${path}.${key}` });
      }
    }
  }
}

export const cleanTextPlugin: Plugin = {
  onExecute({ args }) {
    const problems: FieldProblem[] = [];
    literalProblems(args.document, problems);
    variableProblems(args.variableValues, problems);
    // As a GraphQLError: Yoga would take a thrown error's `errors` array for an aggregate of errors.
    if (problems.length > 0) throw toGraphQLError(new ValidationError(problems));
  },
};
