/**
 * One ResizeObserver for every table on the page: its callback measures all of them first and only then
 * changes classes, so a report's 80 tables are measured in one layout instead of forcing one layout each
 * (which, measured on mount, blocked a slow phone for over a second).
 */
type Apply = (state: { overflowing: boolean; atEnd: boolean }) => void;

export function measureScroll(element: HTMLElement) {
  return {
    overflowing: element.scrollWidth > element.clientWidth + 1,
    atEnd: element.scrollLeft + element.clientWidth >= element.scrollWidth - 1,
  };
}
const watched = new Map<Element, Apply>();
let sizes: ResizeObserver | undefined;

export function watchScrollSize(element: HTMLElement, apply: Apply) {
  sizes ??= new ResizeObserver((entries) => {
    const states = entries.map(
      (entry) => [entry.target, measureScroll(entry.target as HTMLElement)] as const,
    );
    for (const [element, state] of states) watched.get(element)?.(state);
  });
  watched.set(element, apply);
  sizes.observe(element);
}

export function unwatchScrollSize(element: HTMLElement) {
  watched.delete(element);
  sizes?.unobserve(element);
}
