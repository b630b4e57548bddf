import type { ToolDefinition } from '../core/tool-definition.js';
import { listDirectoryTool, readFileTool, searchFilesTool, writeFileTool } from './tool-files.js';
import { runShellTool } from './tool-shell.js';
import { ToolError, type Tool, type ToolContext } from './tool-types.js';

/** Built-in tools, by name. */
export const BUILTIN_TOOLS: readonly Tool[] = [
  readFileTool,
  writeFileTool,
  listDirectoryTool,
  searchFilesTool,
  runShellTool,
];

/** Decides whether a tool that needs approval may run. */
export type ApprovalDecider = (name: string, args: Record<string, unknown>) => Promise<boolean>;

/** The outcome of one tool call, as the model will see it. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
}

/** The tool definitions offered to the model. */
export function toolDefinitions(tools: readonly Tool[] = BUILTIN_TOOLS): ToolDefinition[] {
  return tools.map((tool) => tool.definition);
}

/**
 * Runs one tool call. Unknown tools, invalid JSON arguments, refused approvals and tool
 * failures all become an error result the model sees — never a crash.
 */
export async function executeToolCall(
  name: string,
  rawArguments: string,
  context: ToolContext & { approve: ApprovalDecider; tools?: readonly Tool[] },
): Promise<ToolOutcome> {
  const tool = (context.tools ?? BUILTIN_TOOLS).find((candidate) => candidate.definition.name === name);
  if (!tool) return { content: `error: unknown tool "${name}"`, isError: true };
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    args = parsed as Record<string, unknown>;
  } catch {
    return { content: `error: invalid arguments for ${name}: expected a JSON object`, isError: true };
  }
  if (tool.needsApproval && !(await context.approve(name, args))) {
    return {
      content: `error: ${name} was not approved by the user (approve interactively, or run with --yolo)`,
      isError: true,
    };
  }
  try {
    return { content: await tool.run(args, context), isError: false };
  } catch (error) {
    if (error instanceof ToolError) return { content: `error: ${error.message}`, isError: true };
    return { content: `error: ${name} failed: ${(error as Error).message}`, isError: true };
  }
}
