// Driving the release page in Debian's headless Chromium with playwright-core (which downloads
// no browser). One browser and one static server per test file; a fresh context per test.

import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';
import { serve } from './server.mjs';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The element holding the page's first render, prerendered into index.html at build time
 * (crates/web/src/prerender.rs ROOT_ID); the live app removes it when it mounts. */
export const PRERENDER_ID = 'offsetlab-prerender';

/** How long one wait for the page may take before the test fails, in ms. */
export const WAIT_MS = 15_000;
/** How long a selector may take to appear before the test names it as missing, in ms. */
export const NEED_MS = 2_000;

/** The counters the sink shows, by data-counter name, and their field in View.metrics. */
export const COUNTERS = {
  delivered: 'delivered',
  duplicates: 'duplicates',
  'never-processed': 'never_processed',
  'out-of-key-order': 'out_of_key_order',
  'total-lag': 'total_lag',
  'active-consumers': 'active_consumers',
  generation: 'generation',
  effects: 'effects',
};

/** Headless Chromium, with a fresh temporary profile (playwright manages it). */
export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * Registers before/after hooks in the enclosing describe(): one server (of `root`, the built
 * page: dist/ when left out) and one browser for the file. Returns an object whose `server` and `browser` are set once the hooks ran.
 */
export function useBrowser(root = undefined) {
  const env = { server: null, browser: null };
  before(async () => {
    env.server = await serve(root);
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}

/**
 * Opens the page at ?seed=N (or at `query`, e.g. a shared link's "?h=…&s=…") in a fresh
 * browser context and waits for the app.
 * With `pause` (the default) the clock is stopped, so only the test's clicks move time.
 * `init`, a function, runs in the page before any of its scripts (playwright's addInitScript).
 */
export async function openLab(env, options = {}) {
  const {
    seed = 1,
    viewport = { width: 1440, height: 900 },
    colorScheme = 'light',
    reducedMotion = 'no-preference',
    pause = true,
    query = `?seed=${seed}`,
    init = null,
  } = options;
  const context = await env.browser.newContext({ viewport, deviceScaleFactor: 1, colorScheme, reducedMotion });
  // window.__spoken(element): its text without aria-hidden parts (icons), as a screen reader says it.
  await context.addInitScript(() => {
    window.__spoken = (element) => {
      if (!element) return null;
      const copy = element.cloneNode(true);
      for (const hidden of copy.querySelectorAll('[aria-hidden=true]')) hidden.remove();
      return copy.textContent.replace(/\s+/g, ' ').trim();
    };
  });
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const lab = new Lab(context, page);
  await page.goto(`${env.server.url}/${query}`);
  await lab.waitForApp({ pause });
  if (pause) await lab.pause();
  await lab.waitForLiveParts();
  return lab;
}

export class Lab {
  constructor(context, page) {
    this.context = context;
    this.page = page;
    /** Uncaught exceptions and console errors (a wasm panic shows as both). */
    this.errors = [];
    page.on('pageerror', (error) => this.errors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      if ((message.location()?.url ?? '').endsWith('/favicon.ico')) return;
      this.errors.push(`console.error: ${message.text()}`);
    });
  }

  /** Waits for the live app: its view is published and the copy prerendered into index.html
   * (PRERENDER_ID, the same controls, not yet working) is gone. With `pause`, clicks Pause in the
   * first animation frame that sees it, before the clock's first tick (the clock starts at 0 ticks
   * in its first frame), so that tests start from tick 0 however slow the machine. */
  async waitForApp({ pause = false } = {}) {
    await this.page.waitForFunction(
      ([id, pause]) => {
        const live =
          typeof window.offsetlab_view === 'function' &&
          window.offsetlab_view() !== null &&
          document.getElementById(id) === null;
        const play = live && pause ? document.querySelector('button[data-action=play]') : null;
        if (play && window.__spoken(play) === 'Pause') play.click();
        return live;
      },
      [PRERENDER_ID, pause],
      { polling: 'raf' },
    );
  }

  /** Opens a panel under the simulation (settings, offset-storage, operations, share) unless open. */
  async openPanel(slug) {
    if ((await this.page.locator(`[data-open-panel=${slug}]`).count()) === 0) {
      await this.click(`button[data-panel=${slug}]`);
    }
    await this.need(`[data-open-panel=${slug}]`);
  }

  /** Waits until no part of the prerendered copy stands in ([data-prerendered]: the parts below
   * the first screen go live when the browser is idle after the first frame), so selectors find
   * only live parts. */
  async waitForLiveParts() {
    await this.page.waitForFunction(() => document.querySelector('[data-prerendered]') === null);
  }

  /** The engine's View on screen (window.offsetlab_view()). */
  view() {
    return this.page.evaluate(() => window.offsetlab_view());
  }

  /** Lets Yew render what was dispatched: two animation frames and a task. */
  async settle() {
    await this.page.evaluate(
      () =>
        new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0)))),
    );
  }

  /** Fails at once, naming the selector, when nothing in the page matches it (after a short wait). */
  async need(selector) {
    try {
      await this.page.waitForSelector(selector, { state: 'attached', timeout: NEED_MS });
    } catch (error) {
      if (error.name !== 'TimeoutError') throw error;
      assert.fail(`the page has no ${selector}`);
    }
  }

  /** The first match's text without aria-hidden parts, whitespace collapsed; fails when there is none. */
  async text(selector) {
    await this.need(selector);
    return this.page.locator(selector).first().evaluate((element) => window.__spoken(element));
  }

  /** text() once the reader has scrolled the first match into view: a section that draws the
   * run only while on screen (a describe table, a panel's chart) is up to date there. */
  async shownText(selector) {
    await this.need(selector);
    await this.page.locator(selector).first().scrollIntoViewIfNeeded();
    await this.settle();
    return this.text(selector);
  }

  /** Waits until the first match's text (as text() reads it) is `expected`. */
  async waitForText(selector, expected) {
    await this.need(selector);
    try {
      await this.page.waitForFunction(
        ([s, t]) => window.__spoken(document.querySelector(s)) === t,
        [selector, expected],
      );
    } catch {
      assert.fail(`${selector} reads ${JSON.stringify(await this.text(selector))}, expected ${JSON.stringify(expected)}`);
    }
  }

  /** Clicks like a user (scrolled into view, visible, enabled), then lets the page render. */
  async click(selector) {
    await this.need(selector);
    await this.page.locator(selector).first().click();
    await this.settle();
  }

  /** Stops the clock with the Play/Pause button; checks the clock reads "paused". */
  async pause() {
    if ((await this.text('button[data-action=play]')) === 'Pause') {
      await this.page.locator('button[data-action=play]').click();
    }
    await this.waitForText('button[data-action=play]', 'Play');
    await this.waitForText('[data-field=clock]', 'paused');
  }

  /** Stops the clock, and starts the run again from tick 0 (same seed, same scenario) when the
   * clock got a tick in before it stopped: on a loaded machine the first frames after a load can
   * already be a tick's time apart. */
  async pauseAtStart() {
    await this.pause();
    if ((await this.view()).tick !== 0) await this.click('button[data-action=restart]');
    await this.page.waitForFunction(() => window.offsetlab_view()?.tick === 0);
    await this.waitForText('button[data-action=play]', 'Play');
  }

  /** `ticks` clicks on Step, each waiting until the view on screen is one tick further. */
  async step(ticks = 1) {
    for (let i = 0; i < ticks; i++) {
      const tick = (await this.view()).tick;
      await this.need('button[data-action=step]');
      await this.page.locator('button[data-action=step]').click();
      await this.page.waitForFunction((t) => window.offsetlab_view()?.tick === t + 1, tick);
    }
    await this.settle();
    assert.equal(await this.text('[data-field=tick]'), `tick ${(await this.view()).tick}`);
  }

  /** Clicks Send 10 and waits until the view has 10 more records produced. */
  async send10() {
    const before = (await this.view()).metrics.produced;
    await this.click('button[data-action=send-10]');
    await this.page.waitForFunction((n) => window.offsetlab_view()?.metrics.produced >= n, before + 10);
    return before + 10;
  }

  /** One sink counter as a number; its text must be just the number. */
  async counter(name) {
    const text = await this.text(`[data-counter=${name}]`);
    assert.match(text, /^\d+$/, `[data-counter=${name}] reads ${JSON.stringify(text)}, not a number`);
    return Number(text);
  }

  /** Every sink counter, each checked against the view's metrics. */
  async counters() {
    await this.settle();
    const { metrics } = await this.view();
    const values = {};
    for (const [name, field] of Object.entries(COUNTERS)) {
      values[name] = await this.counter(name);
      assert.equal(values[name], metrics[field], `[data-counter=${name}] disagrees with view.metrics.${field}`);
    }
    return values;
  }

  /** The consumer card's state text, checked against the view. */
  async consumerState(id) {
    const text = await this.text(`[data-consumer=${id}] [data-field=state]`);
    const consumer = (await this.view()).consumers.find((c) => c.id === id);
    assert.ok(consumer, `no consumer ${id} in the view`);
    assert.equal(text, consumer.idle_spare ? 'idle spare' : consumer.state, `${id}'s card state`);
    return text;
  }

  /** Closes the context; fails if the page threw or logged an error. */
  async close() {
    const errors = this.errors.slice();
    await this.context.close();
    assert.deepEqual(errors, [], 'the page reported errors');
  }
}

/** Runs `body` with a lab, always closing it (and failing on page errors). */
export async function withLab(env, options, body) {
  const lab = await openLab(env, options);
  try {
    await body(lab);
  } catch (error) {
    // What the page itself reported (a wasm panic, a console error) is often the cause of a
    // failed wait: it goes with the failure instead of being lost with the page.
    if (lab.errors.length > 0 && error instanceof Error) {
      error.message += `\nthe page reported: ${lab.errors.join(' | ')}`;
    }
    await lab.context.close().catch(() => {});
    throw error;
  }
  await lab.close();
}
