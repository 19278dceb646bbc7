// Frame rate of the page under load: the busy-group experiment (12 partitions, 6 consumers,
// keep sending) at the highest speed, requestAnimationFrame intervals over 10 s.
//
//   node tests/bench/fps.mjs            (after trunk build --release; OFFSETLAB_DIST overrides dist/)
//   cargo xtask bench-page              (builds the release page first)
//
// A measurement, not a test: it prints what it saw and exits 0.

import { launch, openLab } from '../lib/page.mjs';
import { serve } from '../lib/server.mjs';

const SECONDS = Number(process.env.OFFSETLAB_BENCH_SECONDS || 10);

async function measure(lab) {
  const { page } = lab;
  await lab.click('button[data-scenario=busy-group]');
  await page.waitForFunction(() => window.offsetlab_view()?.partitions.length === 12);

  await lab.need('select[data-field=speed]');
  const speed = page.locator('select[data-field=speed]');
  const values = await speed.locator('option').evaluateAll((options) => options.map((o) => Number(o.value)));
  const fastest = Math.max(...values);
  await speed.selectOption(String(fastest));

  if ((await lab.text('button[data-action=play]')) === 'Play') await lab.click('button[data-action=play]');
  await lab.waitForText('[data-field=clock]', 'playing');

  const result = await page.evaluate(
    (ms) =>
      new Promise((done) => {
        const startTick = window.offsetlab_view().tick;
        const frames = [];
        let first = null;
        let last = null;
        const frame = (now) => {
          if (first === null) first = now;
          else frames.push(now - last);
          last = now;
          if (now - first < ms) requestAnimationFrame(frame);
          else {
            const view = window.offsetlab_view();
            done({
              frames,
              elapsedMs: now - first,
              ticks: view.tick - startTick,
              produced: view.metrics.produced,
              elements: document.getElementsByTagName('*').length,
            });
          }
        };
        requestAnimationFrame(frame);
      }),
    SECONDS * 1000,
  );
  return { fastest, ...result };
}

function report({ fastest, frames, elapsedMs, ticks, produced, elements }) {
  const sorted = [...frames].sort((a, b) => a - b);
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? NaN;
  const worst = sorted[sorted.length - 1] ?? NaN;
  const fps = frames.length / (elapsedMs / 1000);
  console.log(`busy-group at ${fastest} ticks/s for ${(elapsedMs / 1000).toFixed(1)} s`);
  console.log(`frames          ${frames.length}`);
  console.log(`mean fps        ${fps.toFixed(1)}`);
  console.log(`p95 frame time  ${p95.toFixed(1)} ms`);
  console.log(`worst frame     ${worst.toFixed(1)} ms`);
  console.log(`ticks advanced  ${ticks} (${(ticks / (elapsedMs / 1000)).toFixed(1)} per second)`);
  console.log(`produced        ${produced}`);
  console.log(`DOM elements    ${elements}`);
}

const env = { server: null, browser: null };
let lab;
try {
  env.server = await serve();
  env.browser = await launch();
  lab = await openLab(env, { seed: 1, pause: false });
  report(await measure(lab));
  if (lab.errors.length) console.log(`page errors: ${lab.errors.join(' | ')}`);
} catch (error) {
  console.log(`fps bench could not measure: ${error.message.split('\n')[0]}`);
} finally {
  await env.browser?.close().catch(() => {});
  await env.server?.close().catch(() => {});
}
process.exitCode = 0;
