import { existsSync } from 'node:fs';
import type { HermesConfig } from '../config/config-load.js';
import { THINKING_BINDING_BETA } from '../replay/anthropic-thinking-policy.js';
import type { RouteProfile } from '../replay/replay-route-profile.js';
import { BLOCK_BINDING_FIELD, REQUEST_FIELD_VERDICT_PREFIX } from '../runtime/runtime-route-memory.js';
import type { SessionStore } from '../storage/session-store.js';
import { openSessionStore, selectedStoreUrl, sqlitePathOf } from '../storage/store-open.js';
import { stateDbPath } from '../storage/store-paths.js';
import type { DoctorCheck } from './doctor-checks.js';

/** How many of the most recent sessions the provider-drop count looks at. */
export const RECENT_SESSIONS = 20;

/** Reasoning the providers dropped from the recent sessions' requests (SPEC §26.4). */
interface RecentDrops {
  blocks: number;
  sessions: string[];
}

async function recentProviderDrops(store: SessionStore): Promise<RecentDrops> {
  const drops: RecentDrops = { blocks: 0, sessions: [] };
  for (const session of await store.listSessions({ limit: RECENT_SESSIONS })) {
    let inSession = 0;
    for (const record of await store.listRequests(session.id)) {
      for (const decision of record.decisions) {
        if (decision['action'] === 'dropped' && String(decision['reason']).startsWith('dropped by the provider')) {
          inSession += 1;
        }
      }
    }
    if (inSession === 0) continue;
    drops.blocks += inSession;
    drops.sessions.push(session.id);
  }
  return drops;
}

/** What Hermes does about thinking-block binding on the configured route, in words. */
function routeLines(profile: RouteProfile, refused: boolean): string[] {
  const { anthropic, route } = profile;
  if (route.api !== 'anthropic_messages' || anthropic.treatment !== 'native') return [];
  const lines = [
    anthropic.prefixChecked
      ? `${route.model} binds signed thinking to its model and prefix: Hermes leaves out any block whose context changed (explained in replay preview --explain)`
      : `${route.model} runs no prefix check: signed thinking replays as issued`,
  ];
  if (refused) {
    lines.push('drop_block: refused by this route (learned; hermes routes forget to try again)');
  } else if (anthropic.bindingControls) {
    lines.push(`drop_block: declared as a safety net (beta ${THINKING_BINDING_BETA})`);
  } else if (anthropic.prefixChecked) {
    lines.push(`drop_block: not declared on the ${anthropic.platform} platform (no evidence it is accepted there)`);
  }
  return lines;
}

/**
 * The `thinking` line of `hermes doctor` (SPEC §26.4): the configured route's binding behaviour,
 * and how many thinking blocks providers dropped from the recent sessions' requests — a warning
 * when any were, since that reasoning never reached the model. Null when there is nothing to say.
 */
export async function thinkingBindingCheck(
  home: string,
  config: HermesConfig | null,
  profile: RouteProfile | null,
): Promise<DoctorCheck | null> {
  const url = selectedStoreUrl(config?.storageUrl, process.env);
  const path = url === undefined ? stateDbPath(home) : sqlitePathOf(url);
  let drops: RecentDrops = { blocks: 0, sessions: [] };
  let refused = false;
  if (path === null || existsSync(path)) {
    const store = openSessionStore({ url, home });
    try {
      drops = await recentProviderDrops(store);
      const verdict = profile ? await store.getVerdict(profile.routeKey) : null;
      refused = (verdict?.fields ?? []).includes(`${REQUEST_FIELD_VERDICT_PREFIX}${BLOCK_BINDING_FIELD}`);
    } catch (error) {
      return { status: 'warn', name: 'thinking', detail: `could not read the store: ${(error as Error).message}` };
    } finally {
      await store.close().catch(() => undefined);
    }
  }
  const lines = profile ? routeLines(profile, refused) : [];
  if (drops.blocks > 0) {
    const latest = drops.sessions[0] ?? '';
    lines.unshift(
      `providers dropped ${drops.blocks} thinking block(s) in ${drops.sessions.length} of the last ${RECENT_SESSIONS} sessions (input_transformations); see hermes sessions show ${latest}`,
    );
  } else if (lines.length > 0) {
    lines.push(`no thinking dropped by a provider in the last ${RECENT_SESSIONS} sessions`);
  }
  if (lines.length === 0) return null;
  return { status: drops.blocks > 0 ? 'warn' : 'info', name: 'thinking', detail: lines.join('\n') };
}
