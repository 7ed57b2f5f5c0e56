/**
 * The browser tests' Chromium: Debian's (never a downloaded browser), headless, with the flags that keep it off
 * the network it cannot reach here. Screenshots go to test/artifacts/ (git-ignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContextOptions, chromium } from 'playwright-core';

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
