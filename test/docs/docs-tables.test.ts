import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../src/providers/provider-registry.js';
import { CARRIER_ROUTE_ROWS } from '../../src/replay/replay-carrier-routes.js';
import { MUST_ECHO_FAMILIES } from '../../src/replay/replay-must-echo.js';
// @ts-expect-error -- a plain .mjs script without declarations
import { generatedBlocks, splice } from '../../scripts/docs-tables.mjs';

/**
 * The provider table (docs/providers.md) and the route tables (docs/replay.md) are generated from
 * the code by `npm run docs`; a committed doc that no longer matches the code fails here.
 */
describe('generated docs tables', () => {
  const blocks = generatedBlocks({ PROVIDERS, CARRIER_ROUTE_ROWS, MUST_ECHO_FAMILIES }) as Record<
    string,
    Record<string, string>
  >;
  for (const [file, fileBlocks] of Object.entries(blocks)) {
    it(`docs/${file} matches the code`, () => {
      const committed = readFileSync(join(process.cwd(), 'docs', file), 'utf8');
      const expected = splice(committed, fileBlocks, `docs/${file}`) as string;
      expect(committed === expected, `docs/${file} is stale: run npm run docs`).toBe(true);
    });
  }

  it('fails on a stale table', () => {
    const committed = readFileSync(join(process.cwd(), 'docs', 'providers.md'), 'utf8');
    const stale = committed.replace('`DEEPSEEK_API_KEY`', '`DEEPSEEK_KEY`');
    expect(splice(stale, blocks['providers.md'], 'docs/providers.md')).not.toBe(stale);
  });
});
