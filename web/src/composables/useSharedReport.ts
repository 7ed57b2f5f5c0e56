/** Loads a shared report by its token; tells "not found" (wrong, private or expired link) from other failures. */
import { type MaybeRefOrGetter, ref, shallowRef, toValue, watch } from 'vue';
import { ApiError, fetchSharedReport } from '../api/client.ts';
import type { SharedReport } from '../api/types.ts';

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
      report.value = await fetchSharedReport(toValue(token), current.signal);
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
