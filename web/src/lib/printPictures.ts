/**
 * The charts' print pictures, made ahead of any print: once the share page has rendered every card and loaded
 * its chart code (SharedReport.vue calls `startPrintPictures`), each chart's picture is made in idle tasks of
 * its own (`requestIdleCallback`): one chart at a time, its layout in one task and its SVG in the next
 * (charts/printPicture.ts), so that print CSS alone puts every chart on paper — also when a browser or tool
 * prints without the `beforeprint` event or a `matchMedia('print')` change (a headless tool that snapshots
 * print media, an iOS share sheet). A print that does send the event makes the pictures still missing at once
 * (EChart.vue).
 */
import { ref } from 'vue';

/** One step of a chart's picture; it may return the next step, run in the next idle task. */
export type PictureStep = () => PictureStep | undefined;

const jobs = new Set<PictureStep>();
/** The second step of the chart under way. */
let continuation: PictureStep | undefined;
/** How many charts still wait for their print picture: the page is ready to print when none does. */
export const picturesPending = ref(0);
let started = false;
let scheduled = false;

const count = () => {
  picturesPending.value = jobs.size + (continuation ? 1 : 0);
};

function schedule() {
  if (!started || scheduled || (jobs.size === 0 && !continuation)) return;
  scheduled = true;
  const run = () => {
    scheduled = false;
    let step = continuation;
    continuation = undefined;
    if (!step) {
      step = jobs.values().next().value;
      if (step) jobs.delete(step);
    }
    continuation = step?.();
    count();
    schedule();
  };
  // A busy page still gets its pictures: each step a second later at the latest.
  if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: 1000 });
  else setTimeout(run, 50);
}

/** Queues a chart's picture (made when the page has started making them, in document order). */
export function queuePicture(job: PictureStep): void {
  jobs.add(job);
  count();
  schedule();
}

/** Takes a chart's picture off the queue (made already, by a print, or the chart is gone). */
export function dropPicture(job: PictureStep): void {
  if (jobs.delete(job)) count();
}

/** From now on the queued pictures are made, a step per idle task. */
export function startPrintPictures(): void {
  started = true;
  schedule();
}

/** The page is gone (the share page unmounted): the next one starts again once it is rendered. */
export function stopPrintPictures(): void {
  started = false;
}
