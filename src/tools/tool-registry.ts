import type { ToolDefinition } from '../core/tool-definition.js';
import { editFileTool } from './tool-edit.js';
import { listDirectoryTool, readFileTool, writeFileTool } from './tool-files.js';
import { runWithinLimits } from './tool-limits.js';
import { searchFilesTool } from './tool-search.js';
import { runShellTool } from './tool-shell.js';
import { ToolError, type Tool, type ToolContext, type ToolPreview } from './tool-types.js';

/** Built-in tools, by name. */
export const BUILTIN_TOOLS: readonly Tool[] = [
  readFileTool,
  writeFileTool,
  editFileTool,
  listDirectoryTool,
  searchFilesTool,
  runShellTool,
];

/**
 * Decides whether a tool that needs approval may run. `preview` says what the call will do:
 * a summary line and, for file changes, the unified diff to show before asking.
 */
export type ApprovalDecider = (name: string, args: Record<string, unknown>, preview: ToolPreview) => Promise<boolean>;

/** The outcome of one tool call, as the model will see it. */
export interface ToolOutcome {
  content: string;
  isError: boolean;
}

/**
 * Whether a stored tool result reports a failure, as {@link executeToolCall} decided when it ran:
 * a tool error (`error: …`), or a result its tool reads as failed (a non-zero exit code).
 */
export function toolResultIsError(name: string, content: string, tools: readonly Tool[] = BUILTIN_TOOLS): boolean {
  if (content.startsWith('error:')) return true;
  return tools.find((tool) => tool.definition.name === name)?.failed?.(content) ?? false;
}

/** The tool definitions offered to the model. */
export function toolDefinitions(tools: readonly Tool[] = BUILTIN_TOOLS): ToolDefinition[] {
  return tools.map((tool) => tool.definition);
}

/**
 * Runs one tool call. Unknown tools, invalid JSON arguments, refused approvals and tool
 * failures all become an error result the model sees — never a crash. A tool that needs
 * approval is previewed first (a call that cannot succeed fails without asking), and every
 * call runs under its deadline and the turn's abort signal ({@link runWithinLimits}).
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
  const toolContext: ToolContext = {
    workspace: context.workspace,
    signal: context.signal,
    processes: context.processes,
  };
  try {
    if (tool.needsApproval) {
      const preview = tool.preview
        ? await tool.preview(args, toolContext)
        : { summary: `${name} ${JSON.stringify(args)}` };
      if (!(await context.approve(name, args, preview))) {
        return {
          content: `error: ${name} was not approved by the user (approve interactively, or run with --yolo)`,
          isError: true,
        };
      }
      toolContext.approved = preview;
    }
    const content = await runWithinLimits(tool, args, toolContext);
    return { content, isError: tool.failed?.(content) ?? false };
  } catch (error) {
    if (error instanceof ToolError) return { content: `error: ${error.message}`, isError: true };
    return { content: `error: ${name} failed: ${(error as Error).message}`, isError: true };
  }
}
