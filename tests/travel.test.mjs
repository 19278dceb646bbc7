// Shared links, the timeline, embeds and scenario JSON, in the release page.
// A link opened in a fresh context must show exactly the moment it was taken at; a changed one
// is refused with a message; the timeline replays the past exactly and an input there forks it;
// embeds on one docs page run independently; exported JSON imports back.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WAIT_MS, useBrowser, withLab } from './lib/page.mjs';
import { DIST, serve } from './lib/server.mjs';
import {
  LINK_REFUSED,
  assertSameMoment,
  clickTo,
  hostPage,
  queryOf,
  runningScenario,
  seek,
  sharedLink,
  snapshot,
  status,
  timeline,
  withLink,
} from './lib/travel.mjs';

const CRASH_C1 = '[data-consumer=c1] [data-action=crash]';

/** Waits until the status line starts with `prefix`; returns its text. */
async function statusStartingWith(lab, prefix) {
  try {
    await lab.page.waitForFunction(
      (p) => (document.querySelector('.status[role=status] p')?.textContent ?? '').startsWith(p),
      prefix,
      { timeout: 5_000 },
    );
  } catch {
    assert.fail(`the status line reads ${JSON.stringify(await status(lab))}, expected ${JSON.stringify(prefix)}…`);
  }
  return status(lab);
}

/** The page still works: paused, Step moves the view (and the tick text) one tick. */
async function stepWorks(lab) {
  await lab.pause();
  const { tick } = await lab.view();
  await lab.step(1);
  assert.equal((await lab.view()).tick, tick + 1, 'Step advances one tick');
}

/** Changes one character of a parameter's value (a digit to another digit, else a letter). */
function tamper(url, param) {
  const u = new URL(url);
  const value = u.searchParams.get(param);
  assert.ok(value, `the link has ${param}=: ${url}`);
  const i = [...value].findIndex((c) => /\d/.test(c));
  const at = i >= 0 ? i : 0;
  const c = value[at];
  const swapped = /\d/.test(c) ? String((Number(c) + 1) % 10) : c === 'x' ? 'y' : 'x';
  u.searchParams.set(param, value.slice(0, at) + swapped + value.slice(at + 1));
  return u.toString();
}

describe('Shared links, time travel, embeds, scenario JSON', () => {
  const env = useBrowser();

  it('a link opened in a fresh browser shows the same moment', { timeout: 120_000 }, async (t) => {
    await withLab(env, { seed: 5 }, async (lab) => {
      await lab.send10();
      await lab.step(4);
      await lab.click(CRASH_C1);
      assert.equal(await lab.consumerState('c1'), 'crashed');
      await lab.step(13);
      const here = await snapshot(lab);
      assert.ok(here.counters.generation >= 2, 'the crash led to a rebalance before the link was taken');
      const url = await sharedLink(lab);
      t.diagnostic(url);
      const params = new URL(url).searchParams;
      assert.equal(params.get('seed'), '5');
      assert.equal(params.get('t'), String(here.tick));
      assert.match(params.get('in') ?? '', /send\.10.*crash\.c1/, 'the inputs by hand are in the link');
      assert.match(params.get('h') ?? '', /^[0-9a-z]+$/, 'a checksum');

      await withLink(env, url, async (opened) => {
        assert.equal(await opened.text('[data-field=clock]'), 'paused', 'a shared run opens paused');
        assertSameMoment(await snapshot(opened), here, 'the opened link');
        assert.equal(await status(opened), '', 'no message for a good link');
        assert.equal(await sharedLink(opened), url, 'the opened page keeps the same link');
        // And it goes on like the original.
        await opened.step(5);
        await lab.step(5);
        assertSameMoment(await snapshot(opened), await snapshot(lab), 'five ticks later');
      });
    });
  });

  it('a changed, cut or garbage link is refused with a message and the page still works', { timeout: 120_000 }, async (t) => {
    let url;
    await withLab(env, { seed: 5 }, async (lab) => {
      await lab.send10();
      await lab.step(3);
      await lab.click(CRASH_C1);
      await lab.step(2);
      url = await sharedLink(lab);
    });
    const bad = [
      ['in= changed', tamper(url, 'in')],
      ['seed= changed', tamper(url, 'seed')],
      ['cut short', url.slice(0, url.length - 3)],
    ];
    for (const [what, link] of bad) {
      t.diagnostic(`${what}: ${queryOf(link)}`);
      assert.notEqual(link, url);
      await withLink(
        env,
        link,
        async (lab) => {
          const message = await statusStartingWith(lab, LINK_REFUSED);
          assert.match(message, /changed or cut short/, `${what}: ${message}`);
          assert.equal(await runningScenario(lab), 'default', `${what}: the default scenario runs`);
          assert.equal(await lab.text('[data-field=clock]'), 'playing', `${what}: and plays`);
          await lab.page.waitForFunction(() => window.offsetlab_view().tick >= 2);
          await stepWorks(lab);
        },
        { pause: false },
      );
    }
    for (const query of ['?s=%%%&in=zzz', '?h=&s=&seed=&t=&in=', '?scenario=nope', '?j=!!!&h=x', '?s=default&t=99999999999999999999999']) {
      t.diagnostic(`garbage: ${query}`);
      await withLink(
        env,
        `http://x/${query}`,
        async (lab) => {
          const message = await status(lab);
          assert.ok(message.startsWith(LINK_REFUSED), `${query}: the status line reads ${JSON.stringify(message)}`);
          assert.equal(await runningScenario(lab), 'default', `${query}: the default scenario runs`);
          await stepWorks(lab);
        },
        { pause: false },
      );
    }
  });

  it('the timeline shows the past exactly, and an input there forks it', { timeout: 180_000 }, async (t) => {
    await withLab(env, { seed: 9 }, async (lab) => {
      await lab.send10();
      const seen = new Map();
      while ((await lab.view()).tick < 60) {
        await lab.step(1);
        const { tick } = await lab.view();
        if (tick === 19 || tick === 20 || tick === 50) seen.set(tick, await snapshot(lab));
      }
      assert.deepEqual([...seen.keys()], [19, 20, 50]);
      // Playing, then dragging back: seeking pauses the clock.
      await lab.click('button[data-action=play]');
      await lab.page.waitForFunction(() => window.offsetlab_view().tick >= 63);
      assert.equal(await lab.text('[data-field=clock]'), 'playing');
      await seek(lab, 20);
      await lab.waitForText('[data-field=clock]', 'paused');
      const head = (await timeline(lab)).max;
      t.diagnostic(`furthest tick ${head}`);
      assert.ok(head >= 63, `the timeline reaches ${head}`);
      assert.deepEqual(await timeline(lab), { value: 20, max: head });
      await lab.need('[data-field=timeline-note]');
      assertSameMoment(await snapshot(lab), seen.get(20), 'tick 20 seen again');

      const at20 = await sharedLink(lab);
      assert.equal(new URL(at20).searchParams.get('t'), '20');
      await withLink(env, at20, async (opened) => {
        assertSameMoment(await snapshot(opened), seen.get(20), 'a fresh open of the link at tick 20');
      });

      await clickTo(lab, 'button[data-action=step-back]', 19);
      assert.deepEqual(await timeline(lab), { value: 19, max: head });
      assertSameMoment(await snapshot(lab), seen.get(19), 'one tick back');
      await clickTo(lab, 'button[data-action=step-forward]', 20);
      assert.deepEqual(await timeline(lab), { value: 20, max: head });
      assertSameMoment(await snapshot(lab), seen.get(20), 'one tick forward again');
      await clickTo(lab, 'button[data-action=to-now]', head);
      assert.deepEqual(await timeline(lab), { value: head, max: head });
      assert.equal(await lab.page.locator('[data-field=timeline-note]').count(), 0, 'no note at the present');
      await seek(lab, 20);

      // Crash c1 in the past: the future after tick 20 is discarded.
      assert.equal(await lab.consumerState('c1'), 'running');
      await lab.click(CRASH_C1);
      assert.equal(await lab.consumerState('c1'), 'crashed');
      assert.deepEqual(await timeline(lab), { value: 20, max: 20 }, 'the fork is the new present');
      assert.equal(await lab.page.locator('[data-field=timeline-note]').count(), 0);
      const announced = await lab.text('[data-field=announcer]');
      assert.match(announced, /^Changed the past at tick 20/, `the announcer reads ${JSON.stringify(announced)}`);

      await lab.step(30);
      assert.deepEqual(await timeline(lab), { value: 50, max: 50 });
      const forked = await snapshot(lab);
      const original = seen.get(50);
      assert.notDeepEqual(forked.view.metrics, original.view.metrics, 'the new future differs from the old');
      assert.notEqual(
        forked.view.consumers.find((c) => c.id === 'c1').state,
        original.view.consumers.find((c) => c.id === 'c1').state,
      );
      const url = await sharedLink(lab);
      assert.match(new URL(url).searchParams.get('in') ?? '', /crash\.c1/);
      await withLink(env, url, async (opened) => {
        assertSameMoment(await snapshot(opened), forked, 'a fresh open of the forked run');
      });
    });
  });

  it('two embeds on one docs page run independently and fit a phone', { timeout: 120_000 }, async (t) => {
    const names = ['crash-commit-after', 'keys-keep-order'];
    // The page hosted below a site's root, as the README's snippet has it, and a docs page on
    // another origin embedding it twice.
    const site = await serve(DIST, { base: '/offsetlab/' });
    const host = await hostPage(
      `${site.url}/offsetlab`,
      names.map((name) => `?embed=1&scenario=${name}`),
    );
    const context = await env.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
    const errors = [];
    try {
      const page = await context.newPage();
      page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
      page.on('console', (m) => m.type() === 'error' && errors.push(`console.error: ${m.text()}`));
      await page.goto(host.url);
      const frames = [];
      for (let i = 0; i < names.length; i++) {
        const element = page.locator(`#embed-${i + 1}`);
        await element.scrollIntoViewIfNeeded();
        const frame = await (await element.elementHandle()).contentFrame();
        assert.ok(frame, `iframe ${i + 1} has a frame`);
        try {
          await frame.waitForFunction(
            () => typeof window.offsetlab_view === 'function' && window.offsetlab_view() !== null,
            null,
            { timeout: WAIT_MS },
          );
        } catch {
          assert.fail(`the embed at ${frame.url()} did not start (its wasm and js load relative to it?)`);
        }
        frames.push(frame);
      }
      const viewOf = (frame) => frame.evaluate(() => window.offsetlab_view());
      for (const [i, frame] of frames.entries()) {
        const main = frame.locator('main.page.embed[data-embed=true]');
        assert.equal(await main.count(), 1, `${names[i]}: main.page.embed`);
        assert.equal(await frame.locator('[data-field=guide] h2 code').textContent(), names[i]);
        for (const present of ['[data-field=clock]', '.status[role=status]', '[data-field=timeline]', 'button[data-action=send-10]', '.tape[data-partition]', '[data-consumer=c1]', '[data-counter=delivered]', '[data-field=guide]', 'a[data-field=open-full]']) {
          assert.ok((await frame.locator(present).count()) > 0, `${names[i]}: has ${present}`);
        }
        for (const absent of ['.intro', '.explainer', 'input[name=commit]', '[data-field=share-link]', '.share', '.skip-link']) {
          assert.equal(await frame.locator(absent).count(), 0, `${names[i]}: has no ${absent}`);
        }
        const full = await frame.locator('a[data-field=open-full]').getAttribute('href');
        assert.equal(new URL(full).searchParams.get('s'), names[i], `open-full: ${full}`);
        assert.equal(new URL(full).pathname, '/offsetlab/', `open-full stays where the page is: ${full}`);
      }
      const [a, b] = frames;
      // Each runs its own scenario's seed (crash-commit-after: 4, keys-keep-order: 7).
      assert.deepEqual([(await viewOf(a)).seed, (await viewOf(b)).seed], [4, 7]);
      const clock = (frame) => frame.locator('[data-field=clock]').textContent();
      const pause = async (frame) => {
        if ((await clock(frame)).trim() === 'playing') await frame.locator('button[data-action=play]').click();
        await frame.waitForFunction(() => document.querySelector('[data-field=clock]').textContent.trim() === 'paused');
      };
      // Chromium stops animation frames in cross-origin iframes out of view, and the phone-sized
      // viewport shows one embed at a time: scroll to the one whose clock should run.
      const show = (frame) => page.locator(`#embed-${frames.indexOf(frame) + 1}`).scrollIntoViewIfNeeded();
      // A link that only names a scenario plays it: both clocks run.
      for (const frame of frames) {
        await show(frame);
        await frame.waitForFunction(() => window.offsetlab_view().tick >= 2);
      }
      assert.deepEqual([(await clock(a)).trim(), (await clock(b)).trim()], ['playing', 'playing']);
      await pause(a);
      await show(b);
      const bTick = (await viewOf(b)).tick;
      await b.waitForFunction((n) => window.offsetlab_view().tick > n, bTick);
      assert.equal((await clock(b)).trim(), 'playing', 'pausing one embed leaves the other playing');
      await pause(b);
      const bBefore = await viewOf(b);
      const aPaused = await viewOf(a);
      for (let i = 0; i < 3; i++) {
        const { tick } = await viewOf(a);
        await a.locator('button[data-action=step]').click();
        await a.waitForFunction((n) => window.offsetlab_view().tick === n + 1, tick);
      }
      // The script crashed c1 at tick 3; crash c2 by hand.
      await a.locator('[data-consumer=c2] [data-action=crash]').click();
      await a.waitForFunction(() => window.offsetlab_view().consumers.every((c) => c.state === 'crashed'));
      const aAfter = await viewOf(a);
      assert.equal(aAfter.tick, aPaused.tick + 3);
      assert.deepEqual(await viewOf(b), bBefore, 'acting in one embed leaves the other alone');
      // Playing the second leaves the first where it is.
      await b.locator('button[data-action=play]').click();
      await b.waitForFunction((n) => window.offsetlab_view().tick >= n + 5, bBefore.tick);
      assert.deepEqual(await viewOf(a), aAfter, 'the other embed playing leaves this one alone');
      assert.equal((await clock(a)).trim(), 'paused');
      await pause(b);
      // Embeds keep their own address (they never rewrite it).
      assert.equal(new URL(a.url()).search, `?embed=1&scenario=${names[0]}`);

      const fits = (where) =>
        where.evaluate(() => ({
          scroll: document.scrollingElement.scrollWidth,
          client: document.scrollingElement.clientWidth,
        }));
      const page0 = await fits(page);
      t.diagnostic(`host ${JSON.stringify(page0)}`);
      assert.ok(page0.scroll <= page0.client, `the host page scrolls sideways: ${JSON.stringify(page0)}`);
      for (const [i, frame] of frames.entries()) {
        const size = await fits(frame);
        assert.ok(size.client > 300 && size.client <= 390, `${names[i]}: the frame is phone-wide: ${JSON.stringify(size)}`);
        assert.ok(size.scroll <= size.client, `${names[i]} scrolls sideways in its frame: ${JSON.stringify(size)}`);
      }
    } finally {
      await context.close();
      await host.close();
      await site.close();
    }
    assert.deepEqual(errors, [], 'the pages reported errors');
  });

  it('exported JSON imports back into the same run; bad JSON is refused with its place', { timeout: 120_000 }, async (t) => {
    await withLab(env, { seed: 3 }, async (lab) => {
      await lab.click('button[data-scenario=crash-commit-after]');
      await lab.pause();
      assert.equal(await runningScenario(lab), 'crash-commit-after');
      const start = (await lab.view()).tick;
      await lab.step(12);
      const exportedAt = await snapshot(lab);
      await lab.openPanel('share');
      await lab.click('details.share-json > summary');
      await lab.click('button[data-action=export]');
      await lab.need('textarea[data-field=export-json]');
      const json = await lab.page.inputValue('textarea[data-field=export-json]');
      const scenario = JSON.parse(json);
      assert.equal(scenario.name, 'crash-commit-after');
      assert.equal(scenario.config.seed, 4);
      const download = lab.page.locator('details.share-json a.download');
      assert.equal(await download.getAttribute('download'), 'crash-commit-after.json');
      assert.equal(decodeURIComponent((await download.getAttribute('href')).replace(/^data:[^,]*,/, '')), json);

      // Import it back, unchanged: the same scenario from tick 0, and the same run.
      await lab.page.locator('textarea[data-field=import-json]').fill(json);
      await lab.click('button[data-action=import]');
      assert.equal(await statusStartingWith(lab, 'Imported'), 'Imported crash-commit-after.');
      assert.equal(await runningScenario(lab), 'crash-commit-after');
      await lab.pause();
      const afterImport = (await lab.view()).tick;
      t.diagnostic(`exported at tick ${exportedAt.tick} (started at ${start}); imported run at tick ${afterImport}`);
      assert.ok(afterImport < exportedAt.tick, 'the import starts again');
      await lab.step(exportedAt.tick - afterImport);
      assert.deepEqual((await lab.view()).metrics, exportedAt.view.metrics, 'the imported run plays the same');
      assert.deepEqual(await lab.counters(), exportedAt.counters);

      // A file works the same way.
      const renamed = JSON.stringify({ ...scenario, name: 'my-own-run' });
      await lab.page.locator('input[type=file][data-field=import-file]').setInputFiles({
        name: 'my-own-run.json',
        mimeType: 'application/json',
        buffer: Buffer.from(renamed),
      });
      assert.equal(await statusStartingWith(lab, 'Imported'), 'Imported my-own-run.');
      assert.equal(await runningScenario(lab), 'my-own-run');

      // Bad JSON: refused, naming the path, line and column; the run goes on.
      const bad = json.replace(/"partitions": 3/, '"partitions": "three"');
      assert.notEqual(bad, json, 'the export has "partitions": 3');
      await lab.page.locator('textarea[data-field=import-json]').fill(bad);
      await lab.click('button[data-action=import]');
      const refused = await statusStartingWith(lab, 'Import refused:');
      t.diagnostic(refused);
      assert.match(refused, /^Import refused: config\.partitions: .+ \(line \d+, column \d+\)$/);
      assert.equal(await runningScenario(lab), 'my-own-run', 'a refused import changes nothing');
      await lab.page.locator('textarea[data-field=import-json]').fill('{ "name": ');
      await lab.click('button[data-action=import]');
      assert.match(await statusStartingWith(lab, 'Import refused:'), /\(line 1, column \d+\)$/);
      await stepWorks(lab);
    });
  });
});
