/**
 * The Pothos schema builder: plugins, scalar shapes, the context type, and the root types. Each type lives in
 * its own file under ./types with the queries that return it; ./schema.ts assembles them.
 */
import SchemaBuilder from '@pothos/core';
import RelayPlugin from '@pothos/plugin-relay';
import ValidationPlugin from '@pothos/plugin-validation';
import type { GraphQLContext } from './context.ts';
import { validationErrorFromIssues } from './errors.ts';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  Scalars: {
    /** ISO 8601 UTC text ending in `Z`, as the presenters write it; a Date once parsed as input. */
    DateTime: { Input: Date; Output: string };
    JSON: { Input: unknown; Output: unknown };
    /** An uploaded file (GraphQL multipart request spec): a WHATWG File in resolvers; input only. */
    File: { Input: File; Output: never };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [RelayPlugin, ValidationPlugin],
  // Fields are non-null unless they say otherwise: a null then means "absent", never "failed silently".
  defaultFieldNullability: false,
  relay: {
    // Connections only: records are addressed by their UUIDs, as in REST, not by Relay global ids.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    clientMutationId: 'omit',
    cursorType: 'String',
  },
  validation: {
    // The same yup schemas as REST; their issues become the service's ValidationError (REST's paths).
    validationError: (failure) => validationErrorFromIssues(failure.issues),
  },
});

builder.queryType({});
builder.mutationType({});
