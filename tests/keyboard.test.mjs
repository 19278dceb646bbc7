// Keyboard only: Tab from the top of the page to the controls and operate them with
// Enter and Space; focus is visible on each.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';

/** Tab presses allowed to reach one control. */
const TABS_MAX = 400;

/** Presses Tab until the focused element matches `selector`; returns how many presses. */
async function tabTo(lab, selector) {
  await lab.need(selector);
  for (let presses = 1; presses <= TABS_MAX; presses++) {
    await lab.page.keyboard.press('Tab');
    if (await lab.page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return presses;
  }
  assert.fail(`Tab did not reach ${selector} within ${TABS_MAX} presses`);
}

/** The focused element shows a focus ring: :focus-visible and a non-empty outline (or box-shadow). */
async function assertVisibleFocus(lab, what) {
  const focus = await lab.page.evaluate(() => {
    const element = document.activeElement;
    const style = getComputedStyle(element);
    return {
      focusVisible: element.matches(':focus-visible'),
      outlineStyle: style.outlineStyle,
      outlineWidth: parseFloat(style.outlineWidth) || 0,
      boxShadow: style.boxShadow,
    };
  });
  assert.ok(focus.focusVisible, `${what} matches :focus-visible after keyboard focus`);
  const outline = focus.outlineStyle !== 'none' && focus.outlineWidth > 0;
  assert.ok(outline || focus.boxShadow !== 'none', `${what} has a visible focus ring: ${JSON.stringify(focus)}`);
}

describe('keyboard only', () => {
  const env = useBrowser();

  it('pauses, sends ten records and crashes c1 without the mouse', { timeout: 120_000 }, async (t) => {
    await withLab(env, { seed: 1, pause: false }, async (lab) => {
      await lab.page.evaluate(() => {
        document.activeElement?.blur();
        window.scrollTo(0, 0);
      });

      await tabTo(lab, 'button[data-action=play]');
      await assertVisibleFocus(lab, 'the Play/Pause button');
      if ((await lab.text('button[data-action=play]')) === 'Pause') {
        await lab.page.keyboard.press('Enter');
      }
      await lab.waitForText('button[data-action=play]', 'Play');
      await lab.waitForText('[data-field=clock]', 'paused');

      const toSend = await tabTo(lab, 'button[data-action=send-10]');
      await assertVisibleFocus(lab, 'Send 10');
      const before = await lab.view();
      await lab.page.keyboard.press('Enter');
      await lab.page.waitForFunction((n) => window.offsetlab_view()?.metrics.produced === n, before.metrics.produced + 10);
      await lab.settle();
      const afterSend = await lab.view();
      assert.equal(afterSend.metrics.produced, before.metrics.produced + 10);
      assert.equal(afterSend.tick, before.tick, 'the clock stayed paused');

      const toCrash = await tabTo(lab, '[data-consumer=c1] button[data-action=crash]');
      t.diagnostic(`Tab presses: ${toSend} to Send 10, then ${toCrash} to c1's Crash`);
      await assertVisibleFocus(lab, "c1's Crash button");
      assert.equal(await lab.consumerState('c1'), 'running');
      await lab.page.keyboard.press('Space');
      await lab.page.waitForFunction(
        () => window.offsetlab_view()?.consumers.find((c) => c.id === 'c1')?.state === 'crashed',
      );
      await lab.settle();
      assert.equal(await lab.consumerState('c1'), 'crashed');
    });
  });

  it('every control has a label', { timeout: 60_000 }, async () => {
    await withLab(env, { seed: 1, pause: false }, async (lab) => {
      const unlabelled = await lab.page.evaluate(() =>
        [...document.querySelectorAll('button, input, select, textarea')]
          .filter((e) => e.type !== 'hidden')
          .filter((e) => {
            const text = (e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || e.title || '').trim();
            const own = e.tagName === 'BUTTON' ? e.textContent.trim() : '';
            const labels = e.labels ? [...e.labels].map((l) => l.textContent.trim()).join('') : '';
            return !text && !own && !labels;
          })
          .map((e) => e.outerHTML.slice(0, 120)),
      );
      assert.deepEqual(unlabelled, [], 'controls without a label');
    });
  });
});
