// axe-core, run in the page under test.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const AXE_SOURCE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations in the page as it is now, one line each (rule, impact, nodes). */
export async function axeViolations(lab) {
  await lab.page.evaluate(AXE_SOURCE);
  const violations = await lab.page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n')[1] ?? ''}`),
      count: v.nodes.length,
    }));
  });
  return violations.map((v) => `${v.id} (${v.impact}, ${v.count} nodes): ${v.nodes.join(' | ')}`);
}
