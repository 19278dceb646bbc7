// Transactions on the page: the payouts tapes with their aborted results and
// control markers, the last stable offset, and the zombie fenced on its card.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';

const SEED = 72;
/** Ticks for the zombie to wake (at 33) and the run to settle. */
const ZOMBIE_TICKS = 40;

describe('transactions', () => {
  const env = useBrowser();

  it('a zombie is fenced, and payouts keeps its aborted results struck through', { timeout: 120_000 }, async () => {
    await withLab(env, { query: `?seed=${SEED}&scenario=eos-zombie-fenced` }, async (lab) => {
      await lab.step(ZOMBIE_TICKS);
      const view = await lab.view();
      assert.equal(view.metrics.fenced_writes, 1, JSON.stringify(view.metrics));
      assert.equal(view.metrics.downstream_duplicates, 0);
      // The zombie's card says it was fenced; its replacement holds the same transactional.id.
      const c1 = lab.page.locator('[data-consumer=c1] [data-field=txn-producer]');
      assert.match(await c1.textContent(), /demo-inst-1.*fenced/);
      const c3 = lab.page.locator('[data-consumer=c3] [data-field=txn-producer]');
      assert.match(await c3.textContent(), /demo-inst-1\s*epoch \d+/);
      // Beside the producer's own state, the coordinator's TransactionState for the id, in Kafka's words.
      const state = await lab.text('[data-consumer=c3] [data-field=coordinator-state]');
      assert.match(state, /^coordinator: (Empty|Ongoing|PrepareCommit|PrepareAbort|CompleteCommit|CompleteAbort)$/);
      // The zombie's card shows the same id's state, marked as the newer epoch's transaction.
      const zombie = await lab.text('[data-consumer=c1] [data-field=coordinator-state]');
      assert.equal(zombie, state.replace('coordinator:', 'coordinator (newer epoch):'));
      // payouts: the aborted results, an ABORT marker, COMMIT markers, and the stable offset.
      assert.ok(await lab.page.locator('[data-field=payouts] .payout.is-aborted').count() >= 1);
      assert.equal(await lab.page.locator('[data-field=payouts] .payout-marker.is-abort').count(), 1);
      assert.ok(await lab.page.locator('[data-field=payouts] .payout-marker.is-commit').count() >= 2);
      assert.match(await lab.text('[data-payouts-partition="0"] [data-field=lso]'), /^stable \d+$/);
      assert.equal(await lab.text('[data-field=fenced-writes] dd'), '1');
    });
  });

  it('a run without transactions has no payouts', { timeout: 60_000 }, async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      assert.equal(await lab.page.locator('[data-field=payouts]').count(), 0);
    });
  });
});
