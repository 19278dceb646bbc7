// Share groups on the page: switching the group's protocol, the poison record,
// and each in-flight record's holder and delivery count on the tape.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';

const SEED = 1;
/** Ticks for the poison record to be delivered five times and archived. */
const POISON_TICKS = 40;

describe('share groups', () => {
  const env = useBrowser();

  it('the protocol choice restarts the run with a share group', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: SEED }, async (lab) => {
      await lab.openPanel('settings');
      await lab.page.selectOption('select[data-field=protocol]', 'share');
      const view = await lab.view();
      assert.equal(view.tick, 0, 'the run starts again');
      assert.equal(view.groups[0].protocol, 'share');
      assert.equal(await lab.page.inputValue('select[data-field=protocol]'), 'share');
      assert.match(await lab.text('.describe .prompt'), /kafka-share-groups --bootstrap-server/);
      // share.auto.offset.reset=latest: records sent before a share-partition is
      // first read are never delivered, so the members read first.
      await lab.step(1);
      await lab.send10();
      await lab.step(2);
      // Acquired records carry their holder and delivery count.
      const marks = await lab.page.locator('.cell.acquired .cell-share').allTextContents();
      assert.ok(marks.length > 0, 'some records are acquired');
      for (const mark of marks) assert.match(mark, /^c\d+·1$/, mark);
      // A share group has no committed offsets to choose a commit mode for.
      await lab.click('input[name=commit][value=before]');
      assert.match(await lab.text('.status p'), /share group/);
    });
  });

  it('a poison record is delivered five times, then archived', { timeout: 120_000 }, async () => {
    await withLab(env, { query: `?seed=${SEED}&scenario=share-poison-record` }, async (lab) => {
      // The scenario sends one at tick 20.
      await lab.step(POISON_TICKS);
      const view = await lab.view();
      const m = view.groups[0].metrics;
      assert.equal(m.archived, 1, JSON.stringify(m));
      assert.equal(m.failed, 5, JSON.stringify(m));
      await lab.click('button[data-action=send-poison]');
      assert.equal((await lab.view()).metrics.produced, view.metrics.produced + 1);
    });
  });
});
