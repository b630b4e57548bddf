/**
 * Thinking-block binding (SPEC §26.4, docs/wire.md "Thinking-block binding"): on models with
 * preserved thinking, Anthropic accepts a signed `thinking` / `redacted_thinking` block only while
 * the model reading it may read it and the block's prefix — the top-level `system`, the `tools`,
 * and everything in `messages` before the block — is what it was when the block was produced.
 * Hermes keeps, with each captured signed block, the model and a digest of that prefix, and
 * leaves out (with a decision) any block whose context no longer holds. Pure.
 *
 * The digest is canonical, so an unchanged prefix always matches and any real change does not:
 * object keys are sorted, `cache_control` markers and private `_` keys are left out (they move
 * between requests and are not content), a string `system` or `content` counts as the one text
 * block it stands for. Each block has its own digest, chained in order through one incremental
 * SHA-256, so a checkpoint costs a few bytes of hashing, and a block derived from the same stored
 * object is digested once per process.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../core/json.js';
import { Sha256 } from './anthropic-sha256.js';

/** Private key of a sidecar block holding its binding context (never sent: blocks are whitelisted). */
export const BLOCK_BINDING_KEY = '_binding';

/** The context a signed block is bound to. */
export interface BlockBinding {
  /** The exact model id the request that produced the block named. */
  model: string;
  /** {@link PrefixDigest} hex of everything Hermes sent before the block. */
  prefix: string;
}

/** Decision reason for a block whose prefix changed since it was produced (SPEC §26.4). */
export const BOUND_PREFIX_CHANGED = 'bound to another conversation (prefix changed)';
/** Decision reason for a block produced by another model (SPEC §26.4). */
export const BOUND_MODEL_CHANGED = 'bound to another conversation (model changed)';
/**
 * Decision reason for a block whose `system` prompt changed, on a route that taught Hermes it
 * binds its blocks to the system prompt (SPEC §26.4; {@link SystemBinding}).
 */
export const BOUND_SYSTEM_CHANGED = 'bound to another conversation (system prompt changed)';

/**
 * The system prompt a signed block was produced under, kept on routes whose model Anthropic's docs
 * do not list as checking the whole prefix. Anthropic's 2026 rejection names the `system` prompt
 * ("The `system` prompt differs from the one this block was created with", WIRE §2.6b), and
 * resumed sessions whose system prompt moved are refused on such models too; whether a route does
 * is learned from its first rejection of a block whose system prompt changed, after which such
 * blocks are left out before sending instead of costing a 400 per conversation.
 */
export interface SystemBinding {
  /** The exact model id the request that produced the block named. */
  model: string;
  /** {@link systemDigest} of the request's `system`. */
  system: string;
}

/**
 * Prefix value of a block whose producing prefix Hermes never saw (imported history): it equals no
 * digest, so such a block always counts as bound to another conversation.
 */
export function unknownPrefix(source: string): string {
  return `unknown:${source}`;
}

/** The binding context kept on a sidecar block, when it has a well-formed one. */
export function blockBindingOf(block: JsonObject): BlockBinding | undefined {
  const value = block[BLOCK_BINDING_KEY];
  if (!isJsonObject(value) || typeof value['model'] !== 'string' || typeof value['prefix'] !== 'string') {
    return undefined;
  }
  return { model: value['model'], prefix: value['prefix'] };
}

/** The system binding kept on a sidecar block, when it has a well-formed one. */
export function systemBindingOf(block: JsonObject): SystemBinding | undefined {
  const value = block[BLOCK_BINDING_KEY];
  if (!isJsonObject(value) || typeof value['model'] !== 'string' || typeof value['system'] !== 'string') {
    return undefined;
  }
  return { model: value['model'], system: value['system'] };
}

/** True for a block Anthropic signs: `thinking` with a signature, `redacted_thinking` with data. */
export function isSignedThinkingBlock(block: JsonObject): boolean {
  if (block['type'] === 'thinking') return typeof block['signature'] === 'string' && block['signature'] !== '';
  return block['type'] === 'redacted_thinking' && typeof block['data'] === 'string' && block['data'] !== '';
}

/** Keys that are never part of a block's identity. */
function skipped(key: string): boolean {
  return key === 'cache_control' || key.startsWith('_');
}

/** Canonical JSON text: sorted keys, no whitespace, {@link skipped} keys left out. */
function canonical(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value !== 'object') return JSON.stringify(value);
  const keys = Object.keys(value)
    .filter((key) => !skipped(key) && value[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
}

/** A `system` or `content` value as its list of blocks (a string is one text block). */
function asBlocks(value: JsonValue | undefined): JsonValue[] {
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  return Array.isArray(value) ? value : [];
}

/** A block as compared: a `tool_result`'s string content counts as its one text block. */
function normalizedBlock(block: JsonValue): JsonValue {
  if (!isJsonObject(block) || block['type'] !== 'tool_result' || typeof block['content'] !== 'string') return block;
  return { ...block, content: asBlocks(block['content']) };
}

/** SHA-256 hex of a value's canonical text. */
function digestOf(text: string): string {
  return new Sha256().update(text).hex();
}

/**
 * Element digests of blocks by the immutable object each block was derived from (a stored
 * message, a content part, a sidecar block, a tool call; TransportRequest.history is never written
 * to): a warm session digests only its new blocks (SPEC §26.7).
 */
const blockDigests = new WeakMap<object, string>();
/** Element digests of wire tools (stable objects, transports/shared/request-tool-cache.ts). */
const toolDigests = new WeakMap<object, string>();
/** The digests of the last few `system` prompts (one per session in a process, in practice). */
const systemDigests = new Map<string, string>();
const SYSTEM_DIGESTS_KEPT = 16;

/** The digest of a canonical `system` (a string is its one text block): what a {@link SystemBinding} keeps. */
export function systemDigest(system: JsonValue | undefined): string {
  if (typeof system !== 'string') return digestOf(canonical(asBlocks(system)));
  const known = systemDigests.get(system);
  if (known !== undefined) return known;
  const digest = digestOf(canonical(asBlocks(system)));
  if (systemDigests.size >= SYSTEM_DIGESTS_KEPT) systemDigests.delete(systemDigests.keys().next().value ?? '');
  systemDigests.set(system, digest);
  return digest;
}

function toolsDigest(tools: JsonValue | undefined): string {
  const list = Array.isArray(tools) ? tools : [];
  const hash = new Sha256().updateAscii(`${list.length}:`);
  for (const tool of list) {
    let digest = typeof tool === 'object' && tool !== null ? toolDigests.get(tool) : undefined;
    if (digest === undefined) {
      digest = digestOf(canonical(tool));
      if (typeof tool === 'object' && tool !== null) toolDigests.set(tool, digest);
    }
    hash.updateAscii(digest);
  }
  return hash.hex();
}

/** The element digest of one content block (cached under `source` when given). */
export function blockDigest(block: JsonValue, source?: object): string {
  const known = source === undefined ? undefined : blockDigests.get(source);
  if (known !== undefined) return known;
  const digest = digestOf(canonical(normalizedBlock(block)));
  if (source !== undefined) blockDigests.set(source, digest);
  return digest;
}

/**
 * The running digest of a request prefix: start from `system` and `tools`, then add messages (or a
 * message header and its blocks one by one); {@link hex} at any point is the digest of the prefix
 * so far, the binding a block at that point has. The chain hashes one fixed-size element digest
 * per block, so checkpoints and warm requests cost little whatever the blocks hold.
 */
export class PrefixDigest {
  private readonly hash: Sha256;

  private constructor(hash: Sha256) {
    this.hash = hash;
  }

  /** A digest over the top-level `system` (string or blocks) and `tools` of a request. */
  static start(system: JsonValue | undefined, tools: JsonValue | undefined): PrefixDigest {
    const digest = new PrefixDigest(new Sha256());
    digest.hash.updateAscii(`s${systemDigest(system)}t${toolsDigest(tools)}`);
    return digest;
  }

  /** Adds the start of a message of `role` (its blocks follow). */
  header(role: string): this {
    // Roles are ASCII words (`user`, `assistant`).
    this.hash.updateAscii(`m${role.length}:${role}`);
    return this;
  }

  /** Adds one content block; `source` is the immutable object it was derived from, when there is one. */
  block(block: JsonValue, source?: object): this {
    this.hash.updateAscii(`b${blockDigest(block, source)}`);
    return this;
  }

  /** Adds a whole message (`content` a string or blocks). */
  message(role: string, content: JsonValue | undefined): this {
    this.header(role);
    for (const block of asBlocks(content)) this.block(block);
    return this;
  }

  /** An independent digest that continues from here. */
  copy(): PrefixDigest {
    return new PrefixDigest(this.hash.copy());
  }

  /** The digest of the prefix so far (the digest goes on afterwards). */
  hex(): string {
    return this.hash.hex();
  }

  /** The running state as text, for {@link restore} (a compaction block keeps it, SPEC §26.4). */
  snapshot(): string {
    return this.hash.snapshot();
  }

  /** A digest that continues from a {@link snapshot}; undefined when the text is not one. */
  static restore(text: string): PrefixDigest | undefined {
    const hash = Sha256.restore(text);
    return hash && new PrefixDigest(hash);
  }
}

/** The digest of a request's `system` and `tools` alone: what a prefix starts from. */
export function prefixStartDigest(system: JsonValue | undefined, tools: JsonValue | undefined): string {
  return PrefixDigest.start(system, tools).hex();
}

/** What {@link staleBindingReason} needs to know about one signed block on its way out. */
export interface BindingCheck {
  /** The block's captured context (none: Hermes never saw its prefix, nothing to compare). */
  binding: BlockBinding | undefined;
  /** The route's exact model id. */
  model: string;
  /** The block's origin matches the route (SPEC §23.2); otherwise origin scoping decides. */
  originMatches: boolean;
  /** The digest of what this request sends before the block. */
  prefix: PrefixDigest;
}

/**
 * Why a signed block is no longer valid where it is about to be sent (SPEC §26.4), or null when
 * its context holds (or was never captured). A model change is checked first: Anthropic lets a
 * model read only its own and some earlier models' blocks, and Hermes's origin scoping sends a
 * signature only to the model that wrote it. The prefix is compared only for a block whose origin
 * matches; another issuer's block is origin scoping's to decide.
 */
export function staleBindingReason(check: BindingCheck): string | null {
  const { binding } = check;
  if (!binding) return null;
  if (binding.model !== check.model) return BOUND_MODEL_CHANGED;
  if (!check.originMatches) return null;
  return binding.prefix === check.prefix.hex() ? null : BOUND_PREFIX_CHANGED;
}
