/**
 * Whether the page is being printed: between `beforeprint` and `afterprint`, or shown as print media. Listened
 * for once, when this module is first evaluated (before any card registers its own listener), so a component
 * that the print itself mounts (the cards not yet rendered, see useProgressiveRender) knows it must draw now.
 */
let printing = false;
if (typeof window !== 'undefined') {
  window.addEventListener('beforeprint', () => {
    printing = true;
  });
  window.addEventListener('afterprint', () => {
    printing = false;
  });
}

export function isPrinting(): boolean {
  return printing || (typeof matchMedia === 'function' && matchMedia('print').matches);
}
