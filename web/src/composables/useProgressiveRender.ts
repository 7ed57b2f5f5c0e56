/**
 * Renders a long list a few entries per task instead of all at once: the first `first` entries at once, then
 * `step` more after each yield to the browser, so no single main-thread task builds the whole report (on a
 * phone with a slow CPU, 43 cards of multi-year tables in one render blocked the page for seconds).
 * `complete` turns true when every entry is rendered; printing asks for the rest at once.
 */
import { computed, type MaybeRefOrGetter, onBeforeUnmount, onMounted, ref, toValue, watch } from 'vue';
import { onPrintMedia } from '../lib/printing.ts';

export function useProgressiveRender(total: MaybeRefOrGetter<number>, first = 0, step = 2) {
  const shown = ref(first);
  const complete = computed(() => shown.value >= toValue(total));
  let timer: ReturnType<typeof setTimeout> | undefined;

  function next() {
    timer = undefined;
    if (complete.value) return;
    shown.value += step;
    schedule();
  }
  function schedule() {
    if (timer === undefined && !complete.value) timer = setTimeout(next, 0);
  }
  const all = () => {
    shown.value = toValue(total);
  };

  let stopPrintWatch: (() => void) | undefined;
  watch(() => toValue(total), schedule);
  onMounted(() => {
    window.addEventListener('beforeprint', all);
    stopPrintWatch = onPrintMedia((printing) => printing && all());
    schedule();
  });
  onBeforeUnmount(() => {
    if (timer !== undefined) clearTimeout(timer);
    window.removeEventListener('beforeprint', all);
    stopPrintWatch?.();
  });
  return { shown, complete };
}
