/**
 * Per-request DataLoaders over the batched reads of services/reportBatch.ts. Fields of many parents (the
 * enterprise of each of 50 reports) ask one loader in the same tick and are answered by one query; the
 * loaders live in the request's context, so nothing is cached across requests or principals.
 */
import DataLoader from 'dataloader';
import type { IAnalysisResult } from '../db/entities/analysisResult.entity.ts';
import type { IEnterprise } from '../db/entities/enterprise.entity.ts';
import type { IReport } from '../db/entities/report.entity.ts';
import type { ITask } from '../db/entities/task.entity.ts';
import type { Principal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import {
  findAnalysisByReportIds,
  findEnterprisesByIds,
  findReportsByIds,
  findTasksByReportIds,
} from '../services/reportBatch.ts';

export interface Loaders {
  report: DataLoader<string, IReport | null>;
  enterprise: DataLoader<string, IEnterprise | null>;
  /** Keyed by report id. */
  taskOfReport: DataLoader<string, ITask | null>;
  /** Keyed by report id: every item of the report, in catalogue order. */
  analysisOfReport: DataLoader<string, IAnalysisResult[]>;
}

/** A loader answering each key from one batched lookup; `fallback` for keys the lookup did not find. */
function batched<V>(
  lookup: (keys: readonly string[]) => Promise<Map<string, V>>,
  fallback: V,
): DataLoader<string, V> {
  return new DataLoader<string, V>(async (keys) => {
    const found = await lookup(keys);
    return keys.map((key) => found.get(key) ?? fallback);
  });
}

export function createLoaders(services: ServiceContext, principal: Principal): Loaders {
  return {
    report: batched<IReport | null>((ids) => findReportsByIds(services, principal, ids), null),
    enterprise: batched<IEnterprise | null>((ids) => findEnterprisesByIds(services, principal, ids), null),
    taskOfReport: batched<ITask | null>((ids) => findTasksByReportIds(services, principal, ids), null),
    analysisOfReport: batched<IAnalysisResult[]>(
      (ids) => findAnalysisByReportIds(services, principal, ids),
      [],
    ),
  };
}
