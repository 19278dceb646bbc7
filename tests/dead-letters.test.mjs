// Issue 40 on the page, done by hand as a newcomer would: open an experiment from the chapter
// "When a record cannot be processed", play it, and see what a poison record does. The
// dead-letter topic's tape appears with its one record linked to its source; a stuck partition
// is marked with its record and attempts; replaying dead letters without an idempotent ledger
// pays twice. Screenshots at 1440 × 900, 390 × 844 and the 800 × 600 embed, light and dark, go to
// target/screenshots/ (dead-letters-*.png).

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';
import { REPO_ROOT } from './lib/server.mjs';

const OUT = join(REPO_ROOT, 'target', 'screenshots');
const DLT = '.letter-topic[data-letter-topic="orders.DLT"]';

/** Steps until `selector` is on the page, at most `ticks` ticks; fails if it never is. */
async function stepUntil(lab, selector, ticks) {
  for (let i = 0; i < ticks; i++) {
    if ((await lab.page.locator(selector).count()) > 0) return;
    await lab.step(1);
  }
  assert.ok((await lab.page.locator(selector).count()) > 0, `${selector} within ${ticks} ticks`);
}

async function shoot(lab, name, { fullPage = false } = {}) {
  await mkdir(OUT, { recursive: true });
  await lab.page.screenshot({ path: join(OUT, name), fullPage, animations: 'disabled' });
}

describe('dead letters: when a record cannot be processed', () => {
  const env = useBrowser();

  it('poison-dead-lettered from its chapter: the DLT tape appears, its record linked to its source', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      // The default run shows nothing of it.
      assert.equal(await lab.page.locator('[data-field=letter-topics], [data-field=handler-failures], .failure-counters').count(), 0);
      await lab.click('#failures [data-scenario=poison-dead-lettered]');
      await lab.pauseAtStart();
      assert.equal(await lab.page.locator('[data-field=letter-topics]').count(), 0, 'orders.DLT is collapsed until written to');
      assert.equal(await lab.text('[data-field=error-policy]'), 'retry 2 times (2 ticks apart), then orders.DLT');
      await stepUntil(lab, `${DLT} .letter-cell`, 60);
      assert.equal(await lab.counter('dead-lettered'), 1);
      assert.equal(await lab.page.locator(`${DLT} .letter-cell`).count(), 1);
      const source = await lab.page.locator(`${DLT} .letter-cell`).getAttribute('data-source');
      const [, p, o] = source.match(/^P(\d+)@(\d+)$/);
      const name = await lab.page.locator(`${DLT} .letter-cell`).getAttribute('aria-label');
      assert.match(name, new RegExp(`the record from orders P${p} offset ${o}, after 3 attempts; cause: .+`));
      assert.match(await lab.text(`${DLT} [data-field=letter-headers]`), new RegExp(`orders P${p}@${o}`));
      // Keyboard: Tab reaches the letter, Enter shows its source on the orders tape, focused.
      await lab.page.locator(`${DLT} .letter-cell`).focus();
      await lab.page.keyboard.press('Enter');
      const cell = `.tape[data-partition="${p}"] .cell[data-offset="${o}"]`;
      await lab.page.waitForFunction((s) => document.activeElement === document.querySelector(s), cell);
      assert.equal(await lab.page.locator(cell).getAttribute('aria-current'), 'true');
      assert.match(await lab.page.locator(cell).getAttribute('class'), /\bpoison\b/);
      assert.equal(await lab.counter('never-processed'), 0);
      await lab.page.locator('.topic').scrollIntoViewIfNeeded();
      await shoot(lab, 'dead-letters-dlt-1440.png');
      assert.deepEqual(lab.errors, []);
    });
  });

  it('by hand in the default run: the error policy chosen in the settings, then a poison record', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      await lab.pauseAtStart();
      await lab.openPanel('settings');
      assert.equal(await lab.page.locator('[data-field=error-policy-select]').inputValue(), 'skip');
      await lab.page.selectOption('[data-field=error-policy-select]', 'retry-then-dead-letter');
      await lab.page.waitForFunction(() =>
        document.querySelector('[data-field=error-policy-setting]')?.textContent.includes('retry 2 times (1 tick apart), then orders.DLT'));
      await lab.click('[data-action=send-10]');
      await lab.click('[data-action=send-poison]');
      await stepUntil(lab, `${DLT} .letter-cell`, 40);
      assert.equal(await lab.counter('dead-lettered'), 1);
      assert.equal(await lab.counter('never-processed'), 0);
      // Back to skip: the next poison record is skipped, never seen again.
      await lab.page.selectOption('[data-field=error-policy-select]', 'skip');
      await lab.click('[data-action=send-poison]');
      for (let i = 0; i < 30 && (await lab.page.locator('[data-counter=skipped-by-handler]').count()) === 0; i++) await lab.step(1);
      assert.equal(await lab.counter('skipped-by-handler'), 1);
      assert.equal(await lab.counter('dead-lettered'), 1);
      assert.deepEqual(lab.errors, []);
    });
  });

  it('share-dlq: the broker writes the archived poison record to dlq.orders, a tape linked to its source', { timeout: 120_000 }, async () => {
    await withLab(env, { query: '?scenario=share-dlq&seed=11' }, async (lab) => {
      const DLQ = '.letter-topic[data-letter-topic="dlq.orders"]';
      await lab.pauseAtStart();
      assert.equal(await lab.page.locator('[data-field=share-letter-topics]').count(), 0, 'dlq.orders is collapsed until written to');
      await stepUntil(lab, `${DLQ} .letter-cell`, 60);
      assert.equal(await lab.counter('dead-lettered'), 1);
      assert.equal(await lab.page.locator('[data-field=letter-topics]').count(), 0, 'no orders.DLT for a share group');
      assert.equal(await lab.page.locator(`${DLQ} .letter-cell`).count(), 1);
      const source = await lab.page.locator(`${DLQ} .letter-cell`).getAttribute('data-source');
      const [, p, o] = source.match(/^P(\d+)@(\d+)$/);
      const name = await lab.page.locator(`${DLQ} .letter-cell`).getAttribute('aria-label');
      assert.match(name, new RegExp(`the record from orders P${p} offset ${o} \\(__dlq\\.errors\\.partition ${p}, __dlq\\.errors\\.offset ${o}\\) that share group demo archived after 5 deliveries`));
      assert.match(name, /__dlq\.errors\.message "Offset delivery count exceeded the threshold\."; key user-\d+ and value #\d+ copied/);
      assert.match(await lab.text(`${DLQ} [data-field=letter-headers]`), new RegExp(`orders P${p}@${o}`));
      // Keyboard: Enter on the letter shows its source on the orders tape, focused.
      await lab.page.locator(`${DLQ} .letter-cell`).focus();
      await lab.page.keyboard.press('Enter');
      const cell = `.tape[data-partition="${p}"] .cell[data-offset="${o}"]`;
      await lab.page.waitForFunction((s) => document.activeElement === document.querySelector(s), cell);
      assert.equal(await lab.page.locator(cell).getAttribute('aria-current'), 'true');
      assert.match(await lab.page.locator(cell).getAttribute('class'), /\bpoison\b/);
      await lab.page.locator(DLQ).scrollIntoViewIfNeeded();
      await shoot(lab, 'dead-letters-share-dlq-1440.png');
      assert.deepEqual(lab.errors, []);
    });
  });

  it('poison-blocks-partition: the stuck mark with the failing record and its attempts', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      await lab.click('#failures [data-scenario=poison-blocks-partition]');
      await lab.pauseAtStart();
      await stepUntil(lab, '[data-field=stuck]', 40);
      await lab.step(4);
      const mark = lab.page.locator('[data-field=stuck]');
      const offset = await mark.getAttribute('data-stuck-offset');
      assert.match(await mark.textContent(), new RegExp(`^stuck at ${offset} · attempt \\d+ · \\d+ ticks$`));
      const tape = lab.page.locator('.tape.is-stuck');
      assert.equal(await tape.count(), 1, 'one stuck partition');
      assert.equal(await tape.locator('.cell.failing').getAttribute('data-offset'), offset);
      assert.match(await lab.page.locator('[data-field=stuck-announce]').textContent(), new RegExp(`is stuck on offset ${offset}`));
      assert.equal(await lab.page.locator('[data-field=stuck-announce]').getAttribute('role'), 'status');
      assert.ok((await lab.counter('stuck-partition-ticks')) > 0);
      await lab.page.locator('.topic').scrollIntoViewIfNeeded();
      await shoot(lab, 'dead-letters-stuck-1440.png');
      assert.deepEqual(lab.errors, []);
    });
  });

  it('dead-letter-replay-not-idempotent: the replay pays twice', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      await lab.click('#failures [data-jump=dead-letter-replay-not-idempotent]');
      await lab.pauseAtStart();
      await stepUntil(lab, '[data-counter=double-applied-on-replay]', 60);
      assert.ok((await lab.counter('double-applied-on-replay')) >= 1);
      assert.equal(await lab.text('[data-field=handler-fixed]'), '· handler fixed');
      // The replay job goes on to the other letter; the check reproduces once both are replayed.
      for (let i = 0; i < 20 && (await lab.counter('replayed')) < 2; i++) await lab.step(1);
      assert.ok((await lab.counter('replayed')) >= 2);
      await lab.page.waitForFunction(() => document.querySelector('[data-field=outcome]')?.dataset.reproduced === 'true');
      assert.match(await lab.text('[data-field=outcome]'), /applied twice on replay/);
      assert.deepEqual(lab.errors, []);
    });
  });

  // What a newcomer sees: the whole page at the moment the DLT has its letter, and the embed.
  for (const [width, height, colorScheme, embed] of [
    [1440, 900, 'light', false],
    [1440, 900, 'dark', false],
    [390, 844, 'light', false],
    [390, 844, 'dark', false],
    [800, 600, 'light', true],
    [800, 600, 'dark', true],
  ]) {
    it(`screenshots at ${width} × ${height}${embed ? ' embedded' : ''}, ${colorScheme}`, { timeout: 120_000 }, async () => {
      const query = `?${embed ? 'embed=1&' : ''}scenario=poison-dead-lettered&seed=4`;
      await withLab(env, { query, viewport: { width, height }, colorScheme }, async (lab) => {
        await lab.pauseAtStart();
        await stepUntil(lab, `${DLT} .letter-cell`, 60);
        await lab.step(2);
        const suffix = `${width}${embed ? '-embed' : ''}-${colorScheme}`;
        await lab.page.locator(DLT).scrollIntoViewIfNeeded();
        await shoot(lab, `dead-letters-${suffix}.png`);
        const scrollWidth = await lab.page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(scrollWidth <= width + 1, `scrollWidth ${scrollWidth} at ${width}`);
        assert.deepEqual(lab.errors, []);
      });
    });
  }
  for (const [width, height, colorScheme] of [[390, 844, 'light'], [1440, 900, 'dark']]) {
    it(`share-dlq's dlq.orders at ${width} × ${height}, ${colorScheme}`, { timeout: 120_000 }, async () => {
      const query = '?scenario=share-dlq&seed=11';
      await withLab(env, { query, viewport: { width, height }, colorScheme }, async (lab) => {
        const DLQ = '.letter-topic[data-letter-topic="dlq.orders"]';
        await lab.pauseAtStart();
        await stepUntil(lab, `${DLQ} .letter-cell`, 60);
        await lab.page.locator(DLQ).scrollIntoViewIfNeeded();
        await shoot(lab, `dead-letters-share-dlq-${width}-${colorScheme}.png`);
        const scrollWidth = await lab.page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(scrollWidth <= width + 1, `scrollWidth ${scrollWidth} at ${width}`);
        assert.deepEqual(lab.errors, []);
      });
    });
  }
  for (const [width, height] of [[1440, 900], [390, 844]]) {
    it(`a stuck partition at ${width} × ${height}, dark`, { timeout: 120_000 }, async () => {
      const query = '?scenario=poison-blocks-partition&seed=4';
      await withLab(env, { query, viewport: { width, height }, colorScheme: 'dark' }, async (lab) => {
        await lab.pauseAtStart();
        await stepUntil(lab, '[data-field=stuck]', 40);
        await lab.step(4);
        await lab.page.locator('.tape.is-stuck').scrollIntoViewIfNeeded();
        await shoot(lab, `dead-letters-stuck-${width}-dark.png`);
      });
    });
  }
});
