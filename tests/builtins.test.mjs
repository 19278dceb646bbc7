// The built-in scenarios the wasm does not carry (all but the starting point) come in one file
// the build writes beside the page (crates/web/src/builtins.rs): fetched once the page is usable,
// and before the first render for a link to one of them (index.html's first script starts that
// fetch). The parts that list them wait for it; a failed fetch is said, and loses nothing else.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { throttle } from './bench/throttle.mjs';
import { openLab, useBrowser } from './lib/page.mjs';

/** Records, in the page, when the live app was shown (performance.now()). */
const SHOWN_AT = `window.__shownAt = null;
  new MutationObserver((_, observer) => {
    if (document.getElementById('offsetlab-live')?.hidden !== false) return;
    window.__shownAt = performance.now();
    observer.disconnect();
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['hidden'] });`;

/** The resource timing of the built-ins' file and of the wasm: [file, wasm]. */
async function timings(page) {
  return page.evaluate(() => {
    const entries = performance.getEntriesByType('resource');
    const find = (test) => entries.find((e) => test(new URL(e.name).pathname));
    const file = find((path) => /\/builtins-[0-9a-f]{16}\.json$/.test(path));
    const wasm = find((path) => path.endsWith('_bg.wasm')); // the first part, not the one below
    const times = (e) => e && { start: e.startTime, end: e.responseEnd };
    return [times(file), times(wasm)];
  });
}

describe('the built-in scenarios', () => {
  const env = useBrowser();

  it('arrive after the page is usable, and then its chapters and commit-cost table list them', async () => {
    const lab = await openLab(env, { seed: 2, init: new Function(SHOWN_AT) });
    try {
      const shownAt = await lab.page.evaluate(() => window.__shownAt);
      const [file] = await timings(lab.page);
      assert.ok(file, 'the page fetched the file');
      assert.ok(file.start > shownAt, `fetched after the live app was shown: ${file.start} > ${shownAt}`);
      // A chapter's experiment (openLab waited for every chapter to go live).
      await lab.click('#groups button[data-scenario=spare-consumers]');
      await lab.page.waitForFunction(() => document.querySelector('[data-field=scenario]')?.textContent === 'spare-consumers');
      await lab.openPanel('operations');
      await lab.need('[data-field=commit-cost] [data-scenario-run=commit-each-batch]');
    } finally {
      await lab.close();
    }
  });

  it('a link to one is read once the file is in, which the page fetched at once', async () => {
    // On the load bench's slow profile, where the wasm takes seconds: the file's fetch begins
    // with the page's own requests (index.html's first script), not once the wasm runs.
    const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const page = await context.newPage();
      await throttle(context, page);
      await page.goto(`${env.server.url}/?s=crash-commit-after&seed=3`);
      await page.waitForFunction(() => document.getElementById('offsetlab-prerender') === null && window.offsetlab_view?.() != null, null, { timeout: 60_000 });
      assert.equal(await page.locator('[data-field=scenario]').textContent(), 'crash-commit-after');
      assert.equal(await page.evaluate(() => window.offsetlab_view().seed), 3);
      const [file, wasm] = await timings(page);
      assert.ok(file.start < wasm.end - 1000, `fetched with the page's own requests: ${file.start} < ${wasm.end}`);
      const fetches = await page.evaluate(
        () => performance.getEntriesByType('resource').filter((e) => /\/builtins-/.test(e.name)).length,
      );
      assert.equal(fetches, 1, 'fetched once: the wasm took over the early fetch');
    } finally {
      await context.close();
    }
  });

  it('that fail to load are said, and the simulation still runs', async () => {
    for (const query of ['?seed=4', '?s=crash-commit-after&seed=4']) {
      const lab = await openLab(env, {
        query,
        init: () => {
          const fetch = window.fetch;
          window.fetch = (url, ...rest) =>
            /builtins-/.test(String(url)) ? Promise.resolve(new Response('nope', { status: 503 })) : fetch(url, ...rest);
        },
      });
      try {
        await lab.page.waitForFunction(() => /could not|not loaded/.test(document.querySelector('.status')?.textContent ?? ''));
        const status = await lab.text('.status');
        assert.match(status, query.includes('s=') ? /has not loaded yet/ : /experiments could not load.*HTTP 503/);
        assert.equal(await lab.text('[data-field=scenario]'), 'default');
        // The chapters are live, without the experiments that did not load; the simulation runs.
        assert.equal(await lab.page.locator('#groups button[data-scenario]').count(), 0);
        await lab.openPanel('operations');
        assert.match(await lab.text('[data-field=commit-cost-waiting]'), /did not load/);
        const before = (await lab.view()).metrics.produced;
        await lab.send10();
        assert.equal((await lab.view()).metrics.produced, before + 10);
      } finally {
        // The failed fetch is reported on the console, as it should be.
        await lab.context.close();
      }
    }
  });
});
