// The page's wasm is two modules (crates/web/src/below.rs, docs/page-build.md): the first screen's,
// which the first usable control waits for, and the parts below it (the explainer, the simulation's
// explanation, --describe table and timeline, what the panels show), fetched once the page is
// usable. Until they arrive their prerendered copies stand in and an open panel says it is loading.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openLab, useBrowser } from './lib/page.mjs';

/** The path of a request for the second part: trunk's js name and `-below.wasm`. */
const BELOW = /\/offsetlab-web-[0-9a-f]+-below\.wasm$/;

describe('the wasm split in two', () => {
  const env = useBrowser();

  it('fetches the parts below the first screen after the live app is shown, once', async () => {
    const lab = await openLab(env, {
      seed: 5,
      init: () => {
        window.__shownAt = null;
        new MutationObserver((_, observer) => {
          if (document.getElementById('offsetlab-live')?.hidden !== false) return;
          window.__shownAt = performance.now();
          observer.disconnect();
        }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['hidden'] });
      },
    });
    try {
      const { shownAt, parts } = await lab.page.evaluate(() => ({
        shownAt: window.__shownAt,
        parts: performance
          .getEntriesByType('resource')
          .filter((e) => e.name.endsWith('.wasm'))
          .map((e) => ({ path: new URL(e.name).pathname, start: e.startTime })),
      }));
      assert.equal(parts.length, 2, `two wasm parts: ${JSON.stringify(parts)}`);
      const [first, below] = [parts.find((p) => !BELOW.test(p.path)), parts.find((p) => BELOW.test(p.path))];
      assert.ok(first && below, `the first part and the parts below: ${JSON.stringify(parts)}`);
      assert.ok(below.start > shownAt, `the second fetched after the live app was shown: ${below.start} > ${shownAt}`);
      // What it holds works: the explanation, the timeline, a chapter's experiment, a panel.
      await lab.need('#explanation:not([data-prerendered])');
      await lab.need('#simulation > .timeline:not([data-prerendered])');
      await lab.click('#groups button[data-scenario=spare-consumers]');
      await lab.page.waitForFunction(() => document.querySelector('[data-field=scenario]')?.textContent === 'spare-consumers');
      await lab.openPanel('settings');
      await lab.need('[data-open-panel=settings] select, [data-open-panel=settings] input');
      assert.deepEqual(lab.errors, []);
    } finally {
      await lab.close();
    }
  });

  it('shows the copies, and says an open panel is loading, until the second part arrives', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
    let release;
    const held = new Promise((resolve) => (release = resolve));
    try {
      await context.route(BELOW, async (route) => {
        await held;
        await route.continue();
      });
      const page = await context.newPage();
      await page.goto(`${env.server.url}/?seed=6`);
      await page.waitForFunction(() => document.getElementById('offsetlab-prerender') === null && window.offsetlab_view?.() != null);
      // The first screen works without the second part.
      const before = await page.evaluate(() => window.offsetlab_view().metrics.produced);
      await page.click('button[data-action=send-10]');
      await page.waitForFunction((n) => window.offsetlab_view().metrics.produced >= n + 10, before);
      await page.click('button[data-panel=share]');
      assert.equal(await page.locator('[data-field=panel-loading]').textContent(), 'Loading this panel…');
      assert.ok((await page.locator('#explanation[data-prerendered]').count()) === 1, 'the explanation’s copy stands in');
      assert.ok((await page.locator('#fine-print[data-prerendered]').count()) === 1, 'the fine print’s copy stands in');
      release();
      await page.waitForSelector('[data-open-panel=share] button, [data-open-panel=share] a');
      assert.equal(await page.locator('[data-field=panel-loading]').count(), 0);
      await page.waitForFunction(() => document.querySelectorAll('[data-prerendered]').length === 0);
      // The run went on meanwhile: the live explanation follows it.
      assert.ok((await page.evaluate(() => window.offsetlab_view().metrics.produced)) >= before + 10);
    } finally {
      release();
      await context.close();
    }
  });

  it('that cannot be fetched are said after three tries, and the simulation still runs', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      let tries = 0;
      await context.route(BELOW, (route) => {
        tries += 1;
        return route.fulfill({ status: 503, body: 'nope' });
      });
      const page = await context.newPage();
      await page.goto(`${env.server.url}/?seed=7`);
      await page.waitForFunction(() => /could not load/.test(document.querySelector('.status')?.textContent ?? ''), null, { timeout: 15_000 });
      assert.match(await page.locator('.status').textContent(), /The rest of the page .* could not load: its wasm could not be fetched after 3 tries\. The simulation still runs/);
      assert.equal(tries, 3, 'fetched three times');
      assert.equal(await page.locator('#offsetlab-panic').count(), 0, 'no panic banner');
      // The copies stay; the first screen works; an open panel says why it is empty.
      assert.equal(await page.locator('#explanation[data-prerendered]').count(), 1);
      const before = await page.evaluate(() => window.offsetlab_view().metrics.produced);
      await page.click('button[data-action=send-10]');
      await page.waitForFunction((n) => window.offsetlab_view().metrics.produced >= n + 10, before);
      await page.click('button[data-panel=settings]');
      assert.equal(await page.locator('[data-field=panel-loading]').textContent(), 'This panel could not load: reload the page.');
    } finally {
      await context.close();
    }
  });
});
