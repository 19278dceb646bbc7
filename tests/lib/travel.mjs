// Helpers for the timeline, shared links and embeds (travel.test.mjs).

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WAIT_MS, openLab } from './page.mjs';
import { serve } from './server.mjs';

/** The status line's text when a link was refused starts with this. */
export const LINK_REFUSED = 'This link could not be opened:';

/**
 * Everything a shared link must reproduce: the view, the sink counters (each checked against
 * the view), every tape cell's offset and text, and the describe output.
 */
export async function snapshot(lab) {
  await lab.settle();
  const counters = await lab.counters();
  const view = await lab.view();
  const tapes = await lab.page.$$eval('.tape[data-partition]', (tapes) =>
    tapes.map((tape) => ({
      partition: tape.dataset.partition,
      cells: [...tape.querySelectorAll('[data-offset]')].map((cell) => [
        cell.dataset.offset,
        cell.textContent.replace(/\s+/g, ' ').trim(),
      ]),
    })),
  );
  assert.ok(tapes.length > 0, 'the page shows tapes');
  const describe = await lab.page.locator('.describe pre.terminal').textContent();
  return { tick: view.tick, counters, view, tapes, describe };
}

/** Asserts two snapshots show the same moment; `what` names the comparison. */
export function assertSameMoment(actual, expected, what) {
  assert.equal(actual.tick, expected.tick, `${what}: tick`);
  assert.deepEqual(actual.counters, expected.counters, `${what}: counters`);
  assert.deepEqual(actual.view.metrics, expected.view.metrics, `${what}: view.metrics`);
  assert.deepEqual(actual.view, expected.view, `${what}: the whole view`);
  assert.deepEqual(actual.tapes, expected.tapes, `${what}: tape cells`);
  assert.equal(actual.describe, expected.describe, `${what}: describe output`);
}

/** The share panel's link, once the URL bar agrees with it (replaceState runs in an effect). */
export async function sharedLink(lab) {
  await lab.openPanel('share');
  await lab.need('input[data-field=share-link]');
  try {
    await lab.page.waitForFunction(
      () => document.querySelector('input[data-field=share-link]').value === location.href,
      null,
      { timeout: 5_000 },
    );
  } catch {
    assert.equal(
      lab.page.url(),
      await lab.page.inputValue('input[data-field=share-link]'),
      'the URL bar and the share link disagree',
    );
  }
  return lab.page.url();
}

/** The query part of a URL, with its "?". */
export function queryOf(url) {
  return new URL(url).search;
}

/** Opens `url`'s query in a fresh context (nothing shared with the page that made it). */
export function openLink(env, url, options = {}) {
  return openLab(env, { ...options, query: queryOf(url) });
}

/** Runs `body` on a fresh lab at `url`, closing it (and failing on page errors) afterwards. */
export async function withLink(env, url, body, options = {}) {
  const lab = await openLink(env, url, options);
  try {
    return await body(lab);
  } finally {
    await lab.close();
  }
}

/** The timeline's tick shown and furthest tick, from the range input, checked against the text. */
export async function timeline(lab) {
  await lab.settle();
  const range = lab.page.locator('input[type=range][data-field=timeline]');
  await lab.need('input[type=range][data-field=timeline]');
  const value = Number(await range.inputValue());
  const max = Number(await range.getAttribute('max'));
  assert.equal(await range.getAttribute('min'), '0');
  assert.equal(await lab.text('[data-field=timeline-position]'), `tick ${value} of ${max}`);
  assert.equal((await lab.view()).tick, value, 'the range shows the view tick');
  return { value, max };
}

/** Drags the timeline to `tick` (sets the range's value and fires input), waits for that tick. */
export async function seek(lab, tick) {
  await lab.need('input[type=range][data-field=timeline]');
  await lab.page.locator('input[type=range][data-field=timeline]').fill(String(tick));
  try {
    await lab.page.waitForFunction((t) => window.offsetlab_view()?.tick === t, tick, { timeout: WAIT_MS });
  } catch {
    assert.fail(`seeking to ${tick} shows tick ${(await lab.view()).tick}`);
  }
  await lab.settle();
}

/** Clicks a timeline button and waits for the view to show `tick`. */
export async function clickTo(lab, selector, tick) {
  await lab.click(selector);
  try {
    await lab.page.waitForFunction((t) => window.offsetlab_view()?.tick === t, tick, { timeout: WAIT_MS });
  } catch {
    assert.fail(`${selector} shows tick ${(await lab.view()).tick}, expected ${tick}`);
  }
  await lab.settle();
}

/** The status line's text ('' when empty). */
export async function status(lab) {
  await lab.need('.status[role=status]');
  return (await lab.page.locator('.status[role=status] p').allTextContents()).join(' ').trim();
}

/** The name of the scenario the guide panel shows as running. */
export async function runningScenario(lab) {
  return lab.text('[data-field=guide] h2 code');
}

/**
 * A docs-site page in its own temp dir, served by its own server (another origin than the
 * page's): `frames` iframes, each `src` the page's URL with that query. Resolves to
 * { url, close() }.
 */
export async function hostPage(pageUrl, queries) {
  const dir = await mkdtemp(join(tmpdir(), 'offsetlab-host-'));
  const frames = queries
    .map(
      (query, i) =>
        `<h2>Embed ${i + 1}</h2>\n<iframe id="embed-${i + 1}" src="${pageUrl}/${query}" ` +
        `title="offsetlab embed ${i + 1}" style="width:100%;height:720px;border:0" loading="lazy"></iframe>`,
    )
    .join('\n');
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Docs with offsetlab embeds</title></head>
<body>
<h1>Consumer groups, by example</h1>
<p>Two simulations below run independently.</p>
${frames}
</body>
</html>
`;
  await writeFile(join(dir, 'index.html'), html);
  const server = await serve(dir);
  return {
    url: `${server.url}/`,
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
