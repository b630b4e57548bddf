/**
 * A request body as byte chunks (request-body.ts): fresh text encoded once, cached texts passed on
 * as their kept bytes, and runs of small neighbours joined so that each socket write carries a
 * useful amount.
 *
 * A run made only of cached texts is joined once: its buffer is kept, and the texts' bytes become
 * views into it (no second copy in memory). The next body that holds the same texts in the same
 * order starts a run at the same place (runs are cut by size, from the start, and every body of a
 * growing history has the same cached prefix), finds the joined buffer under its first member and
 * writes it as it is. So a warm request over a long history copies only what is new, instead of
 * the whole body into fresh runs on every turn.
 *
 * Rule (request-body.ts): kept bytes — a cached text's, a joined run's — are never written to.
 */

/** A cached text, with its UTF-8 bytes once a body was sent as bytes, alone or after a comma. */
export interface CachedText {
  readonly text: string;
  bytes: Uint8Array | undefined;
  /** The bytes of `,` followed by the text: the text as a later element of an array. */
  commaBytes: Uint8Array | undefined;
}

/** Where a body is written: fresh text, or a cached text (after a comma when `comma`). */
export interface BodyWriter {
  text(piece: string): void;
  cached(piece: CachedText, comma: boolean): void;
}

/**
 * Bytes below which adjacent chunks are copied into one: each chunk is a write of its own on the
 * socket, which costs about what copying this many bytes does, so a short body is one buffer and a
 * long one a few large chunks.
 */
export const COALESCE_BYTES = 32 * 1024;

/** A piece of the body: fresh bytes, or the kept bytes of a cached text. */
interface BodyPart {
  readonly bytes: Uint8Array;
  /** The cached text the bytes are kept for (undefined: fresh), and which of its two forms. */
  readonly piece: CachedText | undefined;
  readonly comma: boolean;
}

/** A joined run of cached texts: its members' bytes (views into `bytes`) in order. */
interface JoinedRun {
  readonly members: readonly Uint8Array[];
  readonly bytes: Uint8Array;
}

/** Joined runs, keyed by their first member's bytes. */
const joinedRuns = new WeakMap<Uint8Array, JoinedRun>();

/** Fresh text runs encoded once each, cached texts by their kept bytes, in order. */
export class ByteWriter implements BodyWriter {
  private readonly parts: BodyPart[] = [];
  private pending = '';
  text(piece: string): void {
    this.pending += piece;
  }
  cached(piece: CachedText, comma: boolean): void {
    this.flush();
    const bytes = comma
      ? (piece.commaBytes ??= Buffer.from(`,${piece.text}`))
      : (piece.bytes ??= Buffer.from(piece.text));
    this.parts.push({ bytes, piece, comma });
  }
  finish(): Uint8Array[] {
    this.flush();
    return coalesce(this.parts);
  }
  private flush(): void {
    if (this.pending === '') return;
    this.parts.push({ bytes: Buffer.from(this.pending), piece: undefined, comma: false });
    this.pending = '';
  }
}

/** `parts` with each run of small neighbours joined into chunks of about {@link COALESCE_BYTES}. */
function coalesce(parts: readonly BodyPart[]): Uint8Array[] {
  if (parts.length <= 1) return parts.map((part) => part.bytes);
  const chunks: Uint8Array[] = [];
  let run: BodyPart[] = [];
  let runBytes = 0;
  const endRun = () => {
    if (run.length === 1) chunks.push((run[0] as BodyPart).bytes);
    else if (run.length > 1) chunks.push(joinRun(run, runBytes));
    run = [];
    runBytes = 0;
  };
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as BodyPart;
    if (run.length === 0 && part.piece !== undefined) {
      const joined = joinedRuns.get(part.bytes);
      if (joined !== undefined && sameMembers(joined.members, parts, index)) {
        chunks.push(joined.bytes);
        index += joined.members.length - 1;
        continue;
      }
    }
    if (part.bytes.byteLength >= COALESCE_BYTES) {
      endRun();
      chunks.push(part.bytes);
      continue;
    }
    run.push(part);
    runBytes += part.bytes.byteLength;
    if (runBytes >= COALESCE_BYTES) endRun();
  }
  endRun();
  return chunks;
}

/**
 * The run's bytes in one buffer. A full run of cached texts is kept: each member's kept bytes
 * become a view into it, and it is found again under the first of them.
 */
function joinRun(run: readonly BodyPart[], runBytes: number): Uint8Array {
  const joined = Buffer.concat(
    run.map((part) => part.bytes),
    runBytes,
  );
  if (runBytes < COALESCE_BYTES || run.some((part) => part.piece === undefined)) return joined;
  const members: Uint8Array[] = [];
  let offset = 0;
  for (const part of run) {
    const view = joined.subarray(offset, offset + part.bytes.byteLength);
    offset += view.byteLength;
    const piece = part.piece as CachedText;
    if (part.comma) piece.commaBytes = view;
    else piece.bytes = view;
    members.push(view);
  }
  joinedRuns.set(members[0] as Uint8Array, { members, bytes: joined });
  return joined;
}

function sameMembers(members: readonly Uint8Array[], parts: readonly BodyPart[], start: number): boolean {
  if (start + members.length > parts.length) return false;
  for (let offset = 0; offset < members.length; offset++) {
    if ((parts[start + offset] as BodyPart).bytes !== members[offset]) return false;
  }
  return true;
}
