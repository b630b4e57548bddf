import type {
  AgentContext,
  PermissionOption,
  RequestPermissionResponse,
  SendRequestOptions,
  ToolCallContent,
} from '@agentclientprotocol/sdk';
import { describeChange } from '../tools/tool-diff.js';
import { limitOutput } from '../tools/tool-limits.js';
import type { ApprovalDecider } from '../tools/tool-registry.js';
import { integerArgument, stringArgument, ToolError, type Tool, type ToolPreview } from '../tools/tool-types.js';
import { displayPath, resolveInWorkspace } from '../tools/tool-workspace.js';
import { readFileTool, writeFileTool } from '../tools/tool-files.js';
import { textContent, toolKind, toolLocations, toolTitle } from './acp-updates.js';

/**
 * What an ACP editor does for the agent (docs/acp.md): the file system it offers and the
 * permission prompts it shows.
 *
 * - `fs/read_text_file` offered: `read_file` reads through the editor, so the model sees the
 *   buffer the user is looking at, unsaved changes included.
 * - `fs/write_text_file` offered: `write_file` writes through the editor (which tracks the change
 *   and can undo it), after approval as always; its preview reads through the editor too.
 * - Every tool that needs approval asks with `session/request_permission`, naming the call the
 *   editor already shows; "always" answers hold for that tool for the rest of the session.
 *
 * Paths stay inside the session's workspace either way (tools/tool-workspace.ts).
 */

/** The file-system methods the client offered in `initialize`. */
export interface ClientFileSystem {
  readTextFile: boolean;
  writeTextFile: boolean;
}

/** Request options that stop waiting for the editor when the prompt is cancelled. */
function cancelOn(signal: AbortSignal | undefined): SendRequestOptions {
  return signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {};
}

/** Lines `read_file` reads at once through the editor (as the built-in one). */
const READ_LINES = 2000;

/** `read_file` and `write_file` through the editor, where it offers them; the others unchanged. */
export function clientFileTools(
  tools: readonly Tool[],
  fs: ClientFileSystem,
  client: AgentContext,
  sessionId: string,
): Tool[] {
  return tools.map((tool) => {
    if (tool.definition.name === readFileTool.definition.name && fs.readTextFile)
      return clientReadFile(client, sessionId);
    if (tool.definition.name === writeFileTool.definition.name && fs.writeTextFile) {
      return clientWriteFile(client, sessionId, fs.readTextFile);
    }
    return tool;
  });
}

function clientReadFile(client: AgentContext, sessionId: string): Tool {
  return {
    ...readFileTool,
    async run(args, context) {
      const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path'));
      const shown = displayPath(context.workspace, path);
      const line = integerArgument(args, 'offset', { fallback: 1, minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
      const limit = integerArgument(args, 'limit', { fallback: READ_LINES, minimum: 1, maximum: 100_000 });
      const read = await client
        .request('fs/read_text_file', { sessionId, path, line, limit }, cancelOn(context.signal))
        .catch((error: unknown) => {
          throw new ToolError(`cannot read ${shown}: ${(error as Error).message}`);
        });
      const text = limitOutput(read.content);
      const lines = read.content === '' ? 0 : read.content.split('\n').length - (read.content.endsWith('\n') ? 1 : 0);
      if (lines < limit) return text;
      const separator = text.endsWith('\n') ? '' : '\n';
      return `${text}${separator}[lines ${line}-${line + lines - 1} shown; the file may go on: read_file with offset ${line + lines}]`;
    },
  };
}

function clientWriteFile(client: AgentContext, sessionId: string, readThroughClient: boolean): Tool {
  const before = async (path: string, signal: AbortSignal | undefined): Promise<string | null> => {
    try {
      return (await client.request('fs/read_text_file', { sessionId, path }, cancelOn(signal))).content;
    } catch {
      return null;
    }
  };
  return {
    ...writeFileTool,
    async preview(args, context) {
      if (!readThroughClient) return writeFileTool.preview!(args, context);
      const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path'));
      const shown = displayPath(context.workspace, path);
      const content = stringArgument(args, 'content');
      const old = await before(path, context.signal);
      const change = await describeChange(shown, old, content);
      const lines = `${change.added} line${change.added === 1 ? '' : 's'}`;
      const summary =
        old === null ? `write ${shown} (new file, ${lines})` : `write ${shown} (+${change.added} -${change.removed})`;
      return { summary, diff: change.diff };
    },
    async run(args, context) {
      const path = resolveInWorkspace(context.workspace, stringArgument(args, 'path'));
      const shown = displayPath(context.workspace, path);
      const content = stringArgument(args, 'content');
      await client
        .request('fs/write_text_file', { sessionId, path, content }, cancelOn(context.signal))
        .catch((error: unknown) => {
          throw new ToolError(`cannot write ${shown}: ${(error as Error).message}`);
        });
      return `wrote ${Buffer.byteLength(content)} bytes to ${shown}`;
    },
  };
}

/** The options every permission prompt offers. */
const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Always allow this tool in this session', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
];

/** Decides approvals by asking the editor; `yolo` approves everything without asking. */
export class AcpApprovals {
  /** Tools the user allowed for the rest of the session. */
  private readonly always = new Set<string>();

  constructor(
    private readonly client: AgentContext,
    private readonly yolo: boolean,
  ) {}

  /**
   * The decider of one prompt. `callId` names the call the runtime is about to run (the editor
   * already shows it): the permission request points at it.
   */
  decider(
    sessionId: string,
    workspace: string,
    callId: (name: string) => string | undefined,
    signal: AbortSignal,
  ): ApprovalDecider {
    return async (name, args, preview) => {
      if (this.yolo || this.always.has(name)) return true;
      const response = await this.ask(sessionId, workspace, { id: callId(name), name, args, preview }, signal);
      if (response.outcome.outcome !== 'selected') return false;
      if (response.outcome.optionId === 'allow_always') this.always.add(name);
      return response.outcome.optionId === 'allow_once' || response.outcome.optionId === 'allow_always';
    };
  }

  private async ask(
    sessionId: string,
    workspace: string,
    call: { id: string | undefined; name: string; args: Record<string, unknown>; preview: ToolPreview },
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const content: ToolCallContent[] = call.preview.diff ? textContent(`\`\`\`diff\n${call.preview.diff}\n\`\`\``) : [];
    try {
      return await this.client.request(
        'session/request_permission',
        {
          sessionId,
          toolCall: {
            toolCallId: call.id ?? `${call.name}-approval`,
            title: call.preview.summary || toolTitle(call.name, call.args),
            kind: toolKind(call.name),
            status: 'pending',
            rawInput: call.args,
            locations: toolLocations(workspace, call.args),
            content,
          },
          options: PERMISSION_OPTIONS,
        },
        cancelOn(signal),
      );
    } catch {
      // The prompt was cancelled, or the editor could not ask: not approved.
      return { outcome: { outcome: 'cancelled' } };
    }
  }
}
