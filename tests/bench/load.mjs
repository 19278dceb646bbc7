// Loading the page on a slow profile: 150 ms latency, 1.6 Mbit/s down, 4x CPU slowdown, every
// asset gzip, the cache off, a fresh browser context per load. Twice: the page as built, and the
// page with its wasm padded until wasm + js reach `cargo xtask test`'s byte guard
// (PAGE_GZIP_GUARD_BYTES in xtask/src/checks.rs, read from there), since the targets must hold
// however the bundle grows below it.
//
//   node tests/bench/load.mjs                     (after trunk build --release)
//   OFFSETLAB_BENCH=load cargo xtask bench-page   (builds the release page first)
//   OFFSETLAB_BENCH_RUNS=N                        loads per bundle (5 by default)
//   OFFSETLAB_BENCH_BEFORE=DIR[:DIR…]             A/B: DIR (a copy of an earlier dist/) and dist/,
//                                                 their loads interleaved, instead of the padded copy
//
// For each load it prints, in ms from navigation start (the page's performance.timeOrigin):
//   fp, fcp   first paint and first contentful paint (performance.getEntriesByType('paint'))
//   lcp       largest contentful paint: the last 'largest-contentful-paint' entry (buffered) that
//             starts by `live`, where the bench's click ends it as a user's input would
//   wasm      the wasm's responseEnd (resource timing): its download is over (the first part's:
//             the parts below the first screen are a second wasm, fetched once the page is usable)
//   started   trunk's TrunkApplicationStarted: the wasm is compiled, instantiated and main ran
//   live      the live app is on the page: window.offsetlab_view() returns a view, the
//             prerendered copy (#offsetlab-prerender) is gone, and the Send 10 button is there
//             (parts below the first screen may still show their prerendered copy for a frame)
//   control   the first usable control: at `live` the bench clicks that Send 10 button (a real
//             click event, as Yew listens for them); this is the end of the first animation frame
//             (its style, layout and paint: a long-animation-frame entry's end) in which the view
//             has 10 more records produced and the page shows the new count (the producer card's
//             [data-field=produced])
//   after     control less wasm: the page's own work once its bytes are in (the network's
//             share of the load varies from load to load more than the rest)
//   cls       cumulative layout shift from the first paint until the live app has replaced the
//             prerendered copy: the sum of 'layout-shift' entries (buffered) without recent input
//             that start by `live` (a unitless score; the replace itself shifts nothing, since
//             every element of the live app is new)
//   bytes     bytes transferred (encoded, headers included), from the DevTools protocol
// then the median and the worst of each. The targets, the page's weight budget (docs/page-loading.md,
// "The prerendered page"): fcp <= 1000, lcp <= 2500, cls <= 0.1 and control <= 3500, both
// bundles. A measurement: it prints what it saw (and "MISSED" next to a missed target) and exits 0.

import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch } from '../lib/page.mjs';
import { DIST, serve } from '../lib/server.mjs';
import { PROFILE, throttle } from './throttle.mjs';

const RUNS = Number(process.env.OFFSETLAB_BENCH_RUNS || 5);
/** Other builds to compare with (directories, colon-separated), load for load (A/B), instead of the padded copy. */
const BEFORE = process.env.OFFSETLAB_BENCH_BEFORE;
/** The loading targets: ms, but for cls, a score. */
const TARGETS = { fcp: 1000, lcp: 2500, cls: 0.1, control: 3500 };
/** One load may take this long before it counts as failed, in ms (of the throttled page). */
const LOAD_TIMEOUT_MS = 30_000;
const FIELDS = ['fp', 'fcp', 'lcp', 'wasm', 'started', 'live', 'control', 'after', 'cls', 'bytes'];

/** The byte guard of `cargo xtask test`'s page size (bytes gzip of wasm + js), as
 * xtask/src/checks.rs sets PAGE_GZIP_GUARD_BYTES: one figure for the check and the bench. */
async function guardBytes() {
  const checks = new URL('../../xtask/src/checks.rs', import.meta.url);
  const found = /PAGE_GZIP_GUARD_BYTES: u64 = ([\d_]+);/.exec(await readFile(checks, 'utf8'));
  if (!found) throw new Error(`no PAGE_GZIP_GUARD_BYTES in ${checks.pathname}`);
  return Number(found[1].replaceAll('_', ''));
}

// Runs in the page before any of its scripts: watches for the live app, clicks Send 10 the moment
// it is there, and notes when the click shows. Times are performance.now(), i.e. from navigation.
function watchForTheLiveApp() {
  const marks = {};
  window.__load = marks;
  const longFrames = [];
  new PerformanceObserver((list) => longFrames.push(...list.getEntries())).observe({
    type: 'long-animation-frame',
    buffered: true,
  });
  // Read once `control` is set, each up to `live` (see the header).
  marks.largestPaints = [];
  new PerformanceObserver((list) => {
    marks.largestPaints.push(...list.getEntries().map((e) => e.startTime));
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  marks.shifts = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) marks.shifts.push([e.startTime, e.value]);
  }).observe({ type: 'layout-shift', buffered: true });
  addEventListener('TrunkApplicationStarted', () => (marks.started = performance.now()));
  const produced = () => window.offsetlab_view?.()?.metrics.produced;
  const liveSend = () => {
    if (typeof window.offsetlab_view !== 'function' || window.offsetlab_view() === null) return null;
    if (document.getElementById('offsetlab-prerender')) return null;
    return document.querySelector('button[data-action=send-10]');
  };
  const observer = new MutationObserver(() => {
    const send = liveSend();
    if (!send) return;
    observer.disconnect();
    marks.live = performance.now();
    const before = produced();
    send.click();
    const frame = (frameStart) => {
      const shown = document.querySelector('[data-field=produced]')?.textContent.includes(String(before + 10));
      if (produced() >= before + 10 && shown !== false) {
        // The frame ends after its style, layout and paint. A long frame (over 50 ms) is a
        // long-animation-frame entry, which gives its end; otherwise a ResizeObserver, whose first
        // callback comes after the frame's layout, gives that (its paint takes a few ms more).
        const probe = document.body.appendChild(document.createElement('div'));
        new ResizeObserver((_, observer) => {
          observer.disconnect();
          probe.remove();
          const laidOut = performance.now();
          setTimeout(() => {
            const long = longFrames.find((f) => f.startTime <= frameStart && frameStart <= f.startTime + f.duration);
            marks.control = long ? long.startTime + long.duration : laidOut;
          }, 100);
        }).observe(probe);
      } else {
        requestAnimationFrame(frame);
      }
    };
    requestAnimationFrame(frame);
  });
  observer.observe(document, { childList: true, subtree: true });
}

/** One cold load of `url` in a fresh context under the profile; the figures of FIELDS. */
async function loadOnce(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    await context.addInitScript(watchForTheLiveApp);
    const page = await context.newPage();
    const cdp = await throttle(context, page);
    let bytes = 0;
    const requests = [];
    cdp.on('Network.requestWillBeSent', ({ request }) => requests.push(request.url.split('/').pop()));
    cdp.on('Network.loadingFinished', ({ encodedDataLength }) => (bytes += encodedDataLength));
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction(() => window.__load?.control !== undefined, null, {
      timeout: LOAD_TIMEOUT_MS,
      polling: 100,
    });
    const marks = await page.evaluate(() => {
      const paint = Object.fromEntries(performance.getEntriesByType('paint').map((e) => [e.name, e.startTime]));
      const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('_bg.wasm'));
      const { largestPaints, shifts, ...load } = window.__load;
      const byLive = largestPaints.filter((t) => t <= load.live);
      return {
        fp: paint['first-paint'],
        fcp: paint['first-contentful-paint'],
        lcp: byLive.length ? Math.max(...byLive) : undefined,
        wasm: wasm?.responseEnd,
        cls: shifts.filter(([t]) => t <= load.live).reduce((sum, [, value]) => sum + value, 0),
        ...load,
      };
    });
    // Everything the page asked for has arrived (the click's effect shows after all of it).
    const twice = requests.filter((name, i) => /\.(wasm|js|html)$/.test(name) && requests.indexOf(name) !== i);
    return { ...marks, after: marks.control - marks.wasm, bytes, twice };
  } finally {
    await context.close();
  }
}

/** Bytes of `gzip -9` of wasm + js in `dir`: what xtask's page size counts, with the same
 * program (zlib's level 9 comes out a few KB larger on the wasm). */
async function bundleGzip(dir) {
  let total = 0;
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.wasm') && !name.endsWith('.js')) continue;
    const gzip = spawnSync('gzip', ['-9', '-c', join(dir, name)], { maxBuffer: 64 * 1024 * 1024 });
    if (gzip.status !== 0) throw new Error(`gzip -9 ${name} failed: ${gzip.stderr}`);
    total += gzip.stdout.length;
  }
  return total;
}

/** Unsigned LEB128, as wasm writes sizes. */
function leb128(n) {
  const out = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return Buffer.from(out);
}

/** `wasm` with a custom section (ignored by the engine, but downloaded) of `size` random bytes. */
function withPadding(wasm, size) {
  const name = Buffer.from('offsetlab.bench.padding');
  const payload = Buffer.concat([leb128(name.length), name, randomBytes(size)]);
  return Buffer.concat([wasm, Buffer.from([0]), leb128(payload.length), payload]);
}

/**
 * A copy of dist/ whose first wasm carries incompressible padding, so that gzip -9 of wasm + js is
 * just under `guard` bytes, with index.html's integrity hash of the wasm updated to match.
 */
async function paddedCopy(guard) {
  const dir = await mkdtemp(join(tmpdir(), 'offsetlab-padded-'));
  await cp(DIST, dir, { recursive: true });
  // The first part (trunk's name), which the first usable control waits for: the growth the guard
  // allows is assumed to land there, the worst case. The parts below the first screen load after.
  const name = (await readdir(dir)).find((n) => n.endsWith('_bg.wasm'));
  const original = await readFile(join(dir, name));
  const sri = (bytes) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
  let padding = 0;
  let wasm = original;
  // Random bytes gzip to a little more than themselves: a few rounds close in from below.
  for (let round = 0; round < 8; round++) {
    await writeFile(join(dir, name), wasm);
    const missing = guard - (await bundleGzip(dir));
    if (missing >= 0 && missing < 1_000) break;
    padding = Math.max(0, padding + Math.floor(missing * 0.999) - 64);
    wasm = withPadding(original, padding);
  }
  const total = await bundleGzip(dir);
  if (total > guard || total < guard - 1_000) throw new Error(`padding missed: ${total} bytes gzip`);
  const html = (await readFile(join(dir, 'index.html'), 'utf8')).replaceAll(sri(original), sri(wasm));
  await writeFile(join(dir, 'index.html'), html);
  return { dir, total };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
/** A figure as printed: ms and bytes whole, the layout shift score to three decimals. */
const figure = (field, value) => (field === 'cls' ? value.toFixed(3) : String(Math.round(value)));
const cell = (field, value) => (value === undefined ? '-' : figure(field, value)).padStart(8);

/** One load of each bundle in `bundles` ({ label, dir }) in turn, RUNS rounds (interleaved, so that
 * the machine's drift falls on all of them alike); then each bundle's table. */
async function bench(browser, bundles) {
  const served = [];
  try {
    for (const bundle of bundles) served.push({ ...bundle, server: await serve(bundle.dir, { gzip: true }), rows: [], lines: [] });
    for (const b of served) b.lines.push(`${'run'.padStart(8)}${FIELDS.map((f) => f.padStart(8)).join('')}`);
    for (let run = 1; run <= RUNS; run++) {
      for (const b of served) {
        let row;
        try {
          row = await loadOnce(browser, `${b.server.url}/?seed=1`);
        } catch (error) {
          b.lines.push(`${String(run).padStart(8)}  failed: ${error.message.split('\n')[0]}`);
          continue;
        }
        b.rows.push(row);
        const extra = row.twice.length ? `  downloaded twice: ${row.twice.join(', ')}` : '';
        b.lines.push(`${String(run).padStart(8)}${FIELDS.map((f) => cell(f, row[f])).join('')}${extra}`);
      }
    }
  } finally {
    for (const b of served) await b.server.close();
  }
  for (const b of served) report(b);
}

/** A bundle's loads, their median and worst, and which targets held. */
function report({ label, rows, lines }) {
  console.log(`\n${label}: ${RUNS} cold loads`);
  for (const line of lines) console.log(line);
  if (!rows.length) return;
  for (const [name, pick] of [['median', median], ['worst', (v) => Math.max(...v)]]) {
    const values = FIELDS.map((f) => {
      const seen = rows.map((r) => r[f]).filter((v) => v !== undefined);
      return seen.length ? pick(seen) : undefined;
    });
    console.log(`${name.padStart(8)}${values.map((v, i) => cell(FIELDS[i], v)).join('')}`);
  }
  const worst = (f) => Math.max(...rows.map((r) => r[f] ?? Infinity));
  for (const [field, target] of Object.entries(TARGETS)) {
    const verdict = worst(field) <= target && rows.length === RUNS ? 'held' : 'MISSED';
    const unit = field === 'cls' ? '' : ' ms';
    const seen = Number.isFinite(worst(field)) ? figure(field, worst(field)) : 'none';
    console.log(`target ${field} <= ${target}${unit}: ${verdict} (worst ${seen}${unit})`);
  }
}

let browser;
let padded;
try {
  browser = await launch();
  console.log(
    `profile: ${PROFILE.latency} ms latency, ${(PROFILE.downloadThroughput * 8) / 1e6} Mbit/s down, ` +
      `${(PROFILE.uploadThroughput * 8) / 1e6} Mbit/s up, ${PROFILE.cpuSlowdown}x CPU slowdown, gzip, no cache`,
  );
  const built = { label: `as built (wasm + js ${await bundleGzip(DIST)} bytes gzip)`, dir: DIST };
  if (BEFORE) {
    // A/B: other builds (copies of dist/ from before a change) and this one, load for load.
    const before = [];
    for (const dir of BEFORE.split(':')) before.push({ label: `before: ${dir} (wasm + js ${await bundleGzip(dir)} bytes gzip)`, dir });
    await bench(browser, [...before, built]);
  } else {
    await bench(browser, [built]);
    const guard = await guardBytes();
    padded = await paddedCopy(guard);
    await bench(browser, [
      { label: `padded to the byte guard of ${guard} (wasm + js ${padded.total} bytes gzip)`, dir: padded.dir },
    ]);
  }
} catch (error) {
  console.log(`load bench could not measure: ${error.message.split('\n')[0]}`);
} finally {
  await browser?.close().catch(() => {});
  if (padded) await rm(padded.dir, { recursive: true, force: true });
}
process.exitCode = 0;
