// Words before definitions (issue 37, point 9): the page names no internal system, chapter 1 starts
// in plain words, each of the terms below is defined where a reader first meets it, and the fine
// print is short and says one thing about the brokers.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useBrowser, withLab } from './lib/page.mjs';

/** The internal name of seed 000's log system, which the page must not show. */
const INTERNAL = /booblik/i;

/** The terms checked, each as the patterns that name it (an abbreviation or its expansion). */
const TERMS = {
  ISR: /\bISR\b|in-sync replica/i,
  HW: /\bHW\b|high watermark/i,
  LSO: /\bLSO\b|last stable offset/i,
  epoch: /epoch/i,
};

/** The fine print's most words: it is a few true sentences per item, not a manual. */
const FINE_PRINT_WORDS_MAX = 500;

/** Opens every <details> (the fine print, the notes, the guide's) and lets the page render. */
async function expandAll(lab) {
  await lab.page.evaluate(() => {
    for (const details of document.querySelectorAll('details')) details.open = true;
  });
  await lab.settle();
}

/**
 * Everything on the page a user can see or reach, as `[where, value]` pairs: each visible text
 * node; every element's title, aria-label, id, href and data-* values (they show as tooltips,
 * are spoken, or end up in the address bar); the document's title and the address itself.
 */
function shown(lab) {
  return lab.page.evaluate(() => {
    const out = [['location', location.href], ['document.title', document.title]];
    const describe = (element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${element.className && typeof element.className === 'string' ? `.${element.className.split(' ')[0]}` : ''}`;
    for (const element of document.querySelectorAll('body *')) {
      for (const attribute of element.attributes) {
        const name = attribute.name;
        if (['title', 'aria-label', 'id', 'href'].includes(name) || name.startsWith('data-')) {
          out.push([`${describe(element)} [${name}]`, attribute.value]);
        }
      }
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('script, style, noscript')) continue;
      if (!parent.checkVisibility({ visibilityProperty: true })) continue;
      if (node.data.trim()) out.push([`text in ${describe(parent)}`, node.data.trim()]);
    }
    return out;
  });
}

/** Fails naming each place the internal name shows. */
async function assertNoInternalName(lab, where) {
  const hits = (await shown(lab)).filter(([, value]) => INTERNAL.test(value));
  assert.deepEqual(
    hits.map(([place, value]) => `${place}: ${value.slice(0, 120)}`),
    [],
    `${where}: the internal name shows`,
  );
}

/**
 * For each term, where its first visible occurrence in document order stands, and whether it is
 * defined there: `{ term, context, defined, how }`.
 *
 * Defined means one of:
 * - inside a <dfn> (the defining instance: the sentence around it says what it is);
 * - inside an element whose title says more than the term (at least 8 more characters) and that
 *   the keyboard reaches (it, or an ancestor, has tabIndex >= 0), so its tooltip is not for mouse
 *   users only;
 * - right after such a definition: between the end of the <dfn> (or the titled element) and the
 *   term stand at most 3 characters besides spaces, such as the " (" of "in-sync replicas (ISR)".
 * Anything else, a bare mention before any definition, is not.
 */
function firstUses(lab, terms) {
  return lab.page.evaluate((sources) => {
    const BLOCK = 'p, li, dd, dt, h1, h2, h3, h4, h5, h6, td, th, pre, summary, figcaption, section, div, header, main';
    const reachable = (element) => {
      for (let e = element; e && e !== document.body; e = e.parentElement) if (e.tabIndex >= 0) return true;
      return false;
    };
    const titled = (element, term) => {
      const title = (element.getAttribute('title') || '').trim();
      return title.length >= term.length + 8 && title.toLowerCase() !== term.toLowerCase() && reachable(element);
    };
    // A definition element: a <dfn>, or a titled element the keyboard reaches.
    const definition = (element, term) =>
      element.nodeType === Node.ELEMENT_NODE && (element.matches('dfn') || titled(element, term));
    const defined = (node, index, term) => {
      const block = node.parentElement.closest(BLOCK);
      for (let e = node.parentElement; e && e !== block; e = e.parentElement) {
        if (e.matches('dfn')) return 'inside a <dfn>';
        if (titled(e, term)) return `inside a titled <${e.tagName.toLowerCase()}>`;
      }
      if (block && titled(block, term) && block.contains(node)) return `inside a titled <${block.tagName.toLowerCase()}>`;
      // Backwards from the term, through inline siblings, to the nearest element.
      let between = node.data.slice(0, index);
      let at = node;
      while (at && at !== block) {
        let sibling = at.previousSibling;
        while (sibling && sibling.nodeType !== Node.ELEMENT_NODE) {
          between = (sibling.textContent || '') + between;
          sibling = sibling.previousSibling;
        }
        if (between.replace(/\s/g, '').length > 3) return null;
        if (sibling) {
          return definition(sibling, term) ? `right after a <${sibling.tagName.toLowerCase()}>` : null;
        }
        at = at.parentElement;
      }
      return null;
    };
    const results = [];
    for (const [term, source] of Object.entries(sources)) {
      const pattern = new RegExp(source, 'i');
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      let found = null;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (!parent || parent.closest('script, style, noscript')) continue;
        if (!parent.checkVisibility({ visibilityProperty: true })) continue;
        const match = pattern.exec(node.data);
        if (!match) continue;
        const how = defined(node, match.index, match[0]);
        const block = parent.closest(BLOCK) || parent;
        found = { term, context: block.textContent.replace(/\s+/g, ' ').trim().slice(0, 160), defined: how !== null, how };
        break;
      }
      results.push(found ?? { term, context: null, defined: false, how: 'not on the page' });
    }
    return results;
  }, Object.fromEntries(Object.entries(terms).map(([term, pattern]) => [term, pattern.source])));
}

/** Asserts that each term present is defined at its first use; `required` terms must be present. */
async function assertDefinedAtFirstUse(lab, terms, required, where) {
  const uses = await firstUses(lab, terms);
  const wrong = [];
  for (const use of uses) {
    if (use.context === null) {
      if (required.includes(use.term)) wrong.push(`${use.term} is not on the page`);
    } else if (!use.defined) {
      wrong.push(`${use.term} is first used undefined, in: ${JSON.stringify(use.context)}`);
    }
  }
  assert.deepEqual(wrong, [], `${where}: terms used before they are defined`);
  return uses;
}

describe('words before definitions', () => {
  const env = useBrowser();

  /** The whole page at 1440x900, every <details> open. */
  const whole = (body) =>
    withLab(env, { seed: 1, viewport: { width: 1440, height: 900 } }, async (lab) => {
      await expandAll(lab);
      await body(lab);
    });

  it("chapter 1's first paragraph says in words how a key picks a partition, without the formula", { timeout: 60_000 }, async () => {
    await whole(async (lab) => {
      const first = await lab.text('#log-and-keys .chapter-story > p');
      assert.ok(!first.includes('murmur2('), `chapter 1's first paragraph shows the formula: ${first}`);
      assert.match(first, /key/, "chapter 1's first paragraph says how the key picks a partition");
    });
  });

  it('ISR, HW, LSO and epoch are each defined where the page first uses them', { timeout: 60_000 }, async (t) => {
    await whole(async (lab) => {
      const uses = await assertDefinedAtFirstUse(lab, TERMS, Object.keys(TERMS), 'the whole page');
      for (const use of uses) t.diagnostic(`${use.term}: ${use.how} — ${use.context}`);
    });
  });

  it('the fine print is short and does not say both that the brokers never fail and that the page models them', { timeout: 60_000 }, async (t) => {
    await whole(async (lab) => {
      const fine = (await lab.text('#fine-print')).toLowerCase();
      assert.ok(!(fine.includes('never fails') && fine.includes('models them')), 'the fine print contradicts itself');
      const words = fine.split(/\s+/).length;
      t.diagnostic(`fine print: ${words} words`);
      assert.ok(words <= FINE_PRINT_WORDS_MAX, `the fine print has ${words} words, more than ${FINE_PRINT_WORDS_MAX}`);
    });
  });

  it('the internal name shows nowhere: the page, each panel, each experiment a chapter links', { timeout: 240_000 }, async () => {
    await whole(async (lab) => {
      await assertNoInternalName(lab, 'the whole page');
      const panels = await lab.page.locator('button[data-panel]').evaluateAll((buttons) => buttons.map((b) => b.dataset.panel));
      assert.ok(panels.includes('offset-storage'), `the panels: ${panels}`);
      for (const panel of panels) {
        await lab.openPanel(panel);
        await expandAll(lab);
        await assertNoInternalName(lab, `the ${panel} panel`);
      }
      // Every experiment a chapter lists as a link, loaded: its card, its guide and the address.
      const jumps = await lab.page.locator('[data-jump]').evaluateAll((links) => links.map((a) => a.dataset.jump));
      assert.ok(jumps.length >= 10, `the chapters link ${jumps.length} experiments`);
      for (const name of jumps) {
        await lab.click(`[data-jump="${name}"]`);
        await lab.need(`#x-${name}.running`);
        await expandAll(lab);
        await assertNoInternalName(lab, `experiment ${name}`);
      }
    });
  });

  for (const [scenario, panel] of [
    ['key-erasure-bridge', 'offset-storage'],
    ['torn-checkpoint', 'offset-storage'],
    ['torn-checkpoint', 'settings'],
    ['partition-for-null', 'offset-storage'],
  ]) {
    it(`${scenario} with the ${panel} panel open shows no internal name`, { timeout: 60_000 }, async () => {
      await withLab(env, { query: `?seed=1&scenario=${scenario}` }, async (lab) => {
        await lab.step(12);
        await lab.openPanel(panel);
        await expandAll(lab);
        await assertNoInternalName(lab, `${scenario}, ${panel} panel`);
      });
    });
  }

  // The simulation above the chapters shows epochs and the last stable offset in these runs: the
  // labels there must define them (or come after a definition) too.
  for (const [scenario, required] of [
    ['consumer-protocol-scale-out', ['epoch']],
    ['eos-read-process-write', ['epoch', 'LSO']],
  ]) {
    it(`${scenario}: ${required.join(' and ')} defined at first use`, { timeout: 60_000 }, async (t) => {
      await withLab(env, { query: `?seed=1&scenario=${scenario}` }, async (lab) => {
        await lab.step(20);
        await expandAll(lab);
        const uses = await assertDefinedAtFirstUse(lab, TERMS, required, scenario);
        for (const use of uses) t.diagnostic(`${use.term}: ${use.how} — ${use.context}`);
      });
    });
  }

  // With brokers, the tapes' labels (HW, ISR, ELR) come before chapter 8 defines them: each
  // tape's replicas line carries their definitions in a title the keyboard reaches.
  it('acks1-leader-crash: ISR and HW defined at first use', { timeout: 60_000 }, async (t) => {
    await withLab(env, { query: '?seed=14&scenario=acks1-leader-crash' }, async (lab) => {
      await lab.step(10);
      await expandAll(lab);
      const uses = await assertDefinedAtFirstUse(lab, TERMS, ['ISR', 'HW'], 'acks1-leader-crash');
      for (const use of uses) t.diagnostic(`${use.term}: ${use.how} — ${use.context}`);
    });
  });
});
