import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { TestServer } from './test-server.js';

/** The playground's panels, each behind a tab. */
export const PANELS = ['speech', 'voices', 'realtime', 'avatar'] as const;

/** Opens the playground of `server` in `page` and signs in with its API key. */
export async function signInToPlayground(page: Page, server: TestServer): Promise<void> {
  await page.goto(`${server.baseUrl}/`);
  expect(new URL(page.url()).pathname).to.equal('/playground');
  await page.waitForSelector('body[data-ready="true"]');
  await page.fill('#api-key', server.apiKey);
  await page.click('#signin button[type="submit"]');
  await page.waitForSelector('#signed-in:not([hidden])');
}

/** Shows one panel. */
export async function openTab(page: Page, panel: (typeof PANELS)[number]): Promise<void> {
  await page.click(`#tab-${panel}`);
  await page.waitForSelector(`#panel-${panel}:not([hidden])`);
}
