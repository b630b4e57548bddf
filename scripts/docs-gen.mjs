// `npm run docs`: rewrites the generated tables of docs/ from the built package (dist/, so run
// `npm run build` first; the `docs` script does). See scripts/docs-tables.mjs.
import { readFileSync, writeFileSync } from 'node:fs';
import { generatedBlocks, splice } from './docs-tables.mjs';

const api = await import(new URL('../dist/index.js', import.meta.url).href);
for (const [file, blocks] of Object.entries(generatedBlocks(api))) {
  const path = new URL(`../docs/${file}`, import.meta.url);
  const before = readFileSync(path, 'utf8');
  const after = splice(before, blocks, `docs/${file}`);
  if (after !== before) writeFileSync(path, after);
  console.log(`docs/${file}: ${after === before ? 'up to date' : 'updated'}`);
}
