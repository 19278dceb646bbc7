// Frame rate of the page under load, in headless Chromium, at the highest speed.
//
// Modes (OFFSETLAB_BENCH, comma-separated; default `busy`):
//   busy       the busy-group experiment (12 partitions, 6 consumers, keep sending),
//              requestAnimationFrame intervals over OFFSETLAB_BENCH_SECONDS (default 10)
//   max        the engine's largest configuration (256 partitions, 64 consumers, retention
//              so that partitions × retention is the 2,000,000 cap, keep sending), imported as
//              scenario JSON: frame rate, DOM elements, where the main thread's time went
//   sustained  busy-group for OFFSETLAB_BENCH_SECONDS (default 600): mean fps per minute and,
//              every 30 s, the JS heap, the wasm memory and the DOM element count
//
//   node tests/bench/fps.mjs                          (after trunk build --release; OFFSETLAB_DIST overrides dist/)
//   OFFSETLAB_BENCH=max,sustained OFFSETLAB_BENCH_SECONDS=120 node tests/bench/fps.mjs
//   cargo xtask bench-page [busy|max|sustained|all]   (builds the release page first)
//
// A measurement, not a test: it prints what it saw and exits 0. It serves dist/ on 127.0.0.1
// only, and every mode is bounded by its duration (at most an hour).

import { launch, openLab } from '../lib/page.mjs';
import { serve } from '../lib/server.mjs';
import { importScenario, maxScenario, openBusyGroup, playFastest } from '../lib/scale.mjs';

const MODES = ['busy', 'max', 'sustained'];
/** A run longer than this is cut to it: a benchmark must end. */
const SECONDS_MAX = 3_600;
/** Memory and element samples of the sustained run, in ms. */
const SAMPLE_MS = 30_000;
/** Frame-rate buckets of the sustained run, in ms. */
const BUCKET_MS = 60_000;

function seconds(fallback) {
  const n = Number(process.env.OFFSETLAB_BENCH_SECONDS || fallback);
  return Math.min(Math.max(Number.isFinite(n) ? n : fallback, 1), SECONDS_MAX);
}

async function openMax(lab) {
  await importScenario(lab, maxScenario(10_000_000));
  // Closed again and back at the top, as a reader would leave it: the measurement is of the
  // simulation (the import leaves the page scrolled to the panel).
  await lab.click('button[data-panel=share]');
  await lab.page.evaluate(() => window.scrollTo(0, 0));
}

/**
 * Frame intervals for `ms` from inside the page; every `sampleMs` a sample of memory and
 * elements. Long runs keep per-bucket counts, not every frame.
 */
function frames(page, ms, sampleMs, bucketMs) {
  // A long run must not hit the page's default timeout.
  page.setDefaultTimeout(ms + 120_000);
  return page.evaluate(
    ([ms, sampleMs, bucketMs]) =>
      new Promise((done) => {
        const wasmBytes = () => window.offsetlab_memory?.().wasm_bytes ?? null;
        const sample = (at) => ({
          at,
          heap: performance.memory?.usedJSHeapSize ?? null,
          wasm: wasmBytes(),
          elements: document.getElementsByTagName('*').length,
          tick: window.offsetlab_view().tick,
        });
        const startTick = window.offsetlab_view().tick;
        const intervals = [];
        const buckets = [];
        const samples = [];
        let first = null;
        let last = null;
        let nextSample = 0;
        const frame = (now) => {
          if (first === null) {
            first = now;
            samples.push(sample(0));
            nextSample = sampleMs;
          } else {
            intervals.push(now - last);
            const b = Math.floor((now - first) / bucketMs);
            buckets[b] = (buckets[b] ?? 0) + 1;
            if (now - first >= nextSample) {
              samples.push(sample(now - first));
              nextSample += sampleMs;
            }
          }
          last = now;
          if (now - first < ms) requestAnimationFrame(frame);
          else {
            const view = window.offsetlab_view();
            // Keep the sorted tail only: a long run has too many frames to send back.
            const sorted = intervals.sort((a, b) => a - b);
            const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;
            done({
              count: intervals.length,
              elapsedMs: now - first,
              p95: at(0.95),
              worst: sorted[sorted.length - 1] ?? NaN,
              buckets: Array.from({ length: buckets.length }, (_, i) => buckets[i] ?? 0),
              samples,
              ticks: view.tick - startTick,
              produced: view.metrics.produced,
              elements: document.getElementsByTagName('*').length,
            });
          }
        };
        requestAnimationFrame(frame);
      }),
    [ms, sampleMs, bucketMs],
  );
}

/** The main thread's time by kind over `body` (CDP Performance metrics, in ms). */
async function timeSpent(lab, body) {
  const cdp = await lab.context.newCDPSession(lab.page);
  await cdp.send('Performance.enable');
  const read = async () =>
    Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const before = await read();
  const result = await body();
  const after = await read();
  await cdp.detach().catch(() => {});
  const spent = {};
  for (const name of ['ScriptDuration', 'RecalcStyleDuration', 'LayoutDuration', 'TaskDuration']) {
    spent[name] = (after[name] - before[name]) * 1000;
  }
  return { result, spent };
}

function printFrames(title, speed, r, spent) {
  const s = r.elapsedMs / 1000;
  console.log(`${title} at ${speed} ticks/s for ${s.toFixed(1)} s`);
  console.log(`  frames          ${r.count}`);
  console.log(`  mean fps        ${(r.count / s).toFixed(1)}`);
  console.log(`  p95 frame time  ${r.p95.toFixed(1)} ms`);
  console.log(`  worst frame     ${r.worst.toFixed(1)} ms`);
  console.log(`  ticks advanced  ${r.ticks} (${(r.ticks / s).toFixed(1)} per second)`);
  console.log(`  produced        ${r.produced}`);
  console.log(`  DOM elements    ${r.elements}`);
  if (spent) {
    const per = (ms) => `${(ms / Math.max(r.count, 1)).toFixed(2)} ms/frame`;
    console.log(`  script          ${per(spent.ScriptDuration)}`);
    console.log(`  style           ${per(spent.RecalcStyleDuration)}`);
    console.log(`  layout          ${per(spent.LayoutDuration)}`);
    console.log(`  all tasks       ${per(spent.TaskDuration)}`);
  }
}

const MIB = 1024 * 1024;
const mib = (bytes) => (bytes === null ? '      -' : (bytes / MIB).toFixed(1).padStart(7));

function printSustained(speed, r) {
  printFrames('sustained busy-group', speed, r);
  console.log('  minute  mean fps');
  r.buckets.forEach((n, i) => {
    const ms = Math.min(BUCKET_MS, r.elapsedMs - i * BUCKET_MS);
    if (ms > 1_000) console.log(`  ${String(i + 1).padStart(6)}  ${(n / (ms / 1000)).toFixed(1).padStart(8)}`);
  });
  console.log('       s     tick  JS heap MiB  wasm MiB  elements');
  for (const x of r.samples) {
    console.log(
      `  ${(x.at / 1000).toFixed(0).padStart(6)}  ${String(x.tick).padStart(7)}  ${mib(x.heap).padStart(11)}` +
        `  ${mib(x.wasm).padStart(8)}  ${String(x.elements).padStart(8)}`,
    );
  }
}

async function busy(lab) {
  await openBusyGroup(lab);
  const speed = await playFastest(lab);
  const { result, spent } = await timeSpent(lab, () => frames(lab.page, seconds(10) * 1000, 1e9, 1e9));
  printFrames('busy-group', speed, result, spent);
}

async function max(lab) {
  await openMax(lab);
  const speed = await playFastest(lab);
  const { result, spent } = await timeSpent(lab, () => frames(lab.page, seconds(10) * 1000, 1e9, 1e9));
  printFrames('max config (256 partitions, 64 consumers)', speed, result, spent);
}

async function sustained(lab) {
  await openBusyGroup(lab);
  const speed = await playFastest(lab);
  const result = await frames(lab.page, seconds(600) * 1000, SAMPLE_MS, BUCKET_MS);
  printSustained(speed, result);
}

const RUN = { busy, max, sustained };

const asked = (process.env.OFFSETLAB_BENCH || 'busy')
  .split(',')
  .map((m) => m.trim())
  .filter(Boolean);
const modes = asked.includes('all') ? MODES : asked;
const unknown = modes.filter((m) => !MODES.includes(m));
if (unknown.length) console.log(`unknown bench mode ${unknown.join(', ')}: choose from ${MODES.join(', ')}, all`);

const env = { server: null, browser: null };
try {
  env.server = await serve();
  env.browser = await launch();
  for (const mode of modes.filter((m) => MODES.includes(m))) {
    const lab = await openLab(env, { seed: 1, pause: false });
    try {
      await RUN[mode](lab);
      if (lab.errors.length) console.log(`  page errors: ${lab.errors.join(' | ')}`);
    } catch (error) {
      console.log(`${mode}: could not measure: ${error.message.split("\n")[0]}`);
      if (lab.errors.length) console.log(`  page errors: ${lab.errors.join(" | ")}`);
    } finally {
      await lab.context.close().catch(() => {});
    }
  }
} catch (error) {
  console.log(`fps bench could not measure: ${error.message.split('\n')[0]}`);
} finally {
  await env.browser?.close().catch(() => {});
  await env.server?.close().catch(() => {});
}
process.exitCode = 0;
