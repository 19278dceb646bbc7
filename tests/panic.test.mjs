// A panic or a trap stops the published page with a banner that says how to reproduce the run.
// The release build runs the app's panic hook before the wasm traps (panic = "abort";
// docs/page-build.md, "The page's toolchain"), so a panic's banner quotes its message. A trap that is
// not a panic runs no hook: its banner comes from index.html's script through
// window.offsetlab_stopped. Both are real, in the page's own instance: the panic is Yew's, refused
// the clone of an element it keeps to copy from; the trap is an allocation wasm-bindgen cannot
// make (alignment 3), which aborts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openLab, useBrowser } from './lib/page.mjs';

const SEED = 4242;

/** The clock is stopped: Play moves nothing, and there is one banner. */
async function assertStopped(lab, tick) {
  await lab.page.locator('button[data-action=play]').click();
  await lab.page.waitForTimeout(500);
  assert.equal((await lab.view()).tick, tick, 'no tick after the trap');
  assert.equal(await lab.page.locator('#offsetlab-panic').count(), 1, 'one banner');
}

describe('a panic or a trap in the page', () => {
  const env = useBrowser();

  it("shows the panic's message, the seed, the tick and a link to start again", { timeout: 60_000 }, async () => {
    const lab = await openLab(env, { seed: SEED });
    try {
      // At tick 0 however slow the machine: on a loaded one the clock may tick before the pause.
      await lab.pauseAtStart();
      await lab.step(3);
      const { tick } = await lab.view();
      assert.equal(tick, 3);
      assert.equal(await lab.page.locator('#offsetlab-panic').count(), 0, 'no banner before the panic');
      // Yew makes an element by cloning one of the tag that it keeps aside, never on the page, and
      // panics when the clone fails (`couldn't clone cached element`). The first such clone is
      // refused, and cloneNode is itself again for everything after it (the banner included).
      await lab.page.evaluate(() => {
        const clone = Node.prototype.cloneNode;
        Node.prototype.cloneNode = function (deep) {
          if (this.isConnected) return clone.call(this, deep);
          Node.prototype.cloneNode = clone;
          throw new Error('cloneNode refused by panic.test.mjs');
        };
      });
      // Ten more records: new cells on the tapes, new elements.
      await lab.page.locator('button[data-action=send-10]').click();
      const banner = lab.page.locator('#offsetlab-panic[role=alert]');
      await banner.waitFor();
      const text = await banner.innerText();
      assert.match(text, new RegExp(`after tick ${tick} with seed ${SEED}`), text);
      assert.match(text, /panicked at /, text);
      assert.match(text, /cloneNode refused by panic\.test\.mjs/, text);
      assert.doesNotMatch(text, /trapped without a panic/, text);
      assert.equal(await banner.locator('a').getAttribute('href'), `?seed=${SEED}`);
      assert.equal(await lab.page.getAttribute('body', 'data-offsetlab-stopped'), '');
      await assertStopped(lab, tick);
      assert.ok(
        lab.errors.some((e) => /panicked at /.test(e)),
        `the panic is reported with its message: ${lab.errors}`,
      );
    } finally {
      await lab.context.close();
    }
  });

  it('stops the clock on a trap that is not a panic and says it has no message', { timeout: 60_000 }, async () => {
    const lab = await openLab(env, {
      seed: SEED,
      // trunk's loader hands the instance's exports to this event; the page never exposes them.
      init: () => addEventListener('TrunkApplicationStarted', (event) => { window.__wasm = event.detail.wasm; }),
    });
    try {
      // At tick 0 however slow the machine: on a loaded one the clock may tick before the pause.
      await lab.pauseAtStart();
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
      assert.match(text, /trapped without a panic/, text);
      assert.doesNotMatch(text, /panicked at /, text);
      assert.equal(await banner.locator('a').getAttribute('href'), `?seed=${SEED}`);
      assert.equal(await lab.page.getAttribute('body', 'data-offsetlab-stopped'), '');
      await assertStopped(lab, tick);
      assert.ok(lab.errors.some((e) => /RuntimeError/.test(e)), `the trap is reported: ${lab.errors}`);
    } finally {
      await lab.context.close();
    }
  });
});
