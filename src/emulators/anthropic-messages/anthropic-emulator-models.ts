/**
 * Which Claude models keep earlier turns' thinking in context, as the service behaves (Anthropic
 * docs, "Preserving thinking blocks"; SPEC §9.1): on those models a replayed earlier turn's
 * thinking is read and its signature verified; on older ones only the in-flight tool loop's
 * thinking is. The emulator keeps its own table so that it checks the client's replay policy
 * instead of sharing it.
 */

/** First version, per model family, that keeps earlier turns' thinking. */
const KEEPS_PRIOR_THINKING_SINCE: readonly { family: string; major: number; minor: number }[] = [
  { family: 'opus', major: 4, minor: 5 },
  { family: 'sonnet', major: 4, minor: 6 },
  { family: 'haiku', major: 5, minor: 5 },
];
/** Any family the table does not name keeps it from 5.0. */
const OTHER_FAMILIES_SINCE = { major: 5, minor: 0 };

/** Claude 3 and older name the version first (`claude-3-7-sonnet`) and keep only the last turn's thinking. */
const OLDER_GENERATIONS = ['claude-2', 'claude-3', 'claude-instant'];

// `claude-FAMILY-MAJOR[-MINOR]`; an 8-digit date suffix (`claude-sonnet-4-20250514`) is not a minor.
const VERSIONED_ID = /claude-([a-z]+)-(\d{1,2})(?:[-.](\d{1,2}))?(?!\d)/;

/**
 * True when `model` keeps earlier turns' thinking. Platform prefixes and suffixes are ignored
 * (`us.anthropic.claude-opus-4-8-v1:0`, `claude-opus-4-8@20251001`); a Claude id of an unknown
 * shape is a model newer than this table and keeps it; any other model does not.
 */
export function emulatedModelKeepsPriorThinking(model: string): boolean {
  const lowered = model.toLowerCase();
  const start = lowered.indexOf('claude');
  if (start < 0) return false;
  const id = lowered.slice(start);
  if (OLDER_GENERATIONS.some((prefix) => id.startsWith(prefix))) return false;
  const match = VERSIONED_ID.exec(id);
  if (!match) return true;
  const family = match[1] ?? '';
  const version = { major: Number(match[2]), minor: match[3] === undefined ? 0 : Number(match[3]) };
  const since = KEEPS_PRIOR_THINKING_SINCE.find((row) => row.family === family) ?? OTHER_FAMILIES_SINCE;
  return version.major > since.major || (version.major === since.major && version.minor >= since.minor);
}

/** `claude-FAMILY-MAJOR[-MINOR]` as a version, or undefined (platform prefixes ignored). */
function versionOf(model: string): { family: string; major: number; minor: number } | undefined {
  const lowered = model.toLowerCase();
  const match = VERSIONED_ID.exec(lowered.slice(Math.max(0, lowered.indexOf('claude'))));
  if (!match) return undefined;
  return { family: match[1] ?? '', major: Number(match[2]), minor: match[3] === undefined ? 0 : Number(match[3]) };
}

function listed(model: string, floors: Readonly<Record<string, readonly [number, number]>>): boolean {
  const version = versionOf(model);
  const floor = version ? floors[version.family] : undefined;
  if (!version || !floor) return false;
  return version.major > floor[0] || (version.major === floor[0] && version.minor >= floor[1]);
}

/** Models Anthropic's compaction pages list for on-demand compaction (`compact-2026-09-04`). */
export function emulatedModelCompactsOnDemand(model: string): boolean {
  if (model.toLowerCase().includes('claude-mythos-preview')) return true;
  return listed(model, { opus: [4, 6], sonnet: [4, 6], haiku: [5, 5], fable: [5, 0], mythos: [5, 0] });
}

/** Models the preserved-thinking pages list: their compaction keeps kept turns' thinking valid. */
export function emulatedModelPreservesThinking(model: string): boolean {
  return listed(model, { fable: [5, 1], mythos: [5, 1], opus: [5, 5], sonnet: [5, 5], haiku: [5, 5] });
}
