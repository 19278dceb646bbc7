// The cluster on the published page: the broker strip, each tape's replicas and high watermark, the
// producer's counters and settings, kafka-topics --describe, where a duplicate came from, axe in
// both themes, and screenshots into target/screenshots/.

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { axeViolations } from './lib/axe.mjs';
import { useBrowser, withLab } from './lib/page.mjs';
import { REPO_ROOT } from './lib/server.mjs';

const OUT = join(REPO_ROOT, 'target', 'screenshots');
/** acks1-leader-crash crashes broker 1 at tick 10; its session runs out 6 ticks later. */
const AFTER_ELECTION_TICKS = 20;

describe('the cluster on the page', () => {
  const env = useBrowser();

  it('a leader crash: the strip, the replicas, the describe output and acked-then-lost', { timeout: 120_000 }, async () => {
    await withLab(env, { query: '?seed=14&scenario=acks1-leader-crash' }, async (lab) => {
      // Before the crash: broker 1 leads P0, every replica in the ISR.
      assert.equal(await lab.text('[data-broker="1"] [data-field=broker-state]'), 'up');
      assert.equal(await lab.text('[data-broker="1"] [data-field=broker-leads]'), 'leads P0');
      assert.match(await lab.shownText('[data-field=describe-topic]'), /Partition: 0\s+Leader: 1\s+Replicas: 1,2,3\s+Isr: 1,2,3/);
      // Before the crash the followers stall: broker 1 holds records no follower has. They are
      // on the tape, faint, past the high watermark, and no consumer reads them.
      await lab.step(8);
      const hw = Number((await lab.text('[data-partition="0"] [data-marker=high-watermark]')).replace('HW ', ''));
      const above = lab.page.locator('[data-partition="0"] .cell.above-hw');
      assert.ok((await above.count()) >= 1, 'records above the high watermark');
      assert.match(await above.first().getAttribute('aria-label'), /above the high watermark: not readable yet/);
      assert.equal(Number(await above.first().getAttribute('data-offset')), hw);
      assert.match(await lab.text('[data-partition="0"] [data-field=above-high-watermark]'), /^\d+ above the high watermark, not readable yet$/);
      await lab.step(AFTER_ELECTION_TICKS - 8);
      const view = await lab.view();
      assert.ok(view.metrics.acked_lost >= 1, JSON.stringify(view.metrics));
      assert.equal(await lab.counter('acked-lost'), view.metrics.acked_lost);
      assert.equal(await lab.text('[data-broker="1"] [data-field=broker-state]'), 'down, fenced');
      assert.equal(await lab.text('[data-broker="2"] [data-field=broker-leads]'), 'leads P0');
      const replicas = await lab.text('[data-partition="0"] [data-field=replicas]');
      assert.match(replicas, /broker 1 holds \d+ out of ISR/);
      assert.match(replicas, /broker 2 \(leader\) holds \d+ ISR/);
      assert.match(await lab.shownText('[data-field=describe-topic]'), /Leader: 2\s+Replicas: 1,2,3\s+Isr: 2,3/);
      // Caught up again after the election: no record above the high watermark.
      assert.equal(await lab.page.locator('[data-partition="0"] .cell.above-hw').count(), 0);

      // Restart broker 1 from the strip; it comes back as a follower.
      await lab.click('[data-broker="1"] button[data-action=restart-broker]');
      assert.equal(await lab.text('[data-broker="1"] [data-field=broker-state]'), 'up');
      assert.equal(await lab.text('[data-broker="1"] [data-field=broker-leads]'), 'leads nothing');
    });
  });

  // Issue 37: a section that only one part of the page draws is computed while it is on screen.
  // The chapter's kafka-topics output, far below the simulation, is not recomputed at each tick
  // while the reader watches the tapes; scrolled to, it shows the tick on screen at once.
  it('kafka-topics --describe in its chapter is computed while on screen, and current there', { timeout: 120_000 }, async () => {
    await withLab(env, { query: '?seed=14&scenario=acks1-leader-crash' }, async (lab) => {
      await lab.pauseAtStart();
      await lab.page.evaluate(() => window.scrollTo(0, 0));
      await lab.step(AFTER_ELECTION_TICKS);
      assert.equal(await lab.text('[data-broker="2"] [data-field=broker-leads]'), 'leads P0', 'after the election');
      assert.match(await lab.text('[data-field=describe-topic]'), /Leader: 1\s/, 'off screen, not recomputed');
      assert.match(await lab.shownText('[data-field=describe-topic]'), /Leader: 2\s+Replicas: 1,2,3\s+Isr: 2,3/);
    });
  });

  it('acks and idempotence start the run again; a combination Kafka refuses is refused', { timeout: 120_000 }, async () => {
    await withLab(env, { query: '?seed=14&scenario=acks1-leader-crash' }, async (lab) => {
      await lab.pauseAtStart();
      await lab.step(3);
      await lab.page.selectOption('[data-field=idempotence]', 'true');
      await lab.settle();
      assert.match(await lab.text('.status p'), /acks=1, enable\.idempotence=true: /);
      assert.equal((await lab.view()).tick, 3, 'refused: the run goes on where it was');
      await lab.page.selectOption('[data-field=acks]', 'all');
      await lab.settle();
      assert.equal((await lab.view()).tick, 0, 'the run starts again from tick 0');
      assert.equal(await lab.page.locator('[data-field=acks]').inputValue(), 'all');
      assert.equal(await lab.text('[data-field=idempotence] option:checked'), 'default (true)');
    });
  });

  it('a retry without idempotence: the sink says the producer wrote it twice', { timeout: 120_000 }, async () => {
    await withLab(env, { query: '?seed=15&scenario=retry-without-idempotence' }, async (lab) => {
      await lab.step(40);
      const m = (await lab.view()).metrics;
      assert.ok(m.producer_duplicates >= 1, JSON.stringify(m));
      assert.equal(await lab.counter('producer-duplicates'), m.producer_duplicates);
      assert.equal(await lab.counter('duplicates-from-producer'), m.duplicates_from_producer);
      assert.ok(m.duplicates_from_producer >= 1, 'the application handled a second copy');
      const chip = lab.page.locator('[data-field=sink-strip] .chip.from-producer').first();
      assert.match(await chip.getAttribute('aria-label'), /dup: the producer wrote it twice/);
    });
  });

  it('chapter written: Try it, crash broker 1 by hand from the strip, and the outcome is reproduced', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      await lab.click('#written [data-try=acks1-leader-crash]');
      await lab.pauseAtStart();
      // The guide's step: crash broker 1 while its followers are behind (ticks 7 to 12).
      await lab.step(8);
      assert.equal((await lab.view()).metrics.acked_lost, 0);
      await lab.click('[data-broker="1"] button[data-action=crash-broker]');
      await lab.step(12);
      await lab.page.waitForFunction(
        () => document.querySelector('#simulation [data-field=outcome]')?.dataset.reproduced === 'true',
      );
      assert.match(await lab.text('#simulation [data-field=outcome]'), /Reproduced/);
      assert.ok((await lab.view()).metrics.acked_lost >= 1);
    });
  });

  for (const [name, fault, metric] of [
    ['retry-without-idempotence', 'lose-next-ack', 'producer_duplicates'],
    ['inflight-reorders', 'lose-next-request', 'producer_reordered'],
  ]) {
    it(`chapter written: Try it ${name}, inject the fault by hand, and the outcome is reproduced`, { timeout: 120_000 }, async () => {
      await withLab(env, { seed: 1 }, async (lab) => {
        // One of the chapter's other experiments: its link loads it and draws its card in full.
        await lab.click(`#written [data-jump=${name}]`);
        await lab.click(`#written [data-try=${name}]`);
        await lab.pauseAtStart();
        await lab.click(`[data-field=cluster] button[data-action=${fault}]`);
        await lab.step(60);
        await lab.page.waitForFunction(
          () => document.querySelector('#simulation [data-field=outcome]')?.dataset.reproduced === 'true',
        );
        assert.ok((await lab.view()).metrics[metric] >= 1, metric);
      });
    });
  }

  it('a run without a cluster has no broker strip and no producer counters', { timeout: 60_000 }, async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      assert.equal(await lab.page.locator('[data-field=cluster]').count(), 0);
      assert.equal(await lab.page.locator('[data-counter=acked-lost]').count(), 0);
      assert.equal(await lab.page.locator('[data-partition="0"] [data-field=replicas]').count(), 0);
    });
  });

  for (const colorScheme of ['light', 'dark']) {
    it(`axe finds no violations with the cluster, ${colorScheme}; screenshots at 1440 and 390 px`, { timeout: 180_000 }, async () => {
      await mkdir(OUT, { recursive: true });
      for (const width of [1440, 390]) {
        const viewport = { width, height: width === 390 ? 844 : 900 };
        await withLab(env, { query: '?seed=14&scenario=acks1-leader-crash', viewport, colorScheme }, async (lab) => {
          await lab.step(AFTER_ELECTION_TICKS);
          if (width === 1440) assert.deepEqual(await axeViolations(lab), [], 'after the election');
          const topic = lab.page.locator('section.topic');
          await topic.screenshot({ path: join(OUT, `cluster-topic-${width}-${colorScheme}.png`), animations: 'disabled' });
          const chapter = lab.page.locator('#written');
          await chapter.scrollIntoViewIfNeeded();
          await chapter.screenshot({ path: join(OUT, `cluster-chapter-${width}-${colorScheme}.png`), animations: 'disabled' });
        });
      }
    });
  }
});
