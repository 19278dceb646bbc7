// The engine's largest configuration in the page: 256 partitions, 64 consumers, retention at the
// 2,000,000-record cap. The tapes, the consumer list and the lag chart draw only what is in view,
// so the page stays under a fixed number of elements while it plays at the highest speed, the
// tapes in view still show their records, and scrolling the tapes reaches the last partition.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';
import { CONSUMERS_MAX, PARTITIONS_MAX, importScenario, maxScenario, playFastest } from './lib/scale.mjs';

const ELEMENTS_MAX = 3_000;
/** TAPE_CELLS in crates/web/src/state.rs. */
const TAPE_CELLS = 40;
/** How long the page plays at the highest speed, in ms. */
const PLAY_MS = 4_000;
/** Waits in this file, in ms: the page has a lot to do at this size on a busy machine. */
const SLOW = { timeout: 60_000 };


const elements = (lab) => lab.page.evaluate(() => document.getElementsByTagName('*').length);

/** Per tape on the page: its partition and how many cells it draws. */
const drawnTapes = (lab) =>
  lab.page.$$eval('.topic .tape[data-partition]', (tapes) =>
    tapes.map((tape) => ({
      partition: Number(tape.dataset.partition),
      cells: tape.querySelectorAll('button[data-offset]').length,
    })),
  );

/** Imports the largest configuration and waits until the page shows it (paused). */
const openMax = (lab) => importScenario(lab, maxScenario(100_000));

describe('the largest configuration', () => {
  const env = useBrowser();

  it(`plays at the highest speed under ${ELEMENTS_MAX} elements and scrolls to P255`, { timeout: 300_000 }, async (t) => {
    await withLab(env, { seed: 1 }, async (lab) => {
      const { page } = lab;
      await openMax(lab);
      const view = await lab.view();
      assert.equal(view.consumers.length, CONSUMERS_MAX);

      // Send some by hand too, then play at the highest speed for a few seconds.
      await page.locator('button[data-action=send-10]').click(SLOW);
      await playFastest(lab);
      const start = (await lab.view()).tick;
      await page.waitForTimeout(PLAY_MS);
      const playing = await elements(lab);
      const moved = (await lab.view()).tick - start;
      t.diagnostic(`${playing} elements while playing; ${moved} ticks in ${PLAY_MS} ms`);
      assert.ok(moved > 0, 'the clock moved');
      assert.ok(playing < ELEMENTS_MAX, `${playing} elements while playing`);
      await page.locator('button[data-action=play]').click(SLOW);
      await page.waitForFunction(() => document.querySelector('[data-field=clock]')?.textContent.includes('paused'), null, SLOW);
      await lab.settle();

      assert.ok((await lab.view()).metrics.produced > 1_000, 'records were sent');
      const paused = await elements(lab);
      assert.ok(paused < ELEMENTS_MAX, `${paused} elements paused`);

      // The tapes in view still show records, a bounded window each; only a few tapes are drawn.
      const partitions = (await lab.view()).partitions;
      const hasRecords = (p) => partitions[p].log_end > partitions[p].log_start;
      const tapes = await drawnTapes(lab);
      assert.ok(tapes.length > 0 && tapes.length < 20, `${tapes.length} tapes drawn`);
      assert.equal(tapes[0].partition, 0, 'the box starts at P0');
      assert.ok(tapes.some((tape) => tape.cells > 0), 'the tapes in view show records');
      for (const tape of tapes) {
        const bound = hasRecords(tape.partition) ? tape.cells > 0 && tape.cells <= TAPE_CELLS : tape.cells === 0;
        assert.ok(bound, `P${tape.partition} draws ${tape.cells} cells`);
      }
      // Sideways too: a tape draws the cells its box shows and one more either side (with the
      // tab stop), not its whole window; scrolled to its end, it draws the last cells.
      const sideways = await page.$eval('.topic .tape[data-partition="0"] .tape-scroll', (box) => {
        const cells = box.querySelector('[data-columns]');
        const columnPx = cells.clientWidth / Number(cells.dataset.columns);
        return { columns: Number(cells.dataset.columns), inView: Math.ceil(box.clientWidth / columnPx) };
      });
      const first = tapes.find((tape) => tape.partition === 0);
      t.diagnostic(`P0 draws ${first.cells} of its ${sideways.columns} cells, ${sideways.inView} in view`);
      assert.ok(first.cells <= Math.min(sideways.columns, sideways.inView + 4), `P0 draws ${first.cells} cells, ${sideways.inView} in view`);
      const [firstOffset, lastOffset, missing] = await page.$eval('.topic .tape[data-partition="0"] .tape-scroll', async (box) => {
        const offsets = () => [...box.querySelectorAll('button[data-offset]')].map((cell) => Number(cell.dataset.offset));
        const scrollTo = async (x) => {
          box.scrollLeft = x;
          await new Promise((done) => setTimeout(done, 300));
        };
        await scrollTo(0);
        const first = Math.min(...offsets());
        // Half way: every cell whose place shows in the box is drawn.
        await scrollTo(box.scrollWidth / 2 - box.clientWidth / 2);
        const cells = box.querySelector('[data-columns]');
        const columns = Number(cells.dataset.columns);
        const columnPx = cells.clientWidth / columns;
        const boxRect = box.getBoundingClientRect();
        const cellsLeft = cells.getBoundingClientRect().left;
        const missing = [];
        for (let i = 0; i < columns; i++) {
          const left = cellsLeft + i * columnPx;
          const shows = left + columnPx > boxRect.left + 1 && left < boxRect.left + box.clientWidth - 1;
          if (shows && !offsets().includes(first + i)) missing.push(first + i);
        }
        await scrollTo(box.scrollWidth);
        return [first, Math.max(...offsets()), missing];
      });
      assert.deepEqual(missing, [], 'half way along P0, the cells in view are drawn');
      assert.equal(lastOffset - firstOffset, sideways.columns - 1, 'scrolled to its end, P0 draws the last cell of its window');
      // So do the consumers: one line each, only those in view.
      const consumers = await page.$$eval('.group [data-consumer]', (rows) => rows.length);
      assert.ok(consumers > 0 && consumers < CONSUMERS_MAX, `${consumers} consumers drawn`);

      // Scrolling the box to its end draws the last partition's tape, with its records.
      const box = page.locator('.topic [data-field=tapes]');
      await box.evaluate((element) => {
        element.scrollTop = element.scrollHeight;
      });
      await page.waitForSelector(`.topic .tape[data-partition="${PARTITIONS_MAX - 1}"] button[data-offset]`, SLOW);
      const last = page.locator(`.tape[data-partition="${PARTITIONS_MAX - 1}"]`);
      assert.equal(await lab.text(`.tape[data-partition="${PARTITIONS_MAX - 1}"] .tape-label`), `P${PARTITIONS_MAX - 1}`);
      assert.ok(await last.isVisible(), 'P255 is in view');
      const atEnd = await drawnTapes(lab);
      assert.ok(atEnd.every((tape) => tape.partition > PARTITIONS_MAX - 20), `drawn at the end: ${atEnd.map((x) => x.partition)}`);
      assert.ok((await elements(lab)) < ELEMENTS_MAX, 'still bounded at the end');

      // The box's height stands for every tape: the scrollbar is honest.
      const { scrollHeight, rowHeight } = await box.evaluate((element) => {
        const tapes = element.querySelectorAll('.tape');
        return {
          scrollHeight: element.scrollHeight,
          rowHeight: tapes[1].offsetTop - tapes[0].offsetTop,
        };
      });
      assert.ok(Math.abs(scrollHeight - rowHeight * PARTITIONS_MAX) < rowHeight * 2, `${scrollHeight} px for ${PARTITIONS_MAX} rows of ${rowHeight} px`);

      // Arrow keys still move between records, and up a tape.
      const cell = page.locator(`.tape[data-partition="${PARTITIONS_MAX - 1}"] button[data-offset][tabindex="0"]`);
      await cell.focus();
      await page.keyboard.press('ArrowUp');
      const focused = await page.evaluate(() => document.activeElement?.closest('.tape')?.dataset.partition);
      assert.equal(focused, String(PARTITIONS_MAX - 2), 'ArrowUp moves to the tape above');
    });
  });

  for (const [width, height] of [[1440, 900], [390, 844]]) {
    it(`fits a ${width} px screen: no sideways page scroll, tapes and consumer lines in view`, { timeout: 120_000 }, async () => {
      await withLab(env, { seed: 1, viewport: { width, height } }, async (lab) => {
        const { page } = lab;
        await openMax(lab);
        for (let i = 0; i < 5; i++) await page.locator('button[data-action=step]').click(SLOW);
        await lab.settle();
        const layout = await page.evaluate(() => ({
          page: document.documentElement.scrollWidth,
          viewport: document.documentElement.clientWidth,
          elements: document.getElementsByTagName('*').length,
        }));
        assert.ok(layout.page <= layout.viewport, `the page is ${layout.page} px wide in a ${layout.viewport} px viewport`);
        assert.ok(layout.elements < ELEMENTS_MAX, `${layout.elements} elements`);
        const tape = page.locator('.topic .tape[data-partition="0"]');
        await tape.scrollIntoViewIfNeeded();
        assert.ok(await tape.isVisible(), 'P0 is shown');
        const row = page.locator('.group .consumer-row[data-consumer=c1]');
        await row.scrollIntoViewIfNeeded();
        assert.ok(await row.isVisible(), "c1's line is shown");
        // Every part of the line inside its box (a line clips what overflows): the counts and
        // each button, not just present but where they can be seen and clicked.
        const parts = await row.evaluate((row) => {
          const box = row.getBoundingClientRect();
          return [...row.querySelectorAll('[data-field=handled], button')].map((e) => {
            const r = e.getBoundingClientRect();
            return { part: e.dataset.action ?? e.dataset.field, inside: r.left >= box.left && r.right <= box.right && r.width > 0 };
          });
        });
        assert.ok(parts.some((p) => p.part === 'crash'), `c1's line has no Crash button: ${JSON.stringify(parts)}`);
        for (const p of parts) assert.ok(p.inside, `c1's ${p.part} is clipped at ${width} px: ${JSON.stringify(parts)}`);
      });
    });
  }
});
