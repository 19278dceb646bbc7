// Two more of issue 38's clocks on the page, done by hand as their guides say: auto-commit's
// commit at JoinGroup (cooperative: nothing at the revocation, so records come back), and a
// partition added while the group leader's metadata is old (latest skips what came before the
// refresh). Screenshots of the moment go to target/screenshots/ (clocks-*.png).

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';
import { REPO_ROOT } from './lib/server.mjs';

const OUT = join(REPO_ROOT, 'target', 'screenshots');

/** Steps one tick at a time until `done()` holds, at most `max` ticks; returns whether it did. */
async function stepUntil(lab, max, done) {
  for (let i = 0; i < max; i++) {
    if (await done()) return true;
    await lab.step(1);
  }
  return done();
}

describe('clocks: auto-commit at a rebalance, and a partition noticed late', () => {
  const env = useBrowser();

  it('auto-commit-on-rebalance by hand at 1440: the commit at JoinGroup, the records that come back', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: 1, viewport: { width: 1440, height: 900 }, colorScheme: 'light' }, async (lab) => {
      // One of the chapter's other experiments: its link loads it and shows its card.
      await lab.click('#clocks [data-jump=auto-commit-on-rebalance]');
      await lab.click('#clocks [data-try=auto-commit-on-rebalance]');
      await lab.pauseAtStart();
      assert.match(await lab.text('[data-field=outcome]'), /^Not yet\./);
      await lab.step(3);
      // c1's card counts down to its next auto-commit.
      const timer = await lab.text('.consumer-card[data-consumer=c1] [data-field=auto-commit]');
      assert.match(timer, /^auto-commit in \d+$/);
      // The guide's step, around tick 20: Add consumer while Keep sending is on.
      await lab.step(17);
      await lab.click('button[data-action=add-consumer]');
      // c1 commits at its JoinGroup: its auto-commit timer starts again from the new generation.
      assert.ok(
        await stepUntil(lab, 40, async () => (await lab.counter('duplicates')) >= 1),
        'records c1 handled after its JoinGroup come back to c2',
      );
      await lab.page.waitForFunction(() => document.querySelector('[data-field=outcome]')?.dataset.reproduced === 'true');
      assert.match(await lab.text('[data-field=outcome]'), /Reproduced\. \d+ records? (was|were) handled twice: c1 auto-committed at its JoinGroup/);
      await mkdir(OUT, { recursive: true });
      await lab.page.locator('#explanation').scrollIntoViewIfNeeded();
      await lab.page.screenshot({ path: join(OUT, 'clocks-auto-commit-1440-light.png'), animations: 'disabled' });
    });
  });

  it('partitions-added-latest-skips by hand at 390 dark: no owner until the refresh, then latest skips', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: 1, viewport: { width: 390, height: 844 }, colorScheme: 'dark' }, async (lab) => {
      // One of the chapter's other experiments: its link loads it and shows its card.
      await lab.click('#clocks [data-jump=partitions-added-latest-skips]');
      await lab.click('#clocks [data-try=partitions-added-latest-skips]');
      await lab.pauseAtStart();
      assert.equal(
        await lab.page.locator('[data-open-panel=operations]').count(),
        1,
        'the experiment opens the panel that holds Add a partition',
      );
      // The settings name the timer; the button the guide names is on screen once scrolled to.
      await lab.openPanel('settings');
      assert.match(await lab.text('[data-field=timers]'), /auto\.offset\.reset latest · metadata\.max\.age 30 ticks$/);
      await lab.openPanel('operations');
      await lab.step(8);
      await lab.click('button[data-action=add-partition]');
      assert.equal((await lab.view()).partitions.length, 4);
      // P3 fills while nobody owns it.
      await lab.step(10);
      const view = await lab.view();
      assert.ok(view.partitions[3].log_end > 0, 'records went to P3');
      assert.ok(!view.consumers.some((c) => c.partitions.includes(3)), 'nobody owns P3 before the refresh');
      // At the leader's refresh the group takes P3, at its log end.
      assert.ok(
        await stepUntil(lab, 20, async () => (await lab.view()).metrics.skipped_by_reset >= 1),
        'the reset skipped what P3 held',
      );
      assert.ok((await lab.counter('skipped-by-reset')) >= 1);
      assert.match(await lab.text('.clock-counters'), /^Skipped by offset reset\s*\d+$/);
      // Never processed follows once the group commits past them.
      assert.ok(
        await stepUntil(lab, 10, async () => (await lab.page.locator('[data-field=outcome][data-reproduced=true]').count()) > 0),
        'the check reproduces',
      );
      assert.match(await lab.text('[data-field=outcome]'), /Reproduced\. \d+ records? (was|were) skipped: P3 had no owner/);
      await mkdir(OUT, { recursive: true });
      await lab.page.locator('#explanation').scrollIntoViewIfNeeded();
      await lab.page.screenshot({ path: join(OUT, 'clocks-partition-latest-390-dark.png'), animations: 'disabled' });
    });
  });
});
