import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformanceMatrix } from '../../src/cli/doctor-conformance.js';
import type { ConformanceMatrix } from '../../src/cli/doctor-conformance-routes.js';
import {
  renderConformanceDocument,
  spliceReadmeDefects,
  stableDetail,
  type ConformanceDocuments,
} from '../../src/cli/doctor-conformance-render.js';
import { scaledTimeout } from '../support/timeouts.js';

/**
 * SPEC §26.5: docs/conformance.md and the README's list of open continuity defects are what the
 * continuity probe finds today over every emulator persona and way in. This runs the whole matrix
 * from src/ (about 15 s of CPU in this process; the ACP column drives two `hermes acp` processes
 * of the build, dist/cli.js) and fails when either file differs: run `npm run conformance` after a
 * change that moves a cell.
 */

const read = (file: string): string => readFileSync(join(process.cwd(), file), 'utf8');

describe('docs/conformance.md', () => {
  let run: Promise<ConformanceMatrix> | undefined;
  const results = (): Promise<ConformanceMatrix> => (run ??= runConformanceMatrix());
  const matrix = async (): Promise<ConformanceDocuments> => renderConformanceDocument(await results());

  it(
    'is what the probe finds today (npm run conformance rewrites it)',
    async () => {
      const { document } = await matrix();
      expect(read('docs/conformance.md'), 'docs/conformance.md is stale: run npm run conformance').toBe(document);
    },
    scaledTimeout(300_000),
  );

  it(
    "the README lists every lost and error cell's route (npm run conformance rewrites the list)",
    async () => {
      const { readmeDefects, counts } = await matrix();
      const readme = read('README.md');
      expect(spliceReadmeDefects(readme, readmeDefects) === readme, 'README.md defect list is stale').toBe(true);
      // The list is not empty exactly when the matrix has a defect.
      expect(readmeDefects.startsWith('None')).toBe(counts.lost + counts.error === 0);
    },
    scaledTimeout(300_000),
  );

  it('every cell is filled, and the matrix covers at least 25 routes and the six ways in', async () => {
    const { document, counts } = await matrix();
    const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
    const routes = /^(\d+) routes × (\d+) ways in × 4 scenarios = (\d+) cells/m.exec(document);
    expect(Number(routes?.[1])).toBeGreaterThanOrEqual(25);
    expect(Number(routes?.[2])).toBeGreaterThanOrEqual(6);
    expect(total).toBe(Number(routes?.[3]));
    expect(document).not.toMatch(/\| — \|/);
  });

  it.each(['cli', 'gemini', 'acp'])(
    'through %s: kept on every route that reads every earlier turn, not-read where the table sends nothing',
    async (way) => {
      const { rows, ways } = await results();
      expect(ways.map((entry) => entry.name)).toContain(way);
      for (const row of rows) {
        const cell = row.cells[way];
        const expected = row.reads.startsWith('every earlier turn') ? 'kept' : 'not-read';
        expect({ route: `${row.route.persona} ${row.route.model}`, verdict: cell?.verdict }).toEqual({
          route: `${row.route.persona} ${row.route.model}`,
          verdict: expected,
        });
      }
      expect(rows.filter((row) => row.cells[way]?.verdict === 'kept').length).toBeGreaterThanOrEqual(20);
    },
  );

  it('a stale document or README list is seen as stale', () => {
    const readme = read('README.md');
    expect(spliceReadmeDefects(readme, 'something else')).not.toBe(readme);
    expect(() => spliceReadmeDefects('no markers here', 'x')).toThrow(/markers/);
  });

  it("details keep no run's own values", () => {
    expect(
      stableDetail('answered SECRET=417 at http://127.0.0.1:40123/v1 in 20261204-204944-6i28of (req_emu_0007)'),
    ).toBe('answered SECRET=NNN at http://127.0.0.1:PORT/v1 in SESSION (req_ID)');
  });
});
