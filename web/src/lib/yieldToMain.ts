/**
 * Ends the current main-thread task and resumes in a new one, so the browser can paint and handle input in
 * between: `scheduler.yield()` where the browser has it (the continuation keeps its priority), else a
 * zero-delay timer. Used to cut work that would otherwise be one long task (a report's first render, a chart's
 * first draw) into several short ones.
 */
interface Scheduler {
  yield?: () => Promise<void>;
}

export function yieldToMain(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: Scheduler }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}
