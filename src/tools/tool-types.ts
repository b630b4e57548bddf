import type { ToolDefinition } from '../core/tool-definition.js';
import type { ShellProcesses } from './tool-shell-processes.js';

/** What a tool sees while it runs. */
export interface ToolContext {
  /** Absolute, real path of the workspace; every path argument must resolve inside it. */
  workspace: string;
  /**
   * Aborts when the user interrupts the turn (Ctrl-C, a gateway client leaving) or the tool's
   * deadline passes. Tools stop their work when it fires.
   */
  signal?: AbortSignal | undefined;
  /** What the user approved, when the tool asked (see {@link Tool.preview}). */
  approved?: ToolPreview | undefined;
  /**
   * The processes `run_shell` calls of this turn started, ended when the turn ends. Absent (a
   * call outside a turn): each call ends what it started when it returns.
   */
  processes?: ShellProcesses | undefined;
}

/**
 * What a tool that needs approval will do, shown to the user before they decide: one summary
 * line and, for file changes, a unified diff.
 */
export interface ToolPreview {
  /** One line, e.g. `edit notes.txt (+1 -1)` or `run: npm test`. */
  summary: string;
  /** Unified diff of the change (`--- a/PATH`, `+++ b/PATH`, hunks), when the tool changes a file. */
  diff?: string | undefined;
  /** Fingerprint of what the preview was computed from; `run` refuses when it no longer holds. */
  basis?: string | undefined;
}

/** A built-in tool. `run` returns the text the model sees; it throws {@link ToolError} for failures the model should see. */
export interface Tool {
  definition: ToolDefinition;
  /** Writing and shell tools need the user's approval (interactive prompt or `--yolo`). */
  needsApproval: boolean;
  /**
   * Longest one call may run, in milliseconds, counted from after approval (default
   * {@link DEFAULT_TOOL_DEADLINE_MS}). Past it the call's signal aborts and the model is told.
   */
  deadlineMs?: number;
  /**
   * Describes the change before approval. Throws {@link ToolError} when the call cannot
   * succeed (an edit whose `old_string` is missing), so the user is never asked about it.
   */
  preview?(args: Record<string, unknown>, context: ToolContext): Promise<ToolPreview>;
  run(args: Record<string, unknown>, context: ToolContext): Promise<string>;
  /**
   * Whether a result `run` returned reports a failure the model should see as one (a command
   * that ran and exited non-zero). Results without it are failures only when the call threw.
   */
  failed?(content: string): boolean;
}

/** Deadline of a tool that does not set its own. */
export const DEFAULT_TOOL_DEADLINE_MS = 60_000;

/** A tool failure reported to the model as the tool result (never a crash). */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/** Reads a required string argument or throws a {@link ToolError} naming it. */
export function stringArgument(args: Record<string, unknown>, key: string, fallback?: string): string {
  const value = args[key];
  if (typeof value === 'string') return value;
  if (value === undefined && fallback !== undefined) return fallback;
  throw new ToolError(`invalid arguments: "${key}" must be a string`);
}

/** Reads an optional boolean argument (absent: `fallback`). */
export function booleanArgument(args: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const value = args[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  throw new ToolError(`invalid arguments: "${key}" must be true or false`);
}

/** Reads an optional whole-number argument within `[minimum, maximum]` (absent: `fallback`). */
export function integerArgument(
  args: Record<string, unknown>,
  key: string,
  range: { fallback: number; minimum: number; maximum: number },
): number {
  const value = args[key];
  if (value === undefined || value === null) return range.fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < range.minimum || value > range.maximum) {
    throw new ToolError(`invalid arguments: "${key}" must be a whole number from ${range.minimum} to ${range.maximum}`);
  }
  return value;
}

/** Throws the interruption as a {@link ToolError} when `signal` has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

/** The reason a tool signal fired, as the error the model should see. */
export function abortReason(signal: AbortSignal): ToolError {
  const reason: unknown = signal.reason;
  return reason instanceof ToolError ? reason : new ToolError('interrupted by the user');
}
