// The page stays small however much is sent: the tapes are virtualised and the sink strip is
// bounded, so 100,000 records leave the DOM under a fixed size.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';

const RECORDS = 100_000;
const CLICKS = RECORDS / 10;
const ELEMENTS_MAX = 3_000;
/** TAPE_CELLS in crates/web/src/state.rs. */
const TAPE_CELLS = 40;

describe('DOM size', () => {
  const env = useBrowser();

  it(`stays under ${ELEMENTS_MAX} elements after ${RECORDS} records`, { timeout: 300_000 }, async (t) => {
    await withLab(env, { seed: 1 }, async (lab) => {
      await lab.need('button[data-action=send-10]');
      const start = (await lab.view()).metrics.produced;
      // Ten thousand clicks on Send 10, from inside the page (one round trip, not ten thousand).
      await lab.page.evaluate((clicks) => {
        const send = document.querySelector('button[data-action=send-10]');
        for (let i = 0; i < clicks; i++) send.click();
      }, CLICKS);
      await lab.page.waitForFunction(
        (n) => window.offsetlab_view()?.metrics.produced >= n,
        start + RECORDS,
        { timeout: 240_000, polling: 500 },
      );
      await lab.step(3);

      const view = await lab.view();
      assert.equal(view.metrics.produced, start + RECORDS);
      const elements = await lab.page.evaluate(() => document.getElementsByTagName('*').length);
      assert.ok(elements < ELEMENTS_MAX, `${elements} elements in the page`);
      t.diagnostic(`${elements} elements after ${view.metrics.produced} records`);

      // Each tape draws a bounded window of cells.
      const cells = await lab.page.evaluate(() =>
        [...document.querySelectorAll('[data-partition]')]
          .filter((tape) => tape.querySelector('[data-offset]'))
          .map((tape) => tape.querySelectorAll('button[data-offset]').length),
      );
      const nonEmpty = view.partitions.filter((p) => p.log_end > p.log_start).length;
      assert.ok(nonEmpty > 0, 'records on some partition');
      assert.equal(cells.length, nonEmpty, 'one tape with cells per partition that has records');
      for (const n of cells) assert.ok(n > 0 && n <= TAPE_CELLS, `${n} cells on a tape`);

      // The counters still read the view, as plain numbers.
      await lab.counters();
    });
  });
});
