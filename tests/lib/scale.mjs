// The engine's largest configuration, busy-group and the page at its highest speed, shared by
// tests/scale.test.mjs, tests/screenshots.test.mjs and the page bench (tests/bench/fps.mjs).

/** The engine's limits (crates/engine/src/config.rs `limits`). */
export const PARTITIONS_MAX = 256;
export const CONSUMERS_MAX = 64;
export const RETAINED_RECORDS_MAX = 2_000_000;

/** Waits for a page with that much to draw, on a busy machine, in ms. */
const SLOW = { timeout: 60_000 };

/** The largest configuration the engine accepts, sending without pause for `ticks`. */
export function maxScenario(ticks) {
  return {
    name: 'max-config',
    summary: 'The engine at its limits: 256 partitions, 64 consumers, the whole retention cap.',
    watch: 'Every tape and card at once.',
    config: {
      seed: 7,
      partitions: PARTITIONS_MAX,
      consumers: CONSUMERS_MAX,
      retention_records: Math.floor(RETAINED_RECORDS_MAX / PARTITIONS_MAX),
      records_per_poll: 8,
      handle_per_tick: 4,
      producer: { use_keys: true, key_count: 10_000 },
    },
    ticks,
    timeline: [{ tick: 0, input: { do: 'keep-sending', per_tick: 200 } }],
  };
}

/** Loads busy-group (12 partitions, 6 consumers, keep sending) by its link in the Operations
 * chapter, one of that chapter's other experiments, and waits for its 12 tapes. */
export async function openBusyGroup(lab) {
  await lab.click('#operations [data-jump=busy-group]');
  await lab.page.waitForFunction(() => window.offsetlab_view()?.partitions.length === 12);
}

/** Imports `scenario` through the share panel and waits until the page shows its partitions. */
export async function importScenario(lab, scenario) {
  await lab.openPanel('share');
  await lab.click('details.share-json > summary');
  await lab.page.locator('textarea[data-field=import-json]').fill(JSON.stringify(scenario));
  await lab.click('button[data-action=import]');
  await lab.page.waitForFunction((n) => window.offsetlab_view()?.partitions.length === n, scenario.config.partitions, SLOW);
  // The page may be slow to draw that much: wait for the clock before pressing anything.
  await lab.page.waitForSelector('button[data-action=play]', { state: 'attached', ...SLOW });
}

/** Selects the highest speed and presses Play; returns the speed. */
export async function playFastest(lab) {
  const { page } = lab;
  const speed = page.locator('select[data-field=speed]');
  const values = await speed.locator('option').evaluateAll((options) => options.map((o) => Number(o.value)));
  const fastest = Math.max(...values);
  await speed.selectOption(String(fastest), SLOW);
  const play = page.locator('button[data-action=play]');
  if ((await play.textContent(SLOW)).trim() === 'Play') await play.click(SLOW);
  await page.waitForFunction(() => document.querySelector('[data-field=clock]')?.textContent.includes('playing'), null, SLOW);
  // The clock's word is not enough: the run's tick must move (or the run is at its end).
  const from = await page.evaluate(() => window.offsetlab_view().tick);
  try {
    await page.waitForFunction(
      (from) => window.offsetlab_view().tick !== from || document.querySelector('button[data-action=play]')?.disabled,
      from,
      SLOW,
    );
  } catch (error) {
    error.message += `\nthe clock reads 'playing' but the run stays at tick ${from}`;
    throw error;
  }
  return fastest;
}
