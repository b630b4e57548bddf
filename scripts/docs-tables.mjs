// The tables of docs/ that mirror code, rendered from the values the code exports, and the
// splice that puts each between its marker comments. scripts/docs-gen.mjs (npm run docs) feeds it
// the built dist; test/docs/docs-tables.test.ts feeds it src/ and fails when docs/ is stale.

const cell = (value) => (value === undefined || value === '' ? '—' : String(value).replaceAll('|', '\\|'));
const code = (value) => (value === undefined || value === '' ? '—' : `\`${String(value).replaceAll('|', '\\|')}\``);
const list = (values) => (values.length === 0 ? '—' : values.map(code).join(', '));

function table(header, rows) {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** Provider table: id, wire API, default base URL, key variable, default model, reasoning request flags. */
export function providerTable(providers) {
  const rows = providers.map((info) => {
    const on = info.reasoningRequest('model', { enabled: true });
    const high = info.reasoningRequest('model', { enabled: true, effort: 'high' });
    const flags = Object.keys(on).length === 0 && Object.keys(high).length === 0;
    return [
      code(info.id),
      code(info.api),
      cell(info.baseUrl),
      code(info.apiKeyEnv),
      code(info.defaultModel),
      flags ? '—' : `${code(JSON.stringify(on))}; effort high: ${code(JSON.stringify(high))}`,
    ];
  });
  return table(
    ['provider', 'wire API', 'default base URL', 'key variable', 'default model', 'reasoning on (body keys)'],
    rows,
  );
}

/** The chat-completions carrier table, in evaluation order. */
export function carrierTable(rows) {
  return table(
    ['#', 'row', 'carriers read', 'provider ids', 'hosts'],
    rows.map((row, index) => [
      String(index + 1),
      code(row.name),
      list(row.carriers),
      list(row.providers),
      list(row.hosts),
    ]),
  );
}

/** The must-echo families, in evaluation order. */
export function mustEchoTable(families) {
  return table(
    ['family', 'provider ids (exact case)', 'provider ids', 'model id contains', 'hosts'],
    families.map((family) => [
      code(family.name),
      list(family.exactProviders),
      list(family.providers),
      list(family.modelSubstrings),
      list(family.hosts),
    ]),
  );
}

/** Every generated block: file under docs/ → marker name → markdown. */
export function generatedBlocks(api) {
  return {
    'providers.md': { providers: providerTable(api.PROVIDERS) },
    'replay.md': {
      'carrier-routes': carrierTable(api.CARRIER_ROUTE_ROWS),
      'must-echo': mustEchoTable(api.MUST_ECHO_FAMILIES),
    },
  };
}

/** `text` with each `<!-- generated:NAME -->…<!-- /generated:NAME -->` block replaced; throws on a missing marker. */
export function splice(text, blocks, file) {
  let out = text;
  for (const [name, body] of Object.entries(blocks)) {
    const open = `<!-- generated:${name} (npm run docs) -->`;
    const close = `<!-- /generated:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`${file}: missing ${open} … ${close}`);
    out = `${out.slice(0, start + open.length)}\n\n${body}\n\n${out.slice(end)}`;
  }
  return out;
}
