// Where a cold load's time goes, on the load bench's slow profile (tests/bench/load.mjs): one
// load with Chrome's tracing on (the main thread's tasks, V8's sampling profiler, wasm compiles),
// summed per phase. A diagnosis, not a measurement: tracing and sampling slow the page a little.
//
//   node tests/bench/profile.mjs [DIST_DIR] [TRACE_OUT.json]
//   OFFSETLAB_PROFILE_SAMPLES=0   no sampling profiler (it slows the page most): trace events only
//   OFFSETLAB_PROFILE_SUMMARY=1   one line: each phase's length, main-thread busy and CPU time
//
// Phases, in ms from navigation start: to the wasm's responseEnd, to TrunkApplicationStarted, to
// `live` (the live app replaced the copy; the bench clicks Send 10 there), to `control` (the end
// of the first frame that shows the click's 10 records). For each phase: the main thread's busy
// time by trace event (self time: style, layout, paint, script, wasm compiles, GC) and the
// functions the sampling profiler saw most (self time). Wasm functions have names only when the
// wasm keeps its name section (wasm-opt -g; the release build strips it).

import { writeFile } from 'node:fs/promises';
import { launch } from '../lib/page.mjs';
import { DIST, serve } from '../lib/server.mjs';
import { throttle } from './throttle.mjs';

const dir = process.argv[2] || DIST;
const out = process.argv[3];
const TOP = Number(process.env.OFFSETLAB_PROFILE_TOP || 25);

function marks() {
  const m = (window.__load = {});
  addEventListener('TrunkApplicationStarted', () => {
    m.started = performance.now();
    performance.mark('offsetlab-started');
  });
  const produced = () => window.offsetlab_view?.()?.metrics.produced;
  const observer = new MutationObserver(() => {
    if (typeof window.offsetlab_view !== 'function' || window.offsetlab_view() === null) return;
    if (document.getElementById('offsetlab-prerender')) return;
    const send = document.querySelector('button[data-action=send-10]');
    if (!send) return;
    observer.disconnect();
    m.live = performance.now();
    performance.mark('offsetlab-live');
    const before = produced();
    send.click();
    m.clicked = performance.now();
    performance.mark('offsetlab-clicked');
    // When the page's DOM first shows the 10 records, and when its published view first has them.
    const shown = () => document.querySelector('[data-field=produced]')?.textContent.includes(String(before + 10));
    new MutationObserver((_, o) => {
      if (m.shown === undefined && shown()) {
        m.shown = performance.now();
        performance.mark('offsetlab-shown');
      }
      if (m.shown !== undefined) o.disconnect();
    }).observe(document, { childList: true, subtree: true, characterData: true });
    const frame = () => {
      if (m.published === undefined && produced() >= before + 10) m.published = performance.now();
      if (produced() >= before + 10 && shown()) {
        const probe = document.body.appendChild(document.createElement('div'));
        new ResizeObserver((_, o) => {
          o.disconnect();
          probe.remove();
          m.control = performance.now();
          performance.mark('offsetlab-control');
        }).observe(probe);
      } else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  observer.observe(document, { childList: true, subtree: true });
}

const CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'blink.user_timing',
  'loading',
  'v8',
  'v8.execute',
  'v8.wasm',
  ...(process.env.OFFSETLAB_PROFILE_SAMPLES === '0' ? [] : ['disabled-by-default-v8.wasm.detailed']),
  'disabled-by-default-v8.gc',
  // The sampler costs the page a lot (it logs every wasm function compiled): off with
  // OFFSETLAB_PROFILE_SAMPLES=0, for the trace events' own times.
  ...(process.env.OFFSETLAB_PROFILE_SAMPLES === '0' ? [] : ['disabled-by-default-v8.cpu_profiler']),
];

const server = await serve(dir, { gzip: true });
const browser = await launch();
let trace;
let load;
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addInitScript(marks);
  const page = await context.newPage();
  await throttle(context, page);
  await browser.startTracing(page, { categories: CATEGORIES });
  await page.goto(`${server.url}/?seed=1`, { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__load?.control !== undefined, null, { timeout: 60_000, polling: 100 });
  // The deferred parts render when the browser is idle after the first frame: in the trace too.
  await page.waitForTimeout(3000);
  load = await page.evaluate(() => {
    const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('_bg.wasm'));
    const paint = Object.fromEntries(performance.getEntriesByType('paint').map((e) => [e.name, e.startTime]));
    return { fcp: paint['first-contentful-paint'], wasmStart: wasm?.requestStart, wasm: wasm?.responseEnd, ...window.__load };
  });
  trace = JSON.parse((await browser.stopTracing()).toString());
  await context.close();
} finally {
  await browser.close();
  await server.close();
}
if (out) await writeFile(out, JSON.stringify(trace));

const events = trace.traceEvents ?? trace;
// The page's renderer: the one whose main thread has the user timing marks set above.
const started = events.find((e) => e.name === 'offsetlab-live' || e.name === 'offsetlab-started');
const pid = started.pid;
const mainTid = events.find((e) => e.pid === pid && e.ph === 'M' && e.name === 'thread_name' && e.args.name === 'CrRendererMain').tid;
const markTs = (name) => events.find((e) => e.pid === pid && e.name === name)?.ts;
// ts (µs) of navigation start: a mark's ts minus its performance.now().
const t0 = markTs('offsetlab-live') - load.live * 1000;
const ms = (ts) => (ts - t0) / 1000;

console.log(
  `fcp ${load.fcp?.toFixed(0)}  wasm ${load.wasmStart?.toFixed(0)}..${load.wasm?.toFixed(0)}  started ${load.started?.toFixed(0)}` +
    `  live ${load.live?.toFixed(0)}  shown ${load.shown?.toFixed(0)}  published (seen at a frame) ${load.published?.toFixed(0)}` +
    `  control ${load.control?.toFixed(0)} ms`,
);
const phases = [
  ['to wasm end', 0, load.wasm],
  ['wasm end to started', load.wasm, load.started],
  ['started to live', load.started, load.live],
  ['live to control', load.live, load.control],
  ['after control (3 s)', load.control, load.control + 3000],
];

// Main-thread trace events, nested by time: self time per name.
const main = events
  .filter((e) => e.pid === pid && e.tid === mainTid && e.ph === 'X' && e.dur !== undefined)
  .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
const selfByPhase = phases.map(() => new Map());
const busy = phases.map(() => 0);
/** The main thread's CPU time in each phase (thread time: what contention with other processes
 * does not lengthen, as it lengthens wall time). */
const cpu = phases.map(() => 0);
const stack = [];
/** Top-level main-thread events from `started` on (≥ 5 ms), with their descendants' self time by name. */
const tasks = [];
const addSelf = (e) => {
  if (e.task && e.dur - e.childDur > 0) e.task.self.set(e.name, (e.task.self.get(e.name) ?? 0) + (e.dur - e.childDur) / 1000);
  const at = ms(e.ts);
  const i = phases.findIndex(([, from, to]) => at >= from && at < to);
  if (i < 0) return;
  const self = e.dur - e.childDur;
  selfByPhase[i].set(e.name, (selfByPhase[i].get(e.name) ?? 0) + self / 1000);
};
for (const e of main) {
  const item = { name: e.name, ts: e.ts, end: e.ts + e.dur, dur: e.dur, childDur: 0 };
  while (stack.length && stack[stack.length - 1].end <= e.ts) addSelf(stack.pop());
  if (stack.length) {
    stack[stack.length - 1].childDur += Math.min(e.dur, stack[stack.length - 1].end - e.ts);
    item.task = stack[0].task;
  } else {
    if (ms(e.ts) >= (load.wasm ?? 0) - 50 && ms(e.ts) < load.control + 3000 && e.dur >= 5000) {
      item.task = { name: e.name, at: ms(e.ts), dur: e.dur / 1000, self: new Map(), fns: new Map() };
      tasks.push(item.task);
    }
    const at = ms(e.ts);
    const i = phases.findIndex(([, from, to]) => at >= from && at < to);
    if (i >= 0) {
      busy[i] += e.dur / 1000;
      cpu[i] += (e.tdur ?? 0) / 1000;
    }
  }
  stack.push(item);
}
while (stack.length) addSelf(stack.pop());

// The sampling profiler: self time per function, per phase.
const nodes = new Map();
const samples = [];
for (const e of events) {
  if (e.pid !== pid || e.name !== 'ProfileChunk') continue;
  const data = e.args.data;
  for (const node of data.cpuProfile?.nodes ?? []) nodes.set(`${e.id}:${node.id}`, node);
  const ids = data.cpuProfile?.samples ?? [];
  const deltas = data.timeDeltas ?? [];
  samples.push({ id: e.id, ids, deltas });
}
const profileStart = new Map(events.filter((e) => e.pid === pid && e.name === 'Profile').map((e) => [e.id, e.args.data.startTime]));
const fnByPhase = phases.map(() => new Map());
for (const [id, start] of profileStart) {
  let ts = start;
  const all = samples.filter((s) => s.id === id);
  const seq = [];
  for (const s of all) for (let i = 0; i < s.ids.length; i++) seq.push([s.ids[i], (ts += s.deltas[i])]);
  for (let i = 0; i + 1 < seq.length; i++) {
    const [node, at] = seq[i];
    const dur = (seq[i + 1][1] - at) / 1000;
    const phase = phases.findIndex(([, from, to]) => ms(at) >= from && ms(at) < to);
    if (phase < 0) continue;
    const frame = nodes.get(`${id}:${node}`)?.callFrame;
    const name = frame ? `${frame.functionName || '(anonymous)'}${frame.url && !frame.url.includes('.wasm') ? ` ${frame.url.split('/').pop()}` : ''}` : '?';
    fnByPhase[phase].set(name, (fnByPhase[phase].get(name) ?? 0) + dur);
    const task = tasks.find((t) => ms(at) >= t.at && ms(at) < t.at + t.dur);
    if (task) task.fns.set(name, (task.fns.get(name) ?? 0) + dur);
  }
}

const top = (map, n) =>
  [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, v]) => `    ${v.toFixed(1).padStart(8)}  ${name.slice(0, 150)}`).join('\n');
if (process.env.OFFSETLAB_PROFILE_SUMMARY) {
  // One line: each phase's length, main-thread busy (wall) and CPU ms.
  console.log(phases.map(([label, from, to], i) => `${label}: ${(to - from).toFixed(0)} busy ${busy[i].toFixed(0)} cpu ${cpu[i].toFixed(0)}`).join(' | '));
  process.exit(0);
}
phases.forEach(([label, from, to], i) => {
  console.log(`\n== ${label}: ${from?.toFixed(0)}..${to?.toFixed(0)} ms (${(to - from).toFixed(0)} ms), main thread busy ${busy[i].toFixed(0)} ms, CPU ${cpu[i].toFixed(0)} ms`);
  console.log('  trace events, self ms:');
  console.log(top(selfByPhase[i], 15));
  console.log('  functions sampled, self ms:');
  console.log(top(fnByPhase[i], TOP));
});

console.log('\n== main-thread tasks of 5 ms or more from the wasm\'s end: at, ms, what in them (self ms)');
const brief = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${k.slice(0, 70)} ${v.toFixed(0)}`).join(' | ');
for (const t of tasks) {
  console.log(`${t.at.toFixed(0).padStart(7)} ${t.dur.toFixed(0).padStart(5)}  ${t.name}: ${brief(t.self, 6)}`);
  if (t.fns.size) console.log(`${''.padStart(15)}fns: ${brief(t.fns, 6)}`);
}
