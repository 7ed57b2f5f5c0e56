/**
 * Task: the background job behind a report (GET /tasks/{task_id} in REST), the query `task(id)`, and
 * `Report.task`.
 */
import { NotFoundError } from '../../errors.ts';
import { presentReport, presentTask } from '../../presenters/reportPresenter.ts';
import { getTask } from '../../services/reports.ts';
import { builder } from '../builder.ts';
import { TaskStatusEnum, TaskStepEnum } from './enums.ts';
import { ReportRef } from './report.ts';

type PresentedTask = ReturnType<typeof presentTask>;

export const TaskRef = builder.objectRef<PresentedTask>('Task').implement({
  description:
    'The job that analyses a report. It moves with its report: processing ↔ pending, then both succeed or fail.',
  fields: (t) => ({
    id: t.exposeID('task_id', { description: 'The task id (same as taskId), for client caches.' }),
    taskId: t.exposeID('task_id'),
    reportId: t.exposeID('report_id'),
    done: t.exposeBoolean('done', {
      description: 'True once the task has finished (success or failed), as AIP-151 operations say.',
    }),
    reportUrl: t.exposeString('report_url', { description: 'REST path of the task’s report (its result).' }),
    status: t.expose('status', { type: TaskStatusEnum }),
    step: t.expose('step', { type: TaskStepEnum }),
    attempts: t.exposeInt('attempts'),
    errorMessage: t.exposeString('error_message', {
      nullable: true,
      description: 'Why the job failed; null unless status is failed.',
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (task) => task.created_at! }),
    startedAt: t.field({ type: 'DateTime', nullable: true, resolve: (task) => task.started_at }),
    finishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (task) => task.finished_at }),
    report: t.field({
      type: ReportRef,
      resolve: async (task, _args, ctx) => {
        const report = await ctx.loaders.report.load(task.report_id);
        if (!report) throw new NotFoundError('report', task.report_id);
        return presentReport(report, ctx.services.config.appUrl);
      },
    }),
  }),
});

builder.queryField('task', (t) =>
  t.field({
    type: TaskRef,
    nullable: true,
    description:
      'A task visible to the caller; NOT_FOUND for an unknown id or one of another account or mode.',
    args: { id: t.arg.id({ required: true, description: 'The task id (task_id of the submission).' }) },
    resolve: async (_root, { id }, ctx) =>
      presentTask(await getTask(ctx.services, ctx.principal, String(id))),
  }),
);

builder.objectField(ReportRef, 'task', (t) =>
  t.field({
    type: TaskRef,
    resolve: async (report, _args, ctx) => {
      const task = await ctx.loaders.taskOfReport.load(report.report_id);
      if (!task) throw new NotFoundError('task of report', report.report_id);
      return presentTask(task);
    },
  }),
);
