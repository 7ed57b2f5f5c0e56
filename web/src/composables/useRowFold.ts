/**
 * Folding of long tables on the share page: past FOLD_AFTER rows a table shows its first SHOWN_FOLDED and a button
 * unfolds the rest (print shows every row; the `.row-collapsed` and `.fold` styles are in base.css).
 */
import { computed, type MaybeRefOrGetter, ref, toValue } from 'vue';

const FOLD_AFTER = 12;
const SHOWN_FOLDED = 10;

export function useRowFold(rowCount: MaybeRefOrGetter<number>) {
  const expanded = ref(false);
  const foldable = computed(() => toValue(rowCount) > FOLD_AFTER);
  const isFolded = (index: number) => foldable.value && !expanded.value && index >= SHOWN_FOLDED;
  /** Rows hidden while folded. */
  const hiddenCount = computed(() => toValue(rowCount) - SHOWN_FOLDED);
  const toggle = () => {
    expanded.value = !expanded.value;
  };
  return { expanded, foldable, isFolded, hiddenCount, toggle };
}
