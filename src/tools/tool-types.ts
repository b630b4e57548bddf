import type { ToolDefinition } from '../core/tool-definition.js';

/** What a tool sees while it runs. */
export interface ToolContext {
  /** Absolute, real path of the workspace; every path argument must resolve inside it. */
  workspace: string;
  signal?: AbortSignal | undefined;
}

/** A built-in tool. `run` returns the text the model sees; it throws {@link ToolError} for failures the model should see. */
export interface Tool {
  definition: ToolDefinition;
  /** Writing and shell tools need the user's approval (interactive prompt or `--yolo`). */
  needsApproval: boolean;
  run(args: Record<string, unknown>, context: ToolContext): Promise<string>;
}

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
