/**
 * In-page jumps on the share page (contents, risk links, `#slug` links shared by readers): after whatever
 * closes first (the phone's contents list) has re-laid the page out, the target is scrolled to its
 * scroll-margin (landing exactly under the sticky bar) and takes keyboard focus, and the address shows its
 * hash so any item can be linked to. `#revenue` is accepted as well as `#item-revenue`.
 */
import { nextTick, onBeforeUnmount, type Ref, watch } from 'vue';

/** The element a hash names: `#item-x`, `#section-x`, any id, or a bare item slug. */
export function anchorTarget(hash: string): HTMLElement | null {
  const id = decodeURIComponent(hash.replace(/^#/, ''));
  if (!id) return null;
  return (
    document.getElementById(id) ??
    document.getElementById(`item-${id}`) ??
    document.getElementById(`section-${id}`)
  );
}

export async function jumpTo(hash: string, options: { smooth?: boolean; updateUrl?: boolean } = {}) {
  await nextTick();
  const target = anchorTarget(hash);
  if (!target) return false;
  const reduced = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches;
  target.scrollIntoView({ behavior: options.smooth && !reduced ? 'smooth' : 'auto', block: 'start' });
  // Focus follows the jump (the target is focusable with tabindex=-1) without scrolling a second time.
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
  if (options.updateUrl !== false) history.replaceState(history.state, '', `#${target.id}`);
  return true;
}

/**
 * Takes over clicks on in-page links inside `root` and, once it appears and every item is rendered
 * (`ready`), jumps to the hash the page was opened with.
 */
export function useAnchorJumps(
  root: Readonly<Ref<HTMLElement | null | undefined>>,
  ready: Readonly<Ref<boolean>>,
) {
  function onClick(event: MouseEvent) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return;
    const link = (event.target as Element | null)?.closest?.('a[href^="#"]');
    if (!link) return;
    const hash = link.getAttribute('href')!;
    if (!anchorTarget(hash)) return;
    event.preventDefault();
    void jumpTo(hash, { smooth: true });
  }
  watch(
    root,
    (element, previous) => {
      previous?.removeEventListener('click', onClick);
      element?.addEventListener('click', onClick);
    },
    { immediate: true, flush: 'post' },
  );
  let landed = false;
  watch(
    () => !!root.value && ready.value,
    (now) => {
      if (!now || landed) return;
      landed = true;
      if (location.hash) void jumpTo(location.hash, { updateUrl: false });
    },
    { immediate: true, flush: 'post' },
  );
  onBeforeUnmount(() => root.value?.removeEventListener('click', onClick));
}
