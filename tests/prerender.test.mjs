// The page's first render is in index.html (prerendered at build time by the page's own
// components): readable without JavaScript, hidden in an embed, inert until the wasm runs, and
// replaced by the live app, which is then the only app on the page and works.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PRERENDER_ID, openLab, useBrowser } from './lib/page.mjs';

/** Headings and controls of the page, as a document shows them: [selector, texts]. */
async function outline(page) {
  return page.evaluate(() => {
    const texts = (selector) =>
      [...document.querySelectorAll(selector)].map((e) => e.textContent.replace(/\s+/g, ' ').trim());
    return {
      headings: texts('main h1, main h2, main h3'),
      controls: [...document.querySelectorAll('main button[data-action]')].map((b) => b.dataset.action),
      mains: document.querySelectorAll('main').length,
    };
  });
}

describe('the prerendered page', () => {
  const env = useBrowser();

  it('is in index.html: the title, the explainer and the simulation\'s controls', async () => {
    // As a parser reads the served HTML (the release build minifies it: attributes may be unquoted).
    const context = await env.browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`${env.server.url}/`);
      const found = await page.evaluate((id) => {
        const root = document.getElementById(id);
        return {
          root: root !== null,
          marker: document.getElementById(`${id}-here`) !== null,
          main: root?.querySelector('main') !== null,
          title: root?.querySelector('h1')?.textContent ?? '',
          actions: [...(root?.querySelectorAll('button[data-action]') ?? [])].map((b) => b.dataset.action),
          text: (root?.textContent ?? '').replace(/\s+/g, ' ').length,
        };
      }, PRERENDER_ID);
      assert.ok(found.root, 'the prerender root');
      assert.ok(!found.marker, 'the marker was replaced');
      assert.ok(found.main, 'a <main>');
      assert.match(found.title, /offsetlab/i, 'the page title, offsetlab');
      for (const action of ['play', 'step', 'send-10']) {
        assert.ok(found.actions.includes(action), `the ${action} button`);
      }
      assert.ok(found.text > 5_000, `the explainer's text (${found.text} characters)`);
    } finally {
      await context.close();
    }
  });

  it('reads without JavaScript, with the headings and controls the live app first shows', async () => {
    const live = await openLab(env, { pause: false });
    const expected = await outline(live.page);
    await live.close();

    const context = await env.browser.newContext({ javaScriptEnabled: false, viewport: { width: 1440, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${env.server.url}/`);
      assert.ok(await page.locator(`#${PRERENDER_ID}`).isVisible(), 'the prerendered copy shows');
      assert.ok(await page.locator('main h1').first().isVisible(), 'the title shows');
      assert.ok(await page.locator('button[data-action=send-10]').first().isVisible(), 'Send 10 shows');
      const text = await page.locator('main').first().innerText();
      assert.ok(text.length > 5_000, `the page's text is rendered (${text.length} characters)`);
      const seen = await outline(page);
      assert.deepEqual(seen.headings, expected.headings, 'the same headings as the live app');
      assert.deepEqual(seen.controls, expected.controls, 'the same controls as the live app');
      assert.equal(seen.mains, 1);
    } finally {
      await context.close();
    }
  });

  it('is inert until the wasm runs, and hidden in an embed', async () => {
    const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      // No wasm: what a visitor sees while it downloads.
      await context.route(/\.wasm$/, (route) => route.abort());
      const page = await context.newPage();
      await page.goto(`${env.server.url}/?seed=3`);
      const copy = page.locator(`#${PRERENDER_ID}`);
      assert.ok(await copy.isVisible(), 'the copy shows');
      assert.equal(await copy.evaluate((e) => e.inert), true, 'the copy is inert');
      await page.goto(`${env.server.url}/?embed=1&seed=3`);
      assert.equal(await page.locator(`#${PRERENDER_ID}`).isVisible(), false, 'an embed does not show the whole page');
    } finally {
      await context.close();
    }
  });

  it('gives way to one live app that works', async () => {
    const lab = await openLab(env, { seed: 5 });
    try {
      const seen = await outline(lab.page);
      assert.equal(seen.mains, 1, 'one <main>');
      assert.equal(await lab.page.locator(`#${PRERENDER_ID}`).count(), 0, 'no prerendered copy');
      assert.equal(await lab.page.locator('button[data-action=send-10]').count(), 1, 'one Send 10 button');
      assert.equal(await lab.page.locator('h1').count(), 1, 'one title');
      const before = await lab.counters();
      await lab.send10();
      await lab.step(4);
      const after = await lab.counters();
      assert.ok(after.delivered > before.delivered, `delivered ${before.delivered} → ${after.delivered}`);
    } finally {
      await lab.close();
    }
  });

  it('leaves the parts below the first screen to their copies in the first live render', async () => {
    // The first usable control waits for the first live render: the explanation, the
    // `--describe` table and the timeline (below the first screen at 1440 × 900) show their
    // prerendered copy in it, inert, and go live once the browser is idle.
    const parts = ['#explanation', '#describe', '#simulation > .timeline', '#log-and-keys'];
    // `init` runs in the page with no arguments: the selectors are written into its text.
    const lab = await openLab(env, {
      seed: 4,
      init: new Function(
        `const parts = ${JSON.stringify(parts)};
         window.__atSwap = null;
         new MutationObserver((_, observer) => {
           if (document.getElementById('offsetlab-live')?.hidden !== false) return;
           window.__atSwap = parts.map((s) => document.querySelector(s)?.hasAttribute('data-prerendered') ?? null);
           observer.disconnect();
         }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['hidden'] });`,
      ),
    });
    try {
      const atSwap = await lab.page.evaluate(() => window.__atSwap);
      assert.deepEqual(atSwap, parts.map(() => true), `standing in when the live app is shown: ${parts}`);
      // openLab waited for every part to go live: they work.
      for (const part of parts) {
        assert.equal(await lab.page.locator(`${part}[data-prerendered]`).count(), 0, `${part} is live`);
      }
      const describe = () => lab.text('#describe .terminal');
      const before = await describe();
      await lab.send10();
      await lab.step(3);
      const after = await describe();
      assert.match(after, /CURRENT-OFFSET/);
      assert.notEqual(after, before, 'the live --describe table follows the run');
      const timeline = await lab.page.locator('#simulation > .timeline button[data-action]').count();
      assert.ok(timeline > 0, 'the live timeline has its buttons');
    } finally {
      await lab.close();
    }
  });

  it('gives way to the embedded simulation alone with ?embed=1', async () => {
    const lab = await openLab(env, { query: '?embed=1&seed=2' });
    try {
      const seen = await outline(lab.page);
      assert.equal(seen.mains, 1, 'one <main>');
      assert.equal(await lab.page.locator('main[data-embed=true]').count(), 1, 'the embedded app');
      assert.equal(await lab.page.locator('h1').count(), 0, 'no page title in an embed');
    } finally {
      await lab.close();
    }
  });
});
