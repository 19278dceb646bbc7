// The first two minutes, as a newcomer meets them: seed 003's experiments done by hand, following
// its words, at 1440 × 900, 390 × 844 and in an 800 × 600 embed. Each test is one thing a newcomer
// was lost by (issue 37's numbered points); each failed on the page this work started from.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';

/** Viewport rectangles of every element matching each selector (rounded). */
function rects(lab, selector) {
  return lab.page.locator(selector).evaluateAll((elements) =>
    elements.map((e) => {
      const r = e.getBoundingClientRect();
      return { top: Math.round(r.top), bottom: Math.round(r.bottom), left: Math.round(r.left), right: Math.round(r.right) };
    }),
  );
}

/** Whether `inner` lies within `outer`, a pixel of rounding either way. */
function inside(inner, outer) {
  return inner.left >= outer.left - 1 && inner.right <= outer.right + 1 && inner.top >= outer.top - 1 && inner.bottom <= outer.bottom + 1;
}

/** Per tape: its box and its markers (cursor, committed, log end) as drawn. */
function tapeMarks(lab) {
  return lab.page.evaluate(() =>
    [...document.querySelectorAll('.tape[data-partition]')].map((tape) => {
      const box = tape.querySelector('.tape-scroll').getBoundingClientRect();
      const at = (selector) => {
        const e = tape.querySelector(selector);
        if (!e) return null;
        const r = e.getBoundingClientRect();
        return { left: r.left, right: r.right };
      };
      return {
        partition: tape.dataset.partition,
        box: { left: box.left, right: box.right },
        position: at('[data-marker=position]'),
        committed: at('[data-marker=committed]'),
        end: at('[data-marker=log-end] .log-end-label'),
        follow: tape.querySelector('button[data-action=follow]') !== null,
      };
    }),
  );
}

const within = (mark, box) => mark !== null && mark.left >= box.left - 1 && mark.right <= box.right + 1;

describe('a newcomer, by hand', () => {
  const env = useBrowser();

  it('a tape follows its newest records, and offers the way back when moved away (1)', async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      // About thirty records a partition: past the box's right edge on the page this started from.
      for (let i = 0; i < 9; i++) await lab.send10();
      await lab.step(30);
      const marks = await tapeMarks(lab);
      for (const tape of marks) {
        assert.ok(within(tape.position, tape.box), `P${tape.partition}'s cursor is in its box: ${JSON.stringify(tape)}`);
        assert.ok(within(tape.committed, tape.box), `P${tape.partition}'s committed marker is in its box: ${JSON.stringify(tape)}`);
        // The log end too, unless the lag is longer than the box: then the box starts a few
        // cells before the committed offset, which is what there is to read next.
        const cell = 44;
        assert.ok(
          within(tape.end, tape.box) || tape.committed.left - tape.box.left < 6 * cell,
          `P${tape.partition}'s log end is in its box, or its box starts at the committed offset: ${JSON.stringify(tape)}`,
        );
        assert.ok(!tape.follow, 'following: no Follow button');
      }
      assert.ok(marks.some((tape) => within(tape.end, tape.box)), 'a partition whose owner keeps up shows its log end');
      // Moved away, the tape says how to come back, and coming back shows the newest again.
      await lab.click('[data-partition="0"] button[data-action=older]');
      let [p0] = await tapeMarks(lab);
      assert.ok(p0.follow, 'Follow › after Older');
      assert.ok(!within(p0.end, p0.box), 'the log end is out of the box after Older');
      await lab.click('[data-partition="0"] button[data-action=follow]');
      [p0] = await tapeMarks(lab);
      assert.ok(!p0.follow && within(p0.end, p0.box), `following again: ${JSON.stringify(p0)}`);
      // Scrolled by hand, the same.
      await lab.page.locator('[data-partition="1"] .tape-scroll').evaluate((box) => box.scrollBy({ left: -9999 }));
      await lab.click('[data-partition="1"] button[data-action=older]');
      await lab.page.locator('[data-partition="1"] .tape-scroll').evaluate((box) => box.scrollBy({ left: 200 }));
      await lab.settle();
      assert.ok((await tapeMarks(lab))[1].follow, 'Follow › after scrolling the box');
    });
  });

  for (const [width, height] of [[800, 600], [1000, 700], [1440, 900]]) {
    it(`at ${width} × ${height} a following tape's log end is whole in its box or past it, never cut (1)`, async () => {
      await withLab(env, { seed: 1, viewport: { width, height } }, async (lab) => {
        // Where the log end's label ends, against its box's right edge.
        const ends = () =>
          lab.page.evaluate(() =>
            [...document.querySelectorAll('.topic .tape[data-partition]')].map((tape) => {
              const box = tape.querySelector('.tape-scroll').getBoundingClientRect();
              const end = tape.querySelector('[data-marker=log-end] .log-end-label').getBoundingClientRect();
              return {
                partition: tape.dataset.partition,
                older: tape.querySelector('[data-field=older-count]').textContent,
                following: tape.querySelector('button[data-action=follow]') === null,
                boxRight: Math.round(box.right),
                end: [Math.round(end.left), Math.round(end.right)],
              };
            }),
          );
        const check = async (when) => {
          const tapes = await ends();
          for (const t of tapes) {
            assert.ok(t.following, `${when}: P${t.partition} follows its newest records`);
            const cut = t.end[0] < t.boxRight && t.end[1] > t.boxRight + 1;
            assert.ok(!cut, `${when}: P${t.partition}'s log end is cut by its box's right edge: ${JSON.stringify(t)}`);
          }
          return tapes;
        };
        // Seed 003's first experiments by hand: keys off and bursts until every tape has more
        // records than its box holds ("+N older" before its window; the consumers keep up, so
        // the log end is in the box), then commit before and a crash mid-batch.
        await lab.click('[data-field=use-keys]');
        for (let i = 0; i < 6; i++) await lab.send10();
        await lab.step(45);
        const tapes = await check('after six bursts');
        assert.ok(tapes.some((t) => t.older !== ''), `a tape has older records before its window: ${JSON.stringify(tapes)}`);
        await lab.openPanel('settings');
        await lab.page.locator('input[name=commit][value=before]').check();
        await lab.send10();
        await lab.step(2);
        await lab.page.locator('.consumer-card [data-action=crash]').first().click();
        await lab.step(8);
        await check('after the crash');
      });
    });
  }

  it('in flight, handled, delivered twice and never processed each look different, and the legend says so (2)', async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      await lab.send10();
      await lab.step(3);
      const looks = await lab.page.evaluate(() => {
        const look = (selector) => {
          const e = document.querySelector(selector);
          if (!e) return null;
          const style = getComputedStyle(e);
          return {
            background: style.backgroundImage,
            strike: style.textDecorationLine,
            border: style.borderTopStyle,
            mark: getComputedStyle(e, '::before').content,
          };
        };
        return { inFlight: look('.cell.in-flight'), handled: look('.cell.handled:not(.in-flight)') };
      });
      assert.ok(looks.inFlight, 'a record is in a batch after three ticks');
      assert.ok(!looks.inFlight.background.includes('gradient'), `in flight is not hatched: ${JSON.stringify(looks)}`);
      assert.notEqual(looks.inFlight.strike, 'line-through', 'in flight is not struck through');
      assert.equal(looks.inFlight.border, 'dashed');
      assert.notEqual(looks.inFlight.mark, looks.handled.mark, 'a mark in text, not colour alone');
      const legend = await lab.text('.tape-legend');
      for (const words of ['in flight', 'handled', 'delivered twice', 'never processed']) {
        assert.ok(legend.includes(words), `the legend says "${words}": ${legend}`);
      }
    });
  });

  it('keys off at the defaults: a record overtakes within 15 s of play, and its chip says which (3)', { timeout: 60_000 }, async () => {
    await withLab(env, { seed: 1, pause: false }, async (lab) => {
      // Seed 003: "Turn Use keys off and send more: watch the sink flag records that overtake each other."
      await lab.click('[data-field=use-keys]');
      await lab.click('button[data-action=keep-sending]');
      await lab.page.waitForFunction(() => window.offsetlab_view()?.metrics.out_of_key_order > 0, null, {
        timeout: 15_000,
        polling: 250,
      });
      await lab.settle();
      const chip = lab.page.locator('.sink-strip .chip.out-of-order').last();
      assert.match(await chip.getAttribute('title'), /out of key order: handled after user-\d+'s later record P\d·\d+/);
      assert.match(await lab.text('[data-field=overtaken]'), /was handled after P\d·\d+, a record of user-\d+ sent later/);
    });
  });

  it('no control moves the tapes or the counters out of the first screen at 1440 × 900 (4)', async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      const check = async (after) => {
        const [tape] = await rects(lab, '.tape[data-partition="0"]');
        const [counters] = await rects(lab, '.sink .counters');
        assert.ok(tape.top >= 0 && counters.bottom <= 900, `after ${after}: tape ${JSON.stringify(tape)}, counters ${JSON.stringify(counters)}`);
        return tape.top;
      };
      const top = await check('loading');
      const steps = [
        ['unticking Use keys', () => lab.click('[data-field=use-keys]')],
        ['opening Keys and partitioner', () => lab.click('.producer-more summary')],
        ['Keep sending', () => lab.click('button[data-action=keep-sending]')],
        ['a few ticks', () => lab.step(12)],
        ['crashing c1', () => lab.click('[data-consumer=c1] button[data-action=crash]')],
        ['a rebalance', () => lab.step(15)],
        ['adding consumers', async () => {
          for (let i = 0; i < 4; i++) await lab.click('button[data-action=add-consumer]');
        }],
        ['more ticks', () => lab.step(10)],
      ];
      for (const [name, act] of steps) {
        await act();
        assert.equal(await check(name), top, `the tapes stay where they were after ${name}`);
      }
    });
  });

  it('the check speaks only of a chosen experiment, in the counters\' words (5)', { timeout: 90_000 }, async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      // Seed 003's crash experiment in the default run: free play, nothing judged.
      await lab.send10();
      await lab.step(4);
      await lab.click('[data-consumer=c1] button[data-action=crash]');
      await lab.step(20);
      assert.equal(await lab.page.locator('[data-field=outcome]').count(), 0, 'the default run has no check');
      // A chosen experiment: its check, in labels, with plurals right, and no "you" nobody was.
      await lab.click('#delivery [data-try=crash-commit-after]');
      await lab.pauseAtStart();
      const pending = await lab.text('[data-field=outcome]');
      assert.equal(pending, 'Not yet. Duplicates: 0, needs at least 1');
      await lab.click('#delivery [data-scenario=crash-commit-after]');
      await lab.pauseAtStart();
      await lab.step(40);
      const done = await lab.text('[data-field=outcome]');
      assert.match(done, /^✓ Reproduced\. \d+ duplicates?: c1 handled/);
      assert.doesNotMatch(done, /\bYou\b|_/);
      assert.doesNotMatch(done, /\b1 duplicates\b/);
    });
  });

  it('the story and its live check have one place, next to the simulation, from a chapter or the index (6)', async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      for (const start of ['#delivery [data-scenario=crash-commit-after]', '#delivery [data-try=crash-commit-after]', '#experiments [data-jump=keys-keep-order]']) {
        await lab.page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        await lab.click(start);
        await lab.page.waitForFunction(() => document.querySelector('#simulation [data-field=guide]'));
        const [guide] = await rects(lab, '#simulation [data-field=guide]');
        const [outcome] = await rects(lab, '#simulation [data-field=outcome]');
        const [stage] = await rects(lab, '.stage');
        assert.ok(stage.top >= 0 && stage.top < 300, `after ${start} the simulation is in view: ${JSON.stringify(stage)}`);
        assert.ok(guide.top < 900 && outcome.top < 900, `after ${start} the guide and its check start on screen: ${JSON.stringify({ guide, outcome })}`);
        assert.equal(await lab.page.locator('[data-field=outcome]').count(), 1, 'one live check on the page');
      }
    });
  });

  it('the log has a sentence for a broker crash and an election; names match the counters (6)', { timeout: 90_000 }, async () => {
    await withLab(env, { seed: 1, query: '?scenario=acks1-leader-crash&seed=1' }, async (lab) => {
      await lab.pauseAtStart();
      await lab.step(40);
      const feed = await lab.page.locator('.announcer-feed li').allTextContents();
      assert.ok(feed.some((line) => /Broker 1 crashed/.test(line)), feed.join('\n'));
      assert.ok(feed.some((line) => /election .*made broker 2 P0's leader/.test(line)), feed.join('\n'));
      const page = await lab.page.evaluate(() => document.body.innerText);
      assert.doesNotMatch(page, /Acked lost/);
      assert.match(await lab.text('.producer-counters'), /Acknowledged then lost/);
    });
  });

  it('the live --describe sits with the simulation, every column visible at 1440 (7)', async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      await lab.send10();
      await lab.step(5);
      const table = lab.page.locator('#simulation #describe .terminal');
      assert.equal(await table.count(), 1, 'the describe table is in the simulation');
      const { scroll, client, text } = await table.evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth, text: e.textContent }));
      assert.ok(scroll <= client, `no sideways scroll: ${scroll} > ${client}`);
      for (const column of ['PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'CLIENT-ID']) {
        assert.ok(text.includes(column), column);
      }
      const [sink] = await rects(lab, '.sink');
      const [describe] = await rects(lab, '#describe');
      assert.ok(describe.top - sink.bottom < 700, `the table is close under the simulation's counters: ${describe.top - sink.bottom} px`);
    });
  });

  for (const [name, options, cards] of [
    ['390 × 844', { viewport: { width: 390, height: 844 } }, false],
    ['the 800 × 600 embed', { viewport: { width: 800, height: 600 }, query: '?embed=1&seed=1' }, true],
  ]) {
    it(`at ${name} the send controls, the tapes and the key counters share the first screen${cards ? ', with the consumer cards' : ''} (8)`, async () => {
      await withLab(env, { seed: 1, ...options }, async (lab) => {
        await lab.send10();
        await lab.step(6);
        const height = options.viewport.height;
        const screen = { left: 0, right: options.viewport.width, top: 0, bottom: height };
        const visible = async (selector) => {
          const all = await rects(lab, selector);
          assert.ok(all.length > 0, `${selector} is on the page`);
          for (const r of all) assert.ok(inside(r, screen), `${selector} in the first screen: ${JSON.stringify(r)}`);
          // Not hidden under the counters' line either.
          const hit = await lab.page.locator(selector).first().evaluate((e) => {
            const r = e.getBoundingClientRect();
            const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return e.contains(top);
          });
          assert.ok(hit, `${selector} is not covered`);
        };
        await visible('button[data-action=send-10]');
        await visible('.tape[data-partition] .tape-scroll');
        // Each tape's box holds its committed marker or its cursor: what is being read now.
        for (let i = 0; i < 3; i++) await lab.send10();
        await lab.step(12);
        for (const tape of await tapeMarks(lab)) {
          const held = [tape.committed, tape.position].filter((m) => m !== null);
          assert.ok(held.length > 0 && held.some((m) => within(m, tape.box)), `P${tape.partition}'s box shows where it is read: ${JSON.stringify(tape)}`);
        }
        await visible('[data-field=counter-summary]');
        if (cards) await visible('[data-consumer] button[data-action=crash]');
        const view = await lab.view();
        assert.equal(await lab.text('[data-summary=delivered]'), String(view.metrics.delivered));
        assert.equal(await lab.text('[data-summary=duplicates]'), String(view.metrics.duplicates));
      });
    });
  }

  it('smaller defects: labels that covered each other, cut lines, clipped chips, two names for one button (10)', { timeout: 90_000 }, async () => {
    await withLab(env, { seed: 1, query: '?scenario=acks1-leader-crash&seed=1' }, async (lab) => {
      await lab.pauseAtStart();
      await lab.step(16);
      // The high watermark's label and the log end's never cover each other.
      const labels = await lab.page.evaluate(() => {
        const hw = document.querySelector('.high-watermark-label')?.getBoundingClientRect();
        const end = document.querySelector('.log-end-label')?.getBoundingClientRect();
        return hw && end && { hw: [hw.left, hw.right, hw.top, hw.bottom], end: [end.left, end.right, end.top, end.bottom] };
      });
      assert.ok(labels, 'both labels are drawn');
      const [a, b] = [labels.hw, labels.end];
      const overlap = a[0] < b[1] && b[0] < a[1] && a[2] < b[3] && b[2] < a[3];
      assert.ok(!overlap, `HW and end overlap: ${JSON.stringify(labels)}`);
      // What happened: whole entries, none cut by its box.
      const feed = await lab.page.locator('.announcer-feed').evaluate((e) => [e.scrollHeight, e.clientHeight]);
      assert.ok(feed[0] <= feed[1] + 1, `the log's box cuts its entries: ${feed}`);
    });
    await withLab(env, { seed: 1 }, async (lab) => {
      // The poll loop's comments fit its box at 1440.
      await lab.page.locator('[data-field=poll-loop]').scrollIntoViewIfNeeded();
      const cut = await lab.page.evaluate(() =>
        [...document.querySelectorAll('[data-field=poll-loop] .code-comment')]
          .map((c) => [c.textContent, c.getBoundingClientRect().right, c.closest('pre, .code, [data-field=poll-loop]').getBoundingClientRect().right])
          .filter(([, right, box]) => right > box + 1),
      );
      assert.deepEqual(cut, [], 'a comment is cut at the poll loop\'s edge');
      // The sink's oldest chip in view is whole.
      for (let i = 0; i < 6; i++) await lab.send10();
      await lab.step(30);
      const strip = await lab.page.evaluate(() => {
        const strip = document.querySelector('[data-field=sink-strip]').getBoundingClientRect();
        const lefts = [...document.querySelectorAll('[data-field=sink-strip] .chip')]
          .map((c) => c.getBoundingClientRect())
          .filter((r) => r.top < strip.bottom)
          .map((r) => r.left);
        return { left: strip.left, oldest: Math.min(...lefts) };
      });
      assert.ok(strip.oldest >= strip.left, `the first chip is cut at the strip's left: ${JSON.stringify(strip)}`);
      // One name for starting an experiment without the learner's steps.
      const names = await lab.page.locator('.chapters button[data-scenario]').allTextContents();
      assert.ok(names.length > 0 && names.every((n) => n.trim() === 'Watch it'), `buttons named ${[...new Set(names)]}`);
    });
  });
});
