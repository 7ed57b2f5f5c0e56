import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Report } from './report.entity.ts';

export const TASK_STATUSES = ['processing', 'success', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TASK_STEPS = ['queued', 'store', 'compute', 'ai', 'assemble', 'done'] as const;
export type TaskStep = (typeof TASK_STEPS)[number];

/**
 * The background job behind a report (one per report). `payload` holds the validated submission until the
 * job has stored it in normalised form; it is cleared when the job succeeds.
 */
export const Task = defineEntity({
  name: 'Task',
  tableName: 'tasks',
  properties: {
    id: p.uuid().primary(),
    report: () => p.oneToOne(Report).owner().deleteRule('cascade').unique(),
    status: p.enum(TASK_STATUSES).default('processing'),
    step: p.enum(TASK_STEPS).default('queued'),
    attempts: p.integer().default(0),
    errorMessage: p.text().nullable(),
    payload: p.json<unknown>().nullable().lazy(),
    /** The AI step's texts and usage, stored when step 3 ends so a retried attempt reuses them; cleared on success. */
    aiResult: p.json<unknown>().nullable().default(null).lazy(),
    createdAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
    updatedAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ITask = InferEntity<typeof Task>;
