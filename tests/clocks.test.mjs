// Issue 38's clocks on the page, done by hand as the guide says: a poll returns more records
// than max.poll.interval gives time for, the member's card shows its poll timer running down,
// the member leaves by itself, its commit fails, and the check reproduces. Screenshots of the
// moment go to target/screenshots/ (clocks-*.png).

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';
import { REPO_ROOT } from './lib/server.mjs';

const OUT = join(REPO_ROOT, 'target', 'screenshots');

describe('clocks: when Kafka gives up on a consumer', () => {
  const env = useBrowser();

  for (const { width, height, colorScheme } of [
    { width: 1440, height: 900, colorScheme: 'light' },
    { width: 390, height: 844, colorScheme: 'dark' },
  ]) {
    it(`slow-handler-poll-timeout by hand at ${width}: the poll timer, the leave, the failed commit`, { timeout: 120_000 }, async () => {
      await withLab(env, { seed: 1, viewport: { width, height }, colorScheme }, async (lab) => {
        await lab.click('#clocks [data-try=slow-handler-poll-timeout]');
        await lab.pauseAtStart();
        assert.match(await lab.text('[data-field=outcome]'), /^Not yet\./);
        // The settings say what the timers are.
        await lab.openPanel('settings');
        assert.equal(
          await lab.text('[data-field=timers]'),
          'Timers session.timeout 10 ticks · max.poll.interval 8 ticks · auto.offset.reset earliest',
        );
        // With 6 records a poll every batch fits: no card shows a late timer in 20 ticks.
        await lab.step(3);
        // The guide's step: Records per poll to 10.
        await lab.page.selectOption('select[data-field=records-per-poll]', '10');
        await lab.settle();
        let timer = null;
        for (let i = 0; i < 30 && timer === null; i++) {
          await lab.step(1);
          if ((await lab.page.locator('[data-field=poll-timer].is-late').count()) > 0) {
            timer = await lab.text('[data-field=poll-timer].is-late');
          }
        }
        assert.ok(timer, 'a card shows its poll timer running out');
        assert.match(timer, /^poll timer: [0-2] of 8 ticks left \(max\.poll\.interval\)$/);
        await mkdir(OUT, { recursive: true });
        const card = lab.page.locator('.consumer-card:has([data-field=poll-timer])').first();
        await card.scrollIntoViewIfNeeded();
        await lab.page.screenshot({ path: join(OUT, `clocks-timer-${width}-${colorScheme}.png`), animations: 'disabled' });
        // A few ticks later the member is out of the group, and says so.
        let left = null;
        for (let i = 0; i < 6 && left === null; i++) {
          await lab.step(1);
          if ((await lab.page.locator('[data-field=left-group]').count()) > 0) left = await lab.text('[data-field=left-group]');
        }
        assert.equal(left, 'out of the group (poll timeout): it finishes its batch, but its commit will fail');
        // The counters that say it, beside the others, as the guide's 'what to watch' names them.
        assert.ok((await lab.counter('members-left-poll-timeout')) >= 1);
        assert.match(await lab.text('.clock-counters'), /^Left on poll timeout\s*\d+\s*Commits failed\s*\d+$/);
        const feed = await lab.page.locator('.announcer-feed li').allTextContents();
        assert.ok(feed.some((line) => /left the group by itself: 9 ticks since its last poll/.test(line)), feed.join('\n'));
        // Its batch done, the commit fails, and the check reproduces.
        await lab.step(20);
        const after = await lab.page.locator('.announcer-feed li').allTextContents();
        assert.ok(after.some((line) => /commit failed \(CommitFailedException/.test(line)), after.join('\n'));
        assert.ok((await lab.counter('commit-failed')) >= 1);
        await lab.page.waitForFunction(() => document.querySelector('[data-field=outcome]')?.dataset.reproduced === 'true');
        assert.match(await lab.text('[data-field=outcome]'), /Reproduced\. \d+ duplicates?: a member took longer than max\.poll\.interval/);
        await lab.page.locator('#explanation').scrollIntoViewIfNeeded();
        await lab.page.screenshot({ path: join(OUT, `clocks-check-${width}-${colorScheme}.png`), animations: 'disabled' });
      });
    });
  }
});
