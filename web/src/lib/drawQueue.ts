/**
 * Charts coming into view together are drawn one per task (a fast scroll brings several at once): each
 * ECharts init and first render is its own main-thread task, never one long task for all of them.
 */
const queue: Array<() => Promise<void>> = [];
let draining = false;

export function enqueueDraw(draw: () => Promise<void>) {
  queue.push(draw);
  if (draining) return;
  draining = true;
  const next = () => {
    const job = queue.shift();
    if (!job) {
      draining = false;
      return;
    }
    void job().finally(() => setTimeout(next, 0));
  };
  setTimeout(next, 0);
}
