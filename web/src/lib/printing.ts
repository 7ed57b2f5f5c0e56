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

/**
 * A chart's size on paper, its print picture's (charts/printPicture.ts): print.css's chart column beside the
 * table (300 px, 79 mm), legend and plot.
 */
export const PRINT_CHART = { width: 300, height: 165 } as const;

/**
 * Calls `listener` when the page switches to or from print media (also when a tool prints without the
 * `beforeprint` event; a print may send neither, see lib/printPictures.ts); returns the function that stops
 * listening.
 */
export function onPrintMedia(listener: (printing: boolean) => void): () => void {
  if (typeof matchMedia !== 'function') return () => {};
  const query = matchMedia('print');
  const onChange = (event: MediaQueryListEvent) => listener(event.matches);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}
