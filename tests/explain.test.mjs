// Explanations on the page: every anomaly mark (a sink chip, a lost or ×2 cell, a counter) opens
// the engine's chain of events in the simulation's explanation place; each step is a button that
// shows the run at its tick and highlights the part it names; Back returns to where the reader
// was. Tested for a duplicate, a never-processed record, an overtaking record and an
// acknowledged-then-lost one, by keyboard too; a watched experiment ends by opening its
// explanation; the Share panel shrinks the run on screen and opens the shrunk run as a link.
// Screenshots of an open explanation go to target/screenshots/ (explain-*.png).

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { axeViolations } from './lib/axe.mjs';
import { useBrowser, withLab } from './lib/page.mjs';
import { REPO_ROOT } from './lib/server.mjs';

const OUT = join(REPO_ROOT, 'target', 'screenshots');
const EXPLANATION = '[data-field=explanation]';

/** Steps one tick at a time until the view's metrics satisfy `done`, at most `max` ticks. */
async function stepUntil(lab, max, done) {
  for (let i = 0; i < max; i++) {
    if (done((await lab.view()).metrics)) return;
    await lab.step(1);
  }
  assert.ok(done((await lab.view()).metrics), `not reached in ${max} ticks`);
}

/** Opens a built-in by name (a docs page's embed link), paused at tick 0. */
function scenario(name, options = {}) {
  return { query: `?scenario=${name}`, ...options };
}

/** The open explanation: its heading and its steps' ticks and parts. */
async function explanation(lab) {
  await lab.need(EXPLANATION);
  return lab.page.evaluate((selector) => {
    const root = document.querySelector(selector);
    return {
      heading: root.querySelector('h2').textContent.trim(),
      steps: [...root.querySelectorAll('button.explain-step')].map((b) => ({
        tick: Number(b.dataset.stepTick),
        part: b.dataset.part,
        text: b.textContent.replace(/\s+/g, ' ').trim(),
      })),
      text: root.textContent.replace(/\s+/g, ' ').trim(),
    };
  }, EXPLANATION);
}

/** Clicks the first step naming `part` (a prefix of data-part); checks the run moved to its
 * tick; returns the step. */
async function showStep(lab, part) {
  const { steps } = await explanation(lab);
  const step = steps.find((s) => s.part.startsWith(part));
  assert.ok(step, `a step names ${part}: ${JSON.stringify(steps)}`);
  await lab.click(`${EXPLANATION} button.explain-step[data-part="${step.part}"][data-step-tick="${step.tick}"]`);
  await lab.page.waitForFunction((t) => window.offsetlab_view()?.tick === t, step.tick);
  assert.equal(
    await lab.page.locator(`${EXPLANATION} button.explain-step[aria-current=step]`).count() >= 1,
    true,
    'the step shown is marked current',
  );
  return step;
}

/** Back to the tick the explanation was asked at. */
async function back(lab, tick) {
  await lab.click('[data-action=back-from-step]');
  await lab.page.waitForFunction((t) => window.offsetlab_view()?.tick === t, tick);
  await lab.need(EXPLANATION);
}

describe('explanations: every anomaly mark opens its chain of events', () => {
  const env = useBrowser();

  it('a duplicate: the ×2 chip opens its chain; a step moves the timeline and highlights the consumer card', { timeout: 180_000 }, async () => {
    await withLab(env, scenario('crash-commit-after'), async (lab) => {
      await lab.pauseAtStart();
      await stepUntil(lab, 80, (m) => m.duplicates >= 1);
      const asked = (await lab.view()).tick;
      await lab.click('.sink-strip .chip.duplicate .chip-why');
      const x = await explanation(lab);
      assert.match(x.heading, /^Why P\d+@\d+ was delivered twice$/);
      assert.match(x.text, /nonmonotonic-poll/, 'Jepsen\'s name for it');
      assert.ok(x.steps.length >= 2, `a chain: ${JSON.stringify(x.steps)}`);
      const ticks = x.steps.map((s) => s.tick);
      assert.deepEqual(ticks, [...ticks].sort((a, b) => a - b), 'in tick order');
      const step = await showStep(lab, 'consumer:');
      const consumer = step.part.split(':')[1];
      await lab.need(`.consumer-card.explained[data-consumer=${consumer}]`);
      assert.equal(await lab.page.locator('.consumer-card.explained').count(), 1, 'one card highlighted');
      assert.equal(await lab.text('[data-field=tick]'), `tick ${step.tick}`);
      // A record step highlights the record's cell, scrolled into its tape's window.
      const record = (await explanation(lab)).steps.find((s) => s.part.startsWith('record:'));
      if (record) {
        await showStep(lab, 'record:');
        const [p, o] = record.part.slice('record:'.length).split('@');
        await lab.need(`.tape[data-partition="${p}"] .cell.explained[data-offset="${o}"]`);
      }
      await back(lab, asked);
      assert.equal(await lab.page.locator('.explained').count(), 0, 'nothing highlighted once back');
      await lab.click('[data-action=close-explanation]');
      assert.equal(await lab.page.locator(EXPLANATION).count(), 0);
    });
  });

  it('a never-processed record: the lost cell and the counter explain it', { timeout: 180_000 }, async () => {
    await withLab(env, scenario('crash-commit-before'), async (lab) => {
      await lab.pauseAtStart();
      await stepUntil(lab, 80, (m) => m.never_processed >= 1);
      const asked = (await lab.view()).tick;
      await lab.click('.cell.lost');
      const x = await explanation(lab);
      assert.match(x.heading, /^Why P\d+@\d+ was never processed$/);
      assert.match(x.text, /poll-skip/);
      assert.ok(x.steps.length >= 2, JSON.stringify(x.steps));
      const commit = x.steps.find((s) => s.part.startsWith('commit:'));
      if (commit) {
        await showStep(lab, 'commit:');
        await lab.need('.marker.committed.explained');
        // The counter was lower then: back to where the reader was.
        await back(lab, asked);
      }
      // The counter: its records, grouped by cause.
      await lab.click('[data-explain-counter=never-processed]');
      const n = (await lab.view()).metrics.never_processed;
      const counter = await explanation(lab);
      assert.equal(counter.heading, `Why Never processed is ${n}`);
      const causes = await lab.page.locator(`${EXPLANATION} .explain-cause h3`).allTextContents();
      assert.ok(causes.length >= 1, 'grouped by cause');
      const total = causes.map((c) => Number(c.match(/: (\d+) records?$/)[1])).reduce((a, b) => a + b, 0);
      assert.equal(total, n, `the causes add up to the counter: ${causes}`);
      await mkdir(OUT, { recursive: true });
      await lab.page.locator(EXPLANATION).screenshot({ path: join(OUT, 'explain-counter-1440-light.png'), animations: 'disabled' });
    });
  });

  it('an overtaking record: the filled chip explains it, its record highlighted', { timeout: 180_000 }, async () => {
    await withLab(env, scenario('no-keys-reorder'), async (lab) => {
      await lab.pauseAtStart();
      await stepUntil(lab, 120, (m) => m.out_of_key_order >= 1);
      await lab.click('.sink-strip .chip.out-of-order .chip-why');
      const x = await explanation(lab);
      assert.match(x.heading, /^Why P\d+@\d+ was out of key order$/);
      assert.ok(x.steps.length >= 2, JSON.stringify(x.steps));
      const step = await showStep(lab, 'record:');
      const [p, o] = step.part.slice('record:'.length).split('@');
      await lab.need(`.tape[data-partition="${p}"] .cell.explained[data-offset="${o}"]`);
    });
  });

  it('an acknowledged-then-lost record: the counter explains the election that cut it', { timeout: 180_000 }, async () => {
    await withLab(env, scenario('acks1-leader-crash'), async (lab) => {
      await lab.pauseAtStart();
      await stepUntil(lab, 120, (m) => m.acked_lost >= 1);
      const n = (await lab.view()).metrics.acked_lost;
      const asked = (await lab.view()).tick;
      await lab.click('[data-explain-counter=acked-lost]');
      const x = await explanation(lab);
      assert.equal(x.heading, `Why Acknowledged then lost is ${n}`);
      assert.match(x.text, /lost-write/);
      assert.ok(x.steps.length >= 2, JSON.stringify(x.steps));
      await showStep(lab, 'topic');
      await lab.need('.broker-strip.explained');
      // The election's mark on the broker strip opens the same explanation (back at the tick asked).
      await back(lab, asked);
      await lab.click('[data-explain-election=acked-lost]');
      assert.equal((await explanation(lab)).heading, `Why Acknowledged then lost is ${n}`);
      // Before the election the record was on the tape: a record step shows it there.
      const record = (await explanation(lab)).steps.find((s) => s.part.startsWith('record:'));
      if (record) {
        await showStep(lab, 'record:');
        const [p, o] = record.part.slice('record:'.length).split('@');
        await lab.need(`.tape[data-partition="${p}"] .cell.explained[data-offset="${o}"]`);
      }
    });
  });

  it('by keyboard: Tab to a counter, Enter opens its explanation, which takes the focus and is announced', { timeout: 180_000 }, async () => {
    await withLab(env, scenario('crash-commit-after'), async (lab) => {
      await lab.pauseAtStart();
      await stepUntil(lab, 80, (m) => m.duplicates >= 1);
      await lab.page.locator('.sink .counter-help summary').focus();
      await lab.page.keyboard.press('Tab');
      assert.equal(await lab.page.evaluate(() => document.activeElement?.dataset.explainCounter), 'duplicates');
      await lab.page.keyboard.press('Enter');
      await lab.settle();
      await lab.page.waitForFunction(() => document.activeElement?.dataset.field === 'explanation');
      const live = await lab.text('[data-field=explanation-live]');
      assert.match(live, /^Why Duplicates is \d+$/);
      // Tab reaches its steps; Enter on one shows its tick.
      await lab.page.keyboard.press('Tab');
      await lab.page.keyboard.press('Tab');
      let tag = await lab.page.evaluate(() => document.activeElement?.className);
      for (let i = 0; i < 6 && tag !== 'explain-step'; i++) {
        await lab.page.keyboard.press('Tab');
        tag = await lab.page.evaluate(() => document.activeElement?.className);
      }
      assert.equal(tag, 'explain-step', 'a step is reachable by Tab');
      const tick = await lab.page.evaluate(() => Number(document.activeElement.dataset.stepTick));
      await lab.page.keyboard.press('Enter');
      await lab.page.waitForFunction((t) => window.offsetlab_view()?.tick === t, tick);
      // Escape closes it.
      await lab.page.locator(EXPLANATION).focus();
      await lab.page.keyboard.press('Escape');
      await lab.settle();
      assert.equal(await lab.page.locator(EXPLANATION).count(), 0);
    });
  });

  it('a chapter\'s Watch it ends by opening the explanation of its anomaly', { timeout: 180_000 }, async () => {
    await withLab(env, { seed: 1, pause: false }, async (lab) => {
      await lab.click('button[data-scenario=crash-commit-after]');
      await lab.page.selectOption('[data-field=speed], select[data-action=speed]', '60').catch(() => {});
      await lab.page.waitForSelector(EXPLANATION, { timeout: 90_000 });
      const x = await explanation(lab);
      assert.match(x.heading, /^Why Duplicates is \d+$/);
      assert.equal(await lab.page.evaluate(() => document.querySelector('[data-field=outcome]')?.dataset.reproduced), 'true');
      // The running card's link opens it again once closed.
      await lab.pause();
      await lab.click('[data-action=close-explanation]');
      await lab.click('#x-crash-commit-after a.watch-it');
      await lab.need(EXPLANATION);
    });
  });

  it('Share shrinks the run on screen and opens the shrunk run as a link', { timeout: 180_000 }, async () => {
    await withLab(env, scenario('crash-commit-after'), async (lab) => {
      await lab.pauseAtStart();
      await stepUntil(lab, 80, (m) => m.duplicates >= 1);
      await lab.openPanel('share');
      await lab.click('[data-action=shrink][data-counter=duplicates]');
      const found = await lab.text('[data-field=shrunk]');
      assert.match(found, /^Shrunk to \d+ of \d+ inputs and \d+ of \d+ ticks, with Duplicates still \d+\. It tried \d+ runs/);
      const href = await lab.page.locator('[data-field=shrunk-link]').getAttribute('href');
      assert.match(href, /[?&]j=/, 'the shrunk scenario travels in the link');
      await mkdir(OUT, { recursive: true });
      await lab.page.locator('section.share').screenshot({ path: join(OUT, 'explain-shrunk-1440-light.png'), animations: 'disabled' });
      const shrunk = await lab.context.newPage();
      await shrunk.goto(href);
      await shrunk.waitForFunction(() => window.offsetlab_view?.()?.metrics.duplicates >= 1, null, { timeout: 30_000 });
    });
  });

  const shots = [
    { name: '1440', viewport: { width: 1440, height: 900 } },
    { name: '390', viewport: { width: 390, height: 844 } },
    { name: 'embed-800', viewport: { width: 800, height: 600 }, embed: true },
  ];
  for (const shot of shots) {
    for (const colorScheme of ['light', 'dark']) {
      it(`screenshot: an open explanation at ${shot.name} ${colorScheme}`, { timeout: 180_000 }, async () => {
        const query = shot.embed ? '?embed=1&scenario=crash-commit-after' : '?scenario=crash-commit-after';
        await withLab(env, { query, viewport: shot.viewport, colorScheme }, async (lab) => {
          await lab.pauseAtStart();
          await stepUntil(lab, 80, (m) => m.duplicates >= 1);
          await lab.click('.sink-strip .chip.duplicate .chip-why');
          await showStep(lab, 'consumer:');
          await mkdir(OUT, { recursive: true });
          // The step's part is brought into view, highlighted.
          await lab.need('.consumer-card.explained');
          assert.ok(await lab.page.locator('.consumer-card.explained').isVisible());
          await lab.page.screenshot({ path: join(OUT, `explain-${shot.name}-${colorScheme}-step.png`), animations: 'disabled' });
          if (shot.name === '390') {
            // The way back down to the steps, on a narrow screen.
            await lab.click('[data-action=to-explanation]');
            assert.equal(await lab.page.evaluate(() => document.activeElement?.getAttribute('aria-current')), 'step');
          }
          if (shot.name === '1440') assert.deepEqual(await axeViolations(lab), [], 'an open explanation');
          await lab.page.locator(EXPLANATION).scrollIntoViewIfNeeded();
          await lab.settle();
          assert.equal(await lab.page.locator('[data-action=to-explanation]').count(), 0, 'no way back while the steps are in view');
          await lab.page.screenshot({ path: join(OUT, `explain-${shot.name}-${colorScheme}.png`), animations: 'disabled' });
          // Nothing in it is cut at the right edge.
          const overflow = await lab.page.evaluate((s) => {
            const root = document.querySelector(s);
            return [...root.querySelectorAll('*')].some((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1);
          }, EXPLANATION);
          assert.equal(overflow, false, 'the explanation fits the width');
        });
      });
    }
  }
});
