/**
 * The browser tests' Chromium: Debian's (never a downloaded browser), headless, with the flags that keep it off
 * the network it cannot reach here. Screenshots go to test/artifacts/ (git-ignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

/** Fails with the install command when Chromium is missing; creates the artifacts folder. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: apt-get install -y chromium (.ci/run does).`);
  }
  mkdirSync(ARTIFACTS, { recursive: true });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}

/** The two readers the browser tests play: a desktop screen and a 375 × 812 phone. */
export const DESKTOP: BrowserContextOptions = {
  viewport: { width: 1366, height: 900 },
  deviceScaleFactor: 1,
};
export const PHONE: BrowserContextOptions = {
  viewport: { width: 375, height: 812 },
  deviceScaleFactor: 1,
  isMobile: true,
  hasTouch: true,
};

/**
 * axe-core on a page, for its violations (chain include/withTags as on any AxeBuilder). axe.run in the page
 * itself (legacy mode, which still tests same-origin frames) with every node listed for violations only: the
 * default runPartial in the page and finishRun in a second, blank page serialises every node of every rule,
 * passed ones included, across pages, which took 30–45 s a run on a whole share page (5–10 s this way). The
 * violations found are the same.
 */
export function axeViolations(page: Page): AxeBuilder {
  return new AxeBuilder({ page }).setLegacyMode(true).options({ resultTypes: ['violations'] });
}

/**
 * Resolves once the page has rendered twice: what a scroll changed (IntersectionObserver, scroll events) has
 * been seen by the page. A fixed wait is not enough on a loaded machine, where no frame may fall within it.
 */
export function nextFrames(page: Page): Promise<void> {
  return page.evaluate(
    () => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))),
  );
}
