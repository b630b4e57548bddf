import { PROBE_SCENARIOS, PROBE_VERDICTS, type ProbeVerdict, type ScenarioReport } from '../probe/probe-types.js';
import type { ConformanceMatrix, ConformanceRow } from './doctor-conformance-routes.js';

/**
 * `docs/conformance.md` and the README's list of open continuity defects, rendered from a
 * conformance matrix. Only what every run gives the same is written: verdicts, and details with
 * the run's own values (secret numbers, ports, session and request ids) replaced by names, so
 * the drift test (`test/docs/conformance-doc.test.ts`) compares like with like.
 */

/** The README block between these markers lists the open defects (`scripts/conformance.mjs` writes it). */
export const README_DEFECTS_MARKERS = {
  start: '<!-- conformance-defects:start (npm run conformance writes this list) -->',
  end: '<!-- conformance-defects:end -->',
} as const;

/** What the renderer produces. */
export interface ConformanceDocuments {
  /** The whole of `docs/conformance.md`. */
  document: string;
  /** The README block, markers excluded. */
  readmeDefects: string;
  /** Cells (route × way in × scenario) per verdict. */
  counts: Record<ProbeVerdict, number>;
}

const DETAIL_LIMIT = 240;

/** `readme` with its defect list replaced by `block`; the markers must be there, once each. */
export function spliceReadmeDefects(readme: string, block: string): string {
  const start = readme.indexOf(README_DEFECTS_MARKERS.start);
  const end = readme.indexOf(README_DEFECTS_MARKERS.end);
  if (start < 0 || end < start || readme.indexOf(README_DEFECTS_MARKERS.start, start + 1) >= 0) {
    throw new Error(
      `README.md needs the markers ${README_DEFECTS_MARKERS.start} and ${README_DEFECTS_MARKERS.end}, once each`,
    );
  }
  return `${readme.slice(0, start + README_DEFECTS_MARKERS.start.length)}\n${block}\n${readme.slice(end)}`;
}

/** The run's own values in a detail replaced by names; one line, at most {@link DETAIL_LIMIT} characters. */
export function stableDetail(detail: string): string {
  const text = detail
    .replace(/\bSECRET=\d+/g, 'SECRET=NNN')
    .replace(/\bhttp:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:PORT')
    .replace(/\b\d{8}-\d{6}-[0-9a-z]{6}\b/g, 'SESSION')
    .replace(/\breq_[A-Za-z0-9_]+/g, 'req_ID')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > DETAIL_LIMIT ? `${text.slice(0, DETAIL_LIMIT - 1)}…` : text;
}

const escapeCell = (text: string): string => text.replaceAll('|', '\\|');
const routeLabel = (row: ConformanceRow): string => `\`${row.route.persona}\` ${row.route.model}`;

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.map(escapeCell).join(' | ')} |`),
  ].join('\n');
}

function scenariosOf(row: ConformanceRow, way: string): ScenarioReport[] {
  return row.cells[way]?.scenarios ?? [];
}

/** The cells of one way in that are a defect (`lost`, `error`), grouped by route. */
function defects(matrix: ConformanceMatrix, way: string): { row: ConformanceRow; scenarios: ScenarioReport[] }[] {
  return matrix.rows.flatMap((row) => {
    const scenarios = scenariosOf(row, way).filter(
      (scenario) => scenario.verdict === 'lost' || scenario.verdict === 'error',
    );
    return scenarios.length > 0 ? [{ row, scenarios }] : [];
  });
}

/** Renders the document and the README block. */
export function renderConformanceDocument(matrix: ConformanceMatrix): ConformanceDocuments {
  const counts = Object.fromEntries(PROBE_VERDICTS.map((verdict) => [verdict, 0])) as Record<ProbeVerdict, number>;
  const perWay = matrix.ways.map((way) => {
    const wayCounts = Object.fromEntries(PROBE_VERDICTS.map((verdict) => [verdict, 0])) as Record<ProbeVerdict, number>;
    for (const row of matrix.rows) {
      for (const scenario of scenariosOf(row, way.name)) {
        wayCounts[scenario.verdict] += 1;
        counts[scenario.verdict] += 1;
      }
    }
    return { way, counts: wayCounts };
  });
  const cells = matrix.rows.length * matrix.ways.length * PROBE_SCENARIOS.length;
  const parts = [
    INTRODUCTION,
    '## Ways in\n',
    table(
      ['way in', 'what the probe does'],
      matrix.ways.map((way) => [`\`${way.name}\` (${way.label})`, WAY_NOTES[way.name] ?? 'a client of this way in']),
    ),
    '\n## Summary\n',
    `${matrix.rows.length} routes × ${matrix.ways.length} ways in × ${PROBE_SCENARIOS.length} scenarios = ${cells} cells: ` +
      `${PROBE_VERDICTS.map((verdict) => `${counts[verdict]} ${verdict}`).join(', ')}.\n`,
    table(
      ['way in', ...PROBE_VERDICTS],
      perWay.map(({ way, counts: wayCounts }) => [
        `\`${way.name}\``,
        ...PROBE_VERDICTS.map((verdict) => String(wayCounts[verdict])),
      ]),
    ),
    '\n## Routes\n',
    'What the route table sends each route back (`hermes model --json` lists the same for every known route).\n',
    table(
      ['route', 'wire API', 'reasoning sent back'],
      matrix.rows.map((row) => [routeLabel(row), `\`${row.api}\``, row.reads]),
    ),
    '\n## Open defects\n',
    defectSection(matrix),
    ...matrix.ways.flatMap((way) => [
      `\n## \`${way.name}\`: ${way.label}\n`,
      table(
        ['route', ...PROBE_SCENARIOS.map((name) => `\`${name}\``), 'overall'],
        matrix.rows.map((row) => [
          routeLabel(row),
          ...PROBE_SCENARIOS.map((name) => scenariosOf(row, way.name).find((s) => s.name === name)?.verdict ?? '—'),
          row.cells[way.name]?.verdict ?? '—',
        ]),
      ),
    ]),
  ];
  return { document: `${parts.join('\n')}\n`, readmeDefects: readmeBlock(matrix), counts };
}

/** Every `lost` and `error` cell with its detail. */
function defectSection(matrix: ConformanceMatrix): string {
  const lines: string[] = [];
  for (const way of matrix.ways) {
    for (const { row, scenarios } of defects(matrix, way.name)) {
      // Scenarios with the same verdict and detail share a line.
      const groups = new Map<string, string[]>();
      for (const scenario of scenarios) {
        const key = `${scenario.verdict}: ${stableDetail(scenario.detail)}`;
        groups.set(key, [...(groups.get(key) ?? []), `\`${scenario.name}\``]);
      }
      for (const [key, names] of groups)
        lines.push(`- \`${way.name}\` × ${routeLabel(row)}, ${names.join(', ')}: ${key}`);
    }
  }
  if (lines.length === 0) return 'None: every route that reads reasoning keeps it, on every way in.\n';
  return `Each is a cell where the number did not come back although the route should get it (\`lost\`), or a request failed (\`error\`).\n\n${lines.join('\n')}\n`;
}

/**
 * The README's short list: per way in, the routes with a defect, grouped by what went wrong
 * (routes of one persona share a name); the details are in the document.
 */
function readmeBlock(matrix: ConformanceMatrix): string {
  const lines = matrix.ways.flatMap((way) => {
    const found = defects(matrix, way.name);
    if (found.length === 0) return [];
    const groups = new Map<string, Map<string, string[]>>();
    for (const { row, scenarios } of found) {
      const pattern = defectPattern(scenarios);
      const personas = groups.get(pattern) ?? new Map<string, string[]>();
      personas.set(row.route.persona, [...(personas.get(row.route.persona) ?? []), row.route.model]);
      groups.set(pattern, personas);
    }
    const parts = [...groups].map(([pattern, personas]) => {
      const routes = [...personas].map(([persona, models]) => `\`${persona}\` ${models.join(', ')}`).join('; ');
      return `${pattern}: ${routes}`;
    });
    return [`- \`${way.name}\` (${way.label}), ${found.length} of ${matrix.rows.length} routes. ${parts.join('. ')}.`];
  });
  if (lines.length === 0) return 'None today: every route that reads reasoning keeps it, on every way in.';
  return `${lines.join('\n')}\n\nEach cell's detail: [docs/conformance.md, open defects](docs/conformance.md#open-defects).`;
}

/** "error in tool-loop, lost in the others" / "lost in every scenario". */
function defectPattern(scenarios: readonly ScenarioReport[]): string {
  const parts = (['error', 'lost'] as const).flatMap((verdict) => {
    const names = scenarios.filter((scenario) => scenario.verdict === verdict).map((scenario) => scenario.name);
    if (names.length === 0) return [];
    return [
      names.length === PROBE_SCENARIOS.length ? `${verdict} in every scenario` : `${verdict} in ${names.join(', ')}`,
    ];
  });
  const text = parts.join(', ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const WAY_NOTES: Readonly<Record<string, string>> = {
  cli: 'stored sessions run by the runtime, as `hermes chat` runs them; branch and compaction through the runtime (`hermes sessions branch`, `hermes sessions compress`)',
  chat: 'a client holding its history, as OpenCode does: `x-session-id`, client tools, the `reasoning_content` it was given sent back',
  messages:
    'a client holding its history, as Claude Code does: `x-claude-code-session-id`, client tools, thinking blocks sent back as returned',
  responses:
    'a client holding its history, as Codex does: `session_id`, `store: false`, client tools, reasoning items sent back as returned',
  gemini:
    "a client holding its history, as Gemini CLI does: streamed (`?alt=sse`), no session id anywhere (the door finds the conversation by its history), client function declarations; of an answer, thought parts shown and dropped, text joined under its first part's `thoughtSignature`, an empty closing part dropped, calls kept with their signatures; the resume sends what Gemini CLI sends after `--resume`: every call signed `skip_thought_signature_validator`, text parts unsigned, each `functionResponse` twice",
  acp: "an editor (the ACP library's client side) driving `hermes acp` processes over stdio: the stored probe session opened with `session/load`, each turn one `session/prompt` read from its `agent_message_chunk` and `agent_thought_chunk` updates, the tool allowed at its `session/request_permission`; copies and compaction as on the CLI, then loaded; the resume is `session/load` in a second agent process that never served the conversation (one pair of processes serves every route)",
};

const INTRODUCTION = `# Reasoning continuity, route by route

<!-- Generated by \`npm run conformance\` (scripts/conformance.mjs, from \`hermes doctor --probe continuity --matrix\`).
Do not edit: test/docs/conformance-doc.test.ts fails when this file differs from what the code produces. -->

Hermes promises that a session keeps its model's reasoning whatever happens to it. This page
shows it route by route: the continuity probe of \`hermes doctor --probe continuity\` (SPEC §26.5)
run on every built-in emulator persona, through every way into Hermes (how the probe works and
how to run it on your own route: [continuity.md](continuity.md)).

In each probe the model first chooses a secret number in its private reasoning and never writes
it. Then four scenarios ask for it, each in a copy of the conversation of its own:

- \`tool-loop\`: the model calls a tool first, then answers;
- \`resume\`: the conversation itself, continued from a fresh start (here: its state.db opened
  anew and a new runtime, a new gateway for the doors, another \`hermes acp\` process for ACP;
  \`hermes doctor\` resumes the CLI in a new process);
- \`compaction\`: after the earlier turns were summarised, the pick kept verbatim;
- \`branch\`: in a branch (\`hermes sessions branch\`; at a door, the client's history forked under a
  new session id, where the other scenarios keep the conversation's own; Gemini CLI names no
  session, so there the branch is the client's copy of its history, found by that history).

The emulators play it honestly: a number is drawn at random and written only in the reasoning;
asked later, an emulator recalls it only from the reasoning that came back to it (readable
reasoning, or the signed and sealed blobs it issued itself). Verdicts: \`kept\` (the number came
back), \`lost\` (it did not, although the route should get the reasoning back), \`not-read\` (the
route table sends this route no earlier reasoning, by design) and \`error\` (a request failed).
A \`lost\` or \`error\` cell is an open defect, listed below and in the README.
`;
