import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/** What the scan checks: WCAG 2.x A and AA, and axe's best practices (landmarks, one main, headings). */
const STANDARDS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** The impacts that fail a screen; moderate and minor ones are reported by axe but do not fail. */
const FAILING_IMPACTS: ReadonlySet<string> = new Set(['serious', 'critical']);

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is now, one line
 * each (rule, impact, what it means, where): `[]` when there are none. A browser test adding a
 * screen checks it in one line:
 *
 *   expect(await accessibilityViolations(page)).toEqual([]);
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(STANDARDS).analyze();
  return violations
    .filter((violation) => FAILING_IMPACTS.has(violation.impact ?? ''))
    .flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id} (${violation.impact}): ${violation.help} — ${node.target.join(' ')}`),
    );
}
