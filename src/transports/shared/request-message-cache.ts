import type { JsonObject } from '../../core/json.js';
import type { Message } from '../../core/message.js';
import { markStableWireValue } from './request-body.js';

/**
 * Per-message wire objects, reused across the requests of a session (see request-body.ts).
 *
 * An entry is keyed by the stored message object and a string naming everything else its wire
 * form depends on (route profile, learned state, any per-position context): the same stored
 * message under the same key always lowers to the same wire object, so later requests reuse the
 * object and its serialized text. A different key replaces the entry. Only an encoder whose
 * per-message lowering depends on nothing beyond (message, key) may use this.
 */
export class MessageWireCache<Extra> {
  private readonly entries = new WeakMap<Message, CachedMessageWire<Extra>>();

  /** The entry for `message` under `key`, or undefined when there is none or it was built under another key. */
  get(message: Message, key: string): CachedMessageWire<Extra> | undefined {
    const entry = this.entries.get(message);
    return entry !== undefined && entry.key === key ? entry : undefined;
  }

  /** Stores the wire object of `message` under `key` and declares it stable (never written to again). */
  set(message: Message, key: string, wire: JsonObject, extra: Extra): void {
    markStableWireValue(wire);
    this.entries.set(message, { key, wire, extra });
  }
}

/** One cached lowering: the wire object and what the encoder needs besides it (e.g. its decisions). */
export interface CachedMessageWire<Extra> {
  readonly key: string;
  readonly wire: JsonObject;
  readonly extra: Extra;
}
