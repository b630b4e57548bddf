import { withStateDb } from './e2e.js';

/**
 * Alters one character of every stored thought signature of a session's first assistant message
 * (`gemini_content_parts`), as a corrupted row would: Google can no longer verify it.
 */
export function corruptStoredGeminiSignatures(home: string, sessionId: string): void {
  withStateDb(home, (database) => {
    const row = database
      .prepare("SELECT id, extra FROM messages WHERE session_id = ? AND role = 'assistant' ORDER BY seq LIMIT 1")
      .get(sessionId) as { id: number; extra: string };
    const extra = JSON.parse(row.extra) as { gemini_content_parts: Record<string, unknown>[] };
    for (const part of extra.gemini_content_parts) {
      if (typeof part['thoughtSignature'] === 'string') {
        const value = part['thoughtSignature'];
        part['thoughtSignature'] = `${value.slice(0, 10)}${value[10] === 'Q' ? 'R' : 'Q'}${value.slice(11)}`;
      }
    }
    database.prepare('UPDATE messages SET extra = ? WHERE id = ?').run(JSON.stringify(extra), row.id);
  });
}
