import type { AssistantMessage, Message } from '../core/message.js';
import { redactText } from '../core/redact.js';
import type { Route } from '../core/route.js';
import type { Usage } from '../core/usage.js';
import type { ProviderRequestReport } from '../runtime/runtime-observer.js';

/**
 * Span attributes of the OpenTelemetry GenAI semantic conventions (`gen_ai.*`) and Hermes's own
 * replay attributes (`hermes.*`), built from the runtime's reports (SPEC §26.10). Nothing here
 * holds a key; message content only when capture is turned on, and then with every known secret
 * redacted.
 */

/** A span attribute value. */
export type AttributeValue = string | number | boolean | string[];

/** Span attributes. */
export type Attributes = Record<string, AttributeValue>;

/** Hermes provider ids whose GenAI `gen_ai.provider.name` is another well-known value. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  bedrock: 'aws.bedrock',
  google: 'gcp.gemini',
  gemini: 'gcp.gemini',
  vertex: 'gcp.vertex_ai',
  mistral: 'mistral_ai',
  xai: 'x_ai',
  azure: 'azure.ai.openai',
};

/** The `gen_ai.provider.name` of a Hermes provider id. */
export function genAiProviderName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

/** Replay decision actions every span reports, even at 0 (SPEC §26.10 names them). */
const REPORTED_ACTIONS = ['padded', 'dropped', 'restored'];

/** Counts of a request's replay decisions by action: every action seen, plus those always reported. */
export function decisionCounts(report: Pick<ProviderRequestReport, 'decisions'>): Map<string, number> {
  const counts = new Map<string, number>(REPORTED_ACTIONS.map((action) => [action, 0]));
  for (const decision of report.decisions) counts.set(decision.action, (counts.get(decision.action) ?? 0) + 1);
  return counts;
}

/** The attributes naming a route: provider, requested model, server address. */
export function routeAttributes(route: Route): Attributes {
  const attributes: Attributes = {
    'gen_ai.provider.name': genAiProviderName(route.provider),
    'gen_ai.request.model': route.model,
    'hermes.api': route.api,
  };
  const address = serverAddress(route.baseUrl);
  if (address) {
    attributes['server.address'] = address.host;
    if (address.port !== null) attributes['server.port'] = address.port;
  }
  return attributes;
}

/** Usage attributes (`gen_ai.usage.*`). */
export function usageAttributes(usage: Usage): Attributes {
  const attributes: Attributes = {
    'gen_ai.usage.input_tokens': usage.inputTokens,
    'gen_ai.usage.output_tokens': usage.outputTokens,
  };
  if (usage.reasoningTokens !== undefined) attributes['gen_ai.usage.reasoning.output_tokens'] = usage.reasoningTokens;
  if (usage.cacheReadTokens !== undefined) attributes['gen_ai.usage.cache_read.input_tokens'] = usage.cacheReadTokens;
  return attributes;
}

/** The attributes of one provider request's CLIENT span. */
export function providerRequestAttributes(report: ProviderRequestReport): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    ...routeAttributes(report.route),
    'hermes.route_key': report.routeKey,
    'hermes.attempt': report.attempt,
    'hermes.stream': report.stream,
    'hermes.replay.carriers_sent': [...report.carriersSent],
  };
  if (report.sessionId !== '(stateless)') attributes['gen_ai.conversation.id'] = report.sessionId;
  if (report.status > 0) attributes['http.response.status_code'] = report.status;
  if (report.errorType !== null) attributes['error.type'] = report.errorType;
  if (report.status === 200) attributes['gen_ai.response.model'] = report.route.model;
  if (report.usage) Object.assign(attributes, usageAttributes(report.usage));
  if (report.finishReason)
    attributes['gen_ai.response.finish_reasons'] = [report.finishReason.raw ?? report.finishReason.unified];
  for (const [action, count] of decisionCounts(report)) attributes[`hermes.replay.${action}`] = count;
  if (report.recovery) {
    attributes['hermes.recovery.row'] = report.recovery.row;
    attributes['hermes.learned.kind'] = report.recovery.learned;
    attributes['hermes.learned.fields'] = [...report.recovery.fields];
    if (report.recovery.learned === 'verdict') attributes['hermes.verdicts_learned'] = report.recovery.fields.length;
  }
  return attributes;
}

/**
 * Content attributes (`gen_ai.system_instructions`, `gen_ai.input.messages`,
 * `gen_ai.output.messages`), JSON in the conventions' message shape, for content capture only.
 * Every known secret is redacted (`secrets`: the request's key and credentials of the environment).
 */
export function contentAttributes(report: ProviderRequestReport, secrets: readonly string[]): Attributes {
  const system = report.history.filter((message) => message.role === 'system').map((message) => message.content);
  const input = report.history.filter((message) => message.role !== 'system').map(messageParts);
  const attributes: Attributes = { 'gen_ai.input.messages': redactText(JSON.stringify(input), secrets) };
  if (system.length > 0) {
    const instructions = system.map((content) => ({ type: 'text', content }));
    attributes['gen_ai.system_instructions'] = redactText(JSON.stringify(instructions), secrets);
  }
  if (report.message) {
    const output = { ...messageParts(report.message), finish_reason: report.finishReason?.unified ?? 'stop' };
    attributes['gen_ai.output.messages'] = redactText(JSON.stringify([output]), secrets);
  }
  return attributes;
}

/** One message in the conventions' `{role, parts}` shape. */
function messageParts(message: Message): { role: string; parts: Record<string, unknown>[] } {
  if (message.role === 'tool') {
    return {
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: message.tool_call_id, response: message.content }],
    };
  }
  if (message.role === 'assistant') return { role: 'assistant', parts: assistantParts(message) };
  const content = message.content;
  const texts =
    typeof content === 'string' ? [content] : content.map((part) => (typeof part.text === 'string' ? part.text : ''));
  return {
    role: message.role,
    parts: texts.filter((text) => text !== '').map((text) => ({ type: 'text', content: text })),
  };
}

function assistantParts(message: AssistantMessage): Record<string, unknown>[] {
  const parts: Record<string, unknown>[] = [];
  const reasoning = message.reasoning ?? message.reasoning_content;
  if (reasoning) parts.push({ type: 'reasoning', content: reasoning });
  if (message.content) parts.push({ type: 'text', content: message.content });
  for (const call of message.tool_calls ?? []) {
    parts.push({ type: 'tool_call', id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
  return parts;
}

/** Host and port of a base URL (never its path, query or user info). */
function serverAddress(baseUrl: string | undefined): { host: string; port: number | null } | null {
  if (!baseUrl) return null;
  try {
    const url = new URL(baseUrl);
    return { host: url.hostname, port: url.port === '' ? null : Number(url.port) };
  } catch {
    return null;
  }
}
