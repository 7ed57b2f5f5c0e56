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
 * A chart's size on paper: the width of an A4 page's text column (210 mm less print.css's 11 mm margins, at
 * 96 px per inch) and a height that keeps a five-year chart's bars and legend readable.
 */
export const PRINT_CHART = { width: Math.floor(((210 - 22) / 25.4) * 96), height: 250 } as const;

/**
 * Calls `listener` when the page switches to or from print media (also when a tool prints without the
 * `beforeprint` event); returns the function that stops listening.
 */
export function onPrintMedia(listener: (printing: boolean) => void): () => void {
  if (typeof matchMedia !== 'function') return () => {};
  const query = matchMedia('print');
  const onChange = (event: MediaQueryListEvent) => listener(event.matches);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}
