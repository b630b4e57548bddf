import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { AssistantMessage, Message, ToolCall } from '../core/message.js';
import type { AgentEvent } from '../runtime/agent-turn.js';
import { toolResultIsError } from '../tools/tool-registry.js';

/**
 * Hermes turns as ACP `session/update` notifications (docs/acp.md): the live events of a prompt
 * (reasoning as `agent_thought_chunk`, text as `agent_message_chunk`, each tool call as a
 * `tool_call` then `tool_call_update`s) and, for `session/load`, a stored history replayed the
 * same way, so an editor shows a loaded session as it showed it live.
 */

/** The ACP tool kind of a Hermes tool (the editor picks an icon and a layout by it). */
export function toolKind(name: string): ToolKind {
  switch (name) {
    case 'read_file':
      return 'read';
    case 'write_file':
    case 'edit_file':
      return 'edit';
    case 'list_directory':
    case 'search_files':
      return 'search';
    case 'run_shell':
      return 'execute';
    default:
      return 'other';
  }
}

/** A call's arguments as an object (`{}` when the model's arguments are not one). */
export function callArguments(call: ToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.function.arguments || '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** One line saying what a call does: `read_file notes.txt`, `run_shell: npm test`. */
export function toolTitle(name: string, args: Record<string, unknown>): string {
  const path = typeof args['path'] === 'string' ? args['path'] : undefined;
  const command = typeof args['command'] === 'string' ? args['command'] : undefined;
  if (command !== undefined) return `${name}: ${command.split('\n')[0] ?? ''}`;
  return path === undefined ? name : `${name} ${path}`;
}

/** The files a call touches, as ACP locations (absolute paths, so the editor can follow them). */
export function toolLocations(workspace: string, args: Record<string, unknown>): ToolCallLocation[] {
  const path = args['path'];
  if (typeof path !== 'string' || path === '') return [];
  return [{ path: path.startsWith('/') ? path : `${workspace.replace(/\/$/, '')}/${path}` }];
}

/** Text as tool-call content. */
export function textContent(text: string): ToolCallContent[] {
  return [{ type: 'content', content: { type: 'text', text } }];
}

/** The `tool_call` announcing a call whose arguments are known. */
function announcedCall(call: ToolCall, workspace: string, status: 'pending' | 'completed'): SessionUpdate {
  const args = callArguments(call);
  return {
    sessionUpdate: 'tool_call',
    toolCallId: call.id,
    title: toolTitle(call.function.name, args),
    kind: toolKind(call.function.name),
    status,
    rawInput: args,
    locations: toolLocations(workspace, args),
  };
}

/** The update closing a call with its result. */
function resultUpdate(callId: string, content: string, failed: boolean): SessionUpdate {
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: callId,
    status: failed ? 'failed' : 'completed',
    content: textContent(content),
    rawOutput: { content },
  };
}

/**
 * Maps a prompt's runtime events to updates, in order. Streamed text and reasoning go out as
 * they come; an answer that streamed nothing (a non-streaming route) goes out whole when it is
 * complete. A call is announced when the model starts it and completed with its arguments when
 * the answer is complete; its result closes it.
 */
export class AcpTurnUpdates {
  private streamedText = false;
  private streamedReasoning = false;
  private readonly announced = new Set<string>();

  constructor(
    private readonly workspace: string,
    private readonly send: (update: SessionUpdate) => void,
  ) {}

  /** One runtime event. */
  event(event: AgentEvent): void {
    switch (event.type) {
      case 'reasoning-delta':
        this.streamedReasoning = true;
        return this.send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text } });
      case 'text-delta':
        this.streamedText = true;
        return this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } });
      case 'tool-call-start':
        this.announced.add(event.id);
        return this.send({
          sessionUpdate: 'tool_call',
          toolCallId: event.id,
          title: event.name,
          kind: toolKind(event.name),
          status: 'pending',
        });
      case 'finish':
        return this.finished(event.message);
      case 'tool-result':
        return this.send(resultUpdate(event.id, event.content, event.isError));
      case 'recovery':
      case 'compacted':
        return this.send({
          sessionUpdate: 'agent_thought_chunk',
          content: { type: 'text', text: `\n[${event.message}]\n` },
        });
      default:
        return;
    }
  }

  private finished(message: AssistantMessage): void {
    const reasoning = readableReasoning(message);
    if (!this.streamedReasoning && reasoning !== '') {
      this.send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: reasoning } });
    }
    if (!this.streamedText && message.content) {
      this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: message.content } });
    }
    this.streamedText = false;
    this.streamedReasoning = false;
    for (const call of message.tool_calls ?? []) {
      if (!this.announced.has(call.id)) {
        this.send(announcedCall(call, this.workspace, 'pending'));
        continue;
      }
      const args = callArguments(call);
      this.send({
        sessionUpdate: 'tool_call_update',
        toolCallId: call.id,
        title: toolTitle(call.function.name, args),
        rawInput: args,
        locations: toolLocations(this.workspace, args),
      });
    }
  }
}

/** Readable reasoning of a stored answer: `reasoning`, else non-blank `reasoning_content`. */
function readableReasoning(message: AssistantMessage): string {
  if (message.reasoning?.trim()) return message.reasoning;
  if (message.reasoning_content?.trim()) return message.reasoning_content;
  return '';
}

/** Text of a user message (its text parts, joined). */
function userText(message: Extract<Message, { role: 'user' }>): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (typeof part['text'] === 'string' ? part['text'] : '')).join('\n');
}

/**
 * A stored history as the updates that show it (`session/load`): the user's messages, each
 * answer's reasoning and text, each call and its result. System messages are not shown.
 */
export function historyUpdates(messages: readonly Message[], workspace: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      updates.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: userText(message) } });
    } else if (message.role === 'assistant') {
      const reasoning = readableReasoning(message);
      if (reasoning !== '')
        updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: reasoning } });
      if (message.content)
        updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: message.content } });
      for (const call of message.tool_calls ?? []) updates.push(announcedCall(call, workspace, 'pending'));
    } else if (message.role === 'tool') {
      const failed = toolResultIsError(message.tool_name ?? '', message.content);
      updates.push(resultUpdate(message.tool_call_id, message.content, failed));
    }
  }
  return updates;
}
