// Full-page screenshots at desktop and phone widths, light and dark, and the 800 × 600 embed's
// first screen, into target/screenshots/;
// no horizontal page scroll at 390 px; reduced motion turns transitions off.

import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';
import { openBusyGroup, playFastest } from './lib/scale.mjs';
import { REPO_ROOT } from './lib/server.mjs';

const OUT = join(REPO_ROOT, 'target', 'screenshots');

/** A page with some history: 20 records sent, 12 ticks stepped. */
async function busy(lab) {
  await lab.send10();
  await lab.send10();
  await lab.step(12);
}

async function shoot(lab, name) {
  await mkdir(OUT, { recursive: true });
  const path = join(OUT, name);
  await lab.page.screenshot({ path, fullPage: true, animations: 'disabled' });
  return path;
}

/** Seconds, from a computed `transition-duration` list such as "0.2s, 150ms". */
function seconds(list) {
  return list.split(',').map((d) => {
    const v = d.trim();
    return v.endsWith('ms') ? parseFloat(v) / 1000 : parseFloat(v);
  });
}

describe('screenshots and layout', () => {
  const env = useBrowser();

  it('1440 px wide', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: 1, viewport: { width: 1440, height: 900 } }, async (lab) => {
      await busy(lab);
      await shoot(lab, 'page-1440.png');
      const overflow = await lab.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(overflow <= 1440 + 1, `page scrolls sideways at 1440: scrollWidth ${overflow}`);
    });
  });

  // The 800 × 600 embed, light and dark: its first screen (what a docs page shows) and no
  // sideways scroll.
  for (const colorScheme of ['light', 'dark']) {
    it(`the 800 × 600 embed, ${colorScheme}`, { timeout: 120_000 }, async () => {
      const viewport = { width: 800, height: 600 };
      await withLab(env, { query: '?embed=1&seed=1', viewport, colorScheme }, async (lab) => {
        await busy(lab);
        await mkdir(OUT, { recursive: true });
        await lab.page.screenshot({ path: join(OUT, `embed-800${colorScheme === 'dark' ? '-dark' : ''}.png`), animations: 'disabled' });
        const overflow = await lab.page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(overflow <= 800 + 1, `the embed scrolls sideways: scrollWidth ${overflow}`);
      });
    });
  }

  it('390 px wide, without horizontal page scroll', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: 1, viewport: { width: 390, height: 844 } }, async (lab) => {
      await busy(lab);
      await shoot(lab, 'page-390.png');
      const { scrollWidth, widest } = await lab.page.evaluate(() => {
        // The element sticking out furthest, to name it in the failure.
        let widest = null;
        for (const e of document.body.querySelectorAll('*')) {
          const right = e.getBoundingClientRect().right;
          if (right > 391 && (!widest || right > widest.right)) {
            let inScroller = false;
            for (let p = e.parentElement; p; p = p.parentElement) {
              const o = getComputedStyle(p).overflowX;
              if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') inScroller = true;
            }
            if (!inScroller) widest = { right, html: e.outerHTML.slice(0, 100) };
          }
        }
        return { scrollWidth: document.documentElement.scrollWidth, widest };
      });
      assert.ok(scrollWidth <= 390 + 1, `scrollWidth ${scrollWidth} at 390; widest: ${JSON.stringify(widest)}`);
    });
  });

  it('390 px wide, long tapes: each tape box fits the screen and scrolls to its log end', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: 1, viewport: { width: 390, height: 844 } }, async (lab) => {
      // busy-group: 12 partitions that keep filling, tapes far wider than a phone.
      await openBusyGroup(lab);
      await lab.pause();
      await lab.step(40);
      // A page clipped by a wider stage would hide the newest records with no way to reach them.
      const tapes = await lab.page.evaluate(() =>
        [...document.querySelectorAll('.topic .tape')].map((tape) => {
          const box = tape.querySelector('.tape-scroll');
          box.scrollLeft = box.scrollWidth;
          const end = tape.querySelector('[data-marker=log-end]').getBoundingClientRect();
          return { partition: tape.dataset.partition, box: box.getBoundingClientRect().right, end: [end.left, end.right] };
        }),
      );
      assert.ok(tapes.length > 0, 'no tapes');
      for (const t of tapes) {
        assert.ok(t.box <= 390, `P${t.partition}'s box ends at ${t.box} px, past the 390 px screen`);
        assert.ok(t.end[0] >= 0 && t.end[1] <= 390, `P${t.partition}'s log end is at ${t.end} px, out of the screen`);
      }
      // The sink's strip draws only the chips its width shows, and enough to fill it, each whole:
      // the oldest one in view starts inside the strip, less than a chip from its left edge.
      const strip = await lab.page.evaluate(() => {
        const strip = document.querySelector('[data-field=sink-strip]');
        const box = strip.getBoundingClientRect();
        const shown = [...strip.querySelectorAll('.chip')]
          .map((chip) => chip.getBoundingClientRect())
          .filter((r) => r.top < box.bottom);
        const oldest = Math.min(...shown.map((r) => r.left));
        return { chips: strip.querySelectorAll('.chip').length, left: box.left, oldest, width: shown[0]?.width };
      });
      const delivered = (await lab.view()).metrics.delivered;
      assert.ok(delivered > 48, `only ${delivered} records handled`);
      assert.ok(strip.chips > 0 && strip.chips < 48, `the strip draws ${strip.chips} chips at 390 px`);
      assert.ok(strip.oldest >= strip.left, `the oldest chip in view starts at ${strip.oldest} px, cut by the strip's left edge ${strip.left}`);
      assert.ok(strip.oldest < strip.left + strip.width + 8, `the strip is filled: its oldest chip starts at ${strip.oldest} px`);
    });
  });

  for (const [width, height] of [[1440, 900], [390, 844]]) {
    it(`dark colour scheme at ${width} px`, { timeout: 120_000 }, async () => {
      await withLab(env, { seed: 1, viewport: { width, height }, colorScheme: 'dark' }, async (lab) => {
        await busy(lab);
        await shoot(lab, `page-${width}-dark.png`);
        const background = await lab.page.evaluate(() => {
          const rgb = (e) => getComputedStyle(e).backgroundColor.match(/\d+(\.\d+)?/g)?.map(Number) ?? [];
          const [r, g, b, a = 1] = rgb(document.body);
          return a === 0 ? rgb(document.documentElement) : [r, g, b];
        });
        const luminance = (0.2126 * background[0] + 0.7152 * background[1] + 0.0722 * background[2]) / 255;
        assert.ok(luminance < 0.35, `a dark background in dark mode: rgb(${background})`);
      });
    });
  }

  // Two groups on the same tapes: a named committed marker per group, a column for audit.
  for (const [width, height, colorScheme] of [[1440, 900, 'light'], [390, 844, 'light'], [1440, 900, 'dark'], [390, 844, 'dark']]) {
    it(`two groups at ${width} px, ${colorScheme}`, { timeout: 120_000 }, async () => {
      const query = '?scenario=two-groups&seed=5';
      await withLab(env, { query, viewport: { width, height }, colorScheme }, async (lab) => {
        await lab.step(40);
        await shoot(lab, `two-groups-${width}${colorScheme === 'dark' ? '-dark' : ''}.png`);
        const groups = await lab.page.evaluate(() =>
          [...document.querySelectorAll('[data-partition="1"] [data-marker=committed][data-group]')].map((m) => m.dataset.group),
        );
        assert.deepEqual(groups, ['demo', 'audit']);
        const scrollWidth = await lab.page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(scrollWidth <= width + 1, `scrollWidth ${scrollWidth} at ${width}`);
      });
    });
  }

  it('reduced motion turns transitions off', { timeout: 60_000 }, async () => {
    await withLab(env, { seed: 1, reducedMotion: 'reduce', pause: false }, async (lab) => {
      const durations = await lab.page.evaluate(() =>
        [...document.querySelectorAll('button, [data-offset], [data-marker]')].slice(0, 200).map((e) => {
          const style = getComputedStyle(e);
          return [e.outerHTML.slice(0, 60), style.transitionDuration, style.animationDuration];
        }),
      );
      assert.ok(durations.length > 0, 'buttons to check');
      for (const [html, transition, animation] of durations) {
        for (const s of [...seconds(transition), ...seconds(animation)]) {
          assert.ok(s <= 0.01, `${html}: transition ${transition}, animation ${animation} under reduced motion`);
        }
      }
    });
  });

  it('played fast, the sink chips and the cells skip their arrival animations; played slowly, they keep them', { timeout: 120_000 }, async () => {
    await withLab(env, { seed: 1 }, async (lab) => {
      await openBusyGroup(lab);
      const motion = () =>
        lab.page.evaluate(() => {
          const chip = document.querySelector('[data-field=sink-strip] .chip:first-child');
          const cell = document.querySelector('.topic [data-offset]');
          return {
            fast: document.querySelector('.simulation').classList.contains('is-fast'),
            chip: chip && getComputedStyle(chip).animationName,
            cell: cell && getComputedStyle(cell).transitionDuration,
          };
        });
      assert.equal(await playFastest(lab), 60);
      await lab.page.waitForFunction(() => (window.offsetlab_view()?.metrics.delivered ?? 0) > 0);
      assert.deepEqual(await motion(), { fast: true, chip: 'none', cell: '0s' }, 'playing at 60 ticks/s');
      await lab.page.locator('select[data-field=speed]').selectOption('8');
      await lab.page.waitForFunction(() => !document.querySelector('.simulation.is-fast'));
      assert.deepEqual(await motion(), { fast: false, chip: 'chip-in', cell: '0.16s' }, 'playing at 8 ticks/s');
      await lab.pause();
    });
  });
});
