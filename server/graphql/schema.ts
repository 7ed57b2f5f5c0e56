/**
 * The GraphQL schema, assembled from the type files (each registers its types and fields on the builder).
 */
import { builder } from './builder.ts';
import './types/scalars.ts';
import './types/enums.ts';
import './types/report.ts';
import './types/enterprise.ts';
import './types/task.ts';
import './types/analysis.ts';
import './types/catalogue.ts';
import './types/submission.ts';
import './types/console.ts';
import './types/webhook.ts';
import './types/benchmark.ts';
import './types/errorTypes.ts';
import './types/import.ts';

// Definition order, not alphabetical: fields read in the presenters' order and enum values in their meaning's
// (queued → store → compute → … → done), in introspection and in schema/schema.graphql alike.
export const schema = builder.toSchema({ sortSchema: false });
