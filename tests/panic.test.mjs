// A trap stops the published page with a banner that says how to reproduce the run. The release
// build aborts at once on a panic (ARCHITECTURE.md, "The page's toolchain"): the wasm traps with
// `unreachable` and no Rust panic hook runs, so the banner comes from index.html's script through
// window.offsetlab_stopped. The trap here is a real one in the page's own instance: an allocation
// wasm-bindgen cannot make (alignment 3) aborts, exactly as a panic does in this build.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openLab, useBrowser } from './lib/page.mjs';

const SEED = 4242;

describe('a trap in the page', () => {
  const env = useBrowser();

  it('stops the clock and shows the seed, the tick and a link to start again', { timeout: 60_000 }, async () => {
    const lab = await openLab(env, {
      seed: SEED,
      // trunk's loader hands the instance's exports to this event; the page never exposes them.
      init: () => addEventListener('TrunkApplicationStarted', (event) => { window.__wasm = event.detail.wasm; }),
    });
    try {
      await lab.step(3);
      const { tick } = await lab.view();
      assert.equal(tick, 3);
      assert.equal(await lab.page.locator('#offsetlab-panic').count(), 0, 'no banner before the trap');
      // From a timer, as the page's own callbacks run: the error reaches the window uncaught.
      await lab.page.evaluate(() => setTimeout(() => window.__wasm.__wbindgen_malloc(8, 3)));
      const banner = lab.page.locator('#offsetlab-panic[role=alert]');
      await banner.waitFor();
      const text = await banner.innerText();
      assert.match(text, new RegExp(`after tick ${tick} with seed ${SEED}`), text);
      assert.match(text, /RuntimeError/, text);
      assert.match(text, /cargo xtask serve --dev/, text);
      assert.equal(await banner.locator('a').getAttribute('href'), `?seed=${SEED}`);
      assert.equal(await lab.page.getAttribute('body', 'data-offsetlab-stopped'), '');
      // Stopped: the clock no longer calls into the instance, whatever Play does.
      await lab.page.locator('button[data-action=play]').click();
      await lab.page.waitForTimeout(500);
      assert.equal((await lab.view()).tick, tick, 'no tick after the trap');
      assert.equal(await lab.page.locator('#offsetlab-panic').count(), 1, 'one banner');
      assert.ok(lab.errors.some((e) => /RuntimeError/.test(e)), `the trap is reported: ${lab.errors}`);
    } finally {
      await lab.context.close();
    }
  });
});
