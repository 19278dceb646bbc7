// Experiment 4 by clicks alone: crash a consumer mid-batch, then wait out its session.
// Commit after handling replays the uncommitted work (duplicates, nothing lost);
// commit before handling skips it (never processed).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';

const SEED = 1;
/** Steps allowed to reach a mid-batch moment before giving up. */
const STEPS_TO_MID_BATCH = 12;
/** Past the default 10-tick session timeout, the rebalance and the replay. */
const STEPS_AFTER_CRASH = 15;
const MORE_STEPS_AFTER_CRASH = 15;

/**
 * c1 mid-batch: records fetched and not yet handled, and at least one record handled.
 * Also: how many of c1's handled records are past the committed offset (the work a crash
 * under commit-after repeats).
 */
function midBatch(view, id) {
  const consumer = view.consumers.find((c) => c.id === id);
  let handledUncommitted = 0;
  for (const p of consumer.partitions) {
    const partition = view.partitions[p];
    if (partition.position === null) continue;
    const committed = partition.committed ?? partition.log_start;
    const inFlight = consumer.in_flight.filter((r) => r.partition === p).length;
    handledUncommitted += Math.max(0, partition.position - inFlight - committed);
  }
  return {
    inFlight: consumer.in_flight.length,
    handled: consumer.handled,
    handledUncommitted,
  };
}

async function stepUntil(lab, done, bound, what) {
  for (let i = 0; i < bound; i++) {
    if (done(await lab.view())) return;
    await lab.step(1);
  }
  assert.ok(done(await lab.view()), `${what} within ${bound} ticks`);
}

async function crashMidBatch(lab, commit) {
  // From tick 0, whatever tick the clock was stopped at once the page had loaded: a batch
  // polled under commit-after before the switch would be replayed.
  await lab.click('button[data-action=restart]');
  assert.equal((await lab.view()).tick, 0);
  await lab.openPanel('settings');
  if (commit === 'before') {
    await lab.click('input[name=commit][value=before]');
    assert.equal(await lab.page.isChecked('input[name=commit][value=before]'), true);
    assert.equal((await lab.view()).settings.commit.mode, 'before');
  } else {
    assert.equal(await lab.page.isChecked('input[name=commit][value=after]'), true, 'commit after is the default');
    assert.equal((await lab.view()).settings.commit.mode, 'after');
  }
  await lab.send10();
  await stepUntil(
    lab,
    (view) => {
      const m = midBatch(view, 'c1');
      const started = m.inFlight > 0 && m.handled > 0;
      return commit === 'after' ? started && m.handledUncommitted > 0 : started;
    },
    STEPS_TO_MID_BATCH,
    'c1 mid-batch with some records handled',
  );
  assert.equal(await lab.consumerState('c1'), 'running');
  const before = await lab.counters();
  assert.equal(before.duplicates, 0);
  assert.equal(before['never-processed'], 0);

  const { tick } = await lab.view();
  await lab.click('[data-consumer=c1] [data-action=crash]');
  assert.equal(await lab.consumerState('c1'), 'crashed');
  await lab.step(STEPS_AFTER_CRASH);
  return { ...before, crashTick: tick };
}

describe('Experiment 4: crash mid-batch', () => {
  const env = useBrowser();

  it('commit after handling: duplicates, nothing lost', { timeout: 120_000 }, async (t) => {
    await withLab(env, { seed: SEED }, async (lab) => {
      const before = await crashMidBatch(lab, 'after');
      t.diagnostic(`c1 crashed at tick ${before.crashTick}`);
      let counters = await lab.counters();
      for (let i = 0; i < MORE_STEPS_AFTER_CRASH && counters.duplicates === 0; i++) {
        await lab.step(1);
        counters = await lab.counters();
      }
      assert.ok(counters.duplicates > 0, `duplicates after the crash: ${JSON.stringify(counters)}`);
      assert.equal(counters['never-processed'], 0);
      assert.ok(counters.generation > before.generation, 'the session timed out and the group rebalanced');
      const view = await lab.view();
      assert.equal(view.consumers.find((c) => c.id === 'c1').state, 'crashed');
      // The strip marks the replayed records.
      const duplicateChips = await lab.page.locator('[data-field=sink-strip] [data-record-id].duplicate').count();
      assert.ok(duplicateChips > 0, 'the sink strip shows duplicate chips');
    });
  });

  it('commit before handling: records never processed', { timeout: 120_000 }, async (t) => {
    await withLab(env, { seed: SEED }, async (lab) => {
      const { crashTick } = await crashMidBatch(lab, 'before');
      t.diagnostic(`c1 crashed at tick ${crashTick}`);
      let counters = await lab.counters();
      for (let i = 0; i < MORE_STEPS_AFTER_CRASH && counters['never-processed'] === 0; i++) {
        await lab.step(1);
        counters = await lab.counters();
      }
      assert.ok(counters['never-processed'] > 0, `never processed after the crash: ${JSON.stringify(counters)}`);
      assert.equal(counters.duplicates, 0);
    });
  });
});
