/** Loads a shared report by its token; tells "not found" (wrong, private or expired link) from other failures. */
import { type MaybeRefOrGetter, ref, shallowRef, toValue, watch } from 'vue';
import { ApiError, fetchSharedReport } from '../api/client.ts';
import type { SharedReport } from '../api/types.ts';
import { yieldToMain } from '../lib/yieldToMain.ts';

/**
 * The report's request, started by main.ts as soon as the app's entry runs — before the router has loaded
 * the page's chunk and long before the chart code — so the data and the code download in parallel.
 */
let early: { token: string; response: Promise<SharedReport> } | undefined;

export function prefetchSharedReport(path: string): void {
  const match = /^\/shared\/reports\/([^/]+)$/.exec(path);
  if (!match) return;
  const token = decodeURIComponent(match[1]!);
  const response = fetchSharedReport(token);
  response.catch(() => {}); // handled when the page takes it
  early = { token, response };
}

function takeEarly(token: string): Promise<SharedReport> | null {
  const taken = early?.token === token ? early.response : null;
  early = undefined;
  return taken;
}

export type LoadState = 'loading' | 'ready' | 'not-found' | 'error';

export function useSharedReport(token: MaybeRefOrGetter<string>) {
  const report = shallowRef<SharedReport | null>(null);
  const state = ref<LoadState>('loading');
  const error = ref<string | null>(null);
  let controller: AbortController | undefined;

  async function load() {
    controller?.abort();
    const current = new AbortController();
    controller = current;
    state.value = 'loading';
    error.value = null;
    try {
      const loaded = await (takeEarly(toValue(token)) ?? fetchSharedReport(toValue(token), current.signal));
      // When the data came first, this continues in the task that evaluated the page's code: render it in
      // a task of its own.
      await yieldToMain();
      if (current.signal.aborted) return;
      report.value = loaded;
      state.value = 'ready';
    } catch (failure) {
      if (current.signal.aborted) return;
      report.value = null;
      if (failure instanceof ApiError && failure.status === 404) {
        state.value = 'not-found';
      } else {
        state.value = 'error';
        error.value = failure instanceof Error ? failure.message : String(failure);
      }
    }
  }

  watch(() => toValue(token), load, { immediate: true });
  return { report, state, error, reload: load };
}
