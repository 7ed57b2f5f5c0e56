import { Account } from './account.entity.ts';
import { AiDailyUsage } from './aiDailyUsage.entity.ts';
import { AnalysisResult } from './analysisResult.entity.ts';
import { ApiKey } from './apiKey.entity.ts';
import { Enterprise } from './enterprise.entity.ts';
import { Report } from './report.entity.ts';
import { Session } from './session.entity.ts';
import { Statement } from './statement.entity.ts';
import { Task } from './task.entity.ts';

export { Account, AiDailyUsage, AnalysisResult, ApiKey, Enterprise, Report, Session, Statement, Task };
export const ENTITIES = [
  Account,
  ApiKey,
  Enterprise,
  Report,
  Task,
  Statement,
  AnalysisResult,
  Session,
  AiDailyUsage,
];
