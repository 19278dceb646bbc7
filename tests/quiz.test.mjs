// The quiz: each question has exactly one right choice; a wrong answer says "Not quite", the
// right one "Correct"; "Show me" loads the scenario that demonstrates the answer.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';

// Quoted: an unquoted attribute value cannot start with a digit in CSS.
const question = (q) => `[data-question="${q}"]`;

/** The question's feedback: inside the question, else the page's q-th [data-field=feedback]. */
async function feedback(lab, q) {
  const inside = lab.page.locator(`${question(q)} [data-field=feedback]`);
  const element = (await inside.count()) > 0 ? inside.first() : lab.page.locator('[data-field=feedback]').nth(q);
  return element.evaluate((e) => window.__spoken(e));
}

async function choose(lab, q, choice) {
  await lab.click(`${question(q)} button[data-choice="${choice}"]`);
  const pressed = await lab.page
    .locator(`${question(q)} button[data-choice]`)
    .evaluateAll((buttons) => buttons.map((b) => [b.dataset.choice, b.getAttribute('aria-pressed')]));
  for (const [c, value] of pressed) {
    assert.equal(value, c === String(choice) ? 'true' : 'false', `question ${q} choice ${c} aria-pressed`);
  }
  return feedback(lab, q);
}

/** Tries every choice; returns { right, wrong: [...], texts }. Exactly one must be right. */
async function explore(lab, q) {
  await lab.need(`${question(q)} button[data-choice]`);
  const texts = await lab.page
    .locator(`${question(q)} button[data-choice]`)
    .evaluateAll((buttons) => buttons.map((b) => [b.dataset.choice, window.__spoken(b)]));
  assert.ok(texts.length >= 2, `question ${q} offers at least two choices`);
  const right = [];
  const wrong = [];
  for (const [choice] of texts) {
    const said = await choose(lab, q, choice);
    if (said.startsWith('Correct')) right.push(choice);
    else if (said.startsWith('Not quite')) wrong.push(choice);
    else assert.fail(`question ${q} choice ${choice}: feedback ${JSON.stringify(said)} is neither "Correct" nor "Not quite"`);
  }
  assert.equal(right.length, 1, `question ${q} has exactly one right choice`);
  return { right: right[0], wrong, texts: Object.fromEntries(texts) };
}

describe('quiz', () => {
  const env = useBrowser();

  it('answers both questions wrong, then right', { timeout: 60_000 }, async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      await lab.need(question(0));
      await lab.need(question(1));
      const start = await lab.view();
      for (const q of [0, 1]) {
        const { right, wrong, texts } = await explore(lab, q);
        // A choice says what, not why: no label carries its own reason.
        for (const text of Object.values(texts)) assert.doesNotMatch(text, /[:;]|because/, `question ${q}'s choice "${text}" gives its reason`);
        assert.match(await choose(lab, q, wrong[0]), /^Not quite/);
        // A wrong answer shows which one is right, in words.
        assert.equal(await lab.page.getAttribute(`${question(q)} button[data-choice="${right}"]`, 'data-verdict'), 'right');
        assert.match(await lab.text(`${question(q)} button[data-choice="${right}"]`), /the right answer/);
        assert.equal(await lab.page.getAttribute(`${question(q)} button[data-choice="${wrong[0]}"]`, 'data-verdict'), 'wrong');
        assert.match(await choose(lab, q, right), /^Correct/);
        if (q === 0) {
          // Six partitions, eight consumers: six consume at once.
          assert.match(texts[right], /\b6\b|\bsix\b/i, `the right answer to question 0 is six: ${texts[right]}`);
        }
      }
      // Answering does not touch the simulation.
      assert.deepEqual(await lab.view(), start);
    });
  });

  it('"Show me" loads six partitions and eight consumers for question 0', { timeout: 60_000 }, async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      // "Show me" may appear only once the question is answered.
      await choose(lab, 0, 0);
      await lab.need('button[data-action=show-me]');
      const inside = lab.page.locator(`${question(0)} button[data-action=show-me]`);
      const showMe = (await inside.count()) > 0 ? inside.first() : lab.page.locator('button[data-action=show-me]').first();
      await showMe.click();
      await lab.page.waitForFunction(() => {
        const view = window.offsetlab_view();
        return view?.partitions.length === 6 && view.consumers.length === 8;
      });
      await lab.pause();
      await lab.step(2);
      const view = await lab.view();
      assert.equal(view.partitions.length, 6);
      assert.equal(view.consumers.length, 8);
      const distinct = (attribute) =>
        lab.page.evaluate(
          (a) => [...new Set([...document.querySelectorAll(`[${a}]`)].map((e) => e.getAttribute(a)))].sort(),
          attribute,
        );
      assert.deepEqual(await distinct('data-partition'), ['0', '1', '2', '3', '4', '5'], 'six tapes');
      assert.deepEqual(await distinct('data-consumer'), ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'], 'eight cards');
      const counters = await lab.counters();
      assert.equal(counters['active-consumers'], 6);
      const spares = view.consumers.filter((c) => c.idle_spare).map((c) => c.id);
      assert.equal(spares.length, 2, `two idle spares: ${spares}`);
      for (const id of spares) assert.equal(await lab.consumerState(id), 'idle spare');
    });
  });
});
