import { setImmediate as nextTurn } from 'node:timers/promises';
import { abortReason, DEFAULT_TOOL_DEADLINE_MS, ToolError, type Tool, type ToolContext } from './tool-types.js';

/**
 * The limits every tool call runs under: a deadline, an output cap, and the turn's abort signal
 * (Ctrl-C in the CLI, a client leaving the gateway). A tool that stops itself when its signal
 * fires reports what it did so far; one that does not is cut off a moment later, so no tool can
 * hold a turn past its deadline.
 */

/** Largest tool output returned to the model, in characters; longer output is cut with a note. */
export const MAX_TOOL_OUTPUT = 64 * 1024;

/** How long a tool gets, after its signal fired, to return its own partial result. */
const ABORT_GRACE_MS = 2_000;

/** Cuts long output so one tool result cannot flood the context. */
export function limitOutput(text: string, maximum = MAX_TOOL_OUTPUT): string {
  if (text.length <= maximum) return text;
  return `${text.slice(0, maximum)}\n[output cut at ${maximum} characters of ${text.length}]`;
}

/**
 * Keeps the first and last halves of long output (a build log's errors come last), with a
 * line saying how much of the middle was cut.
 */
export function headAndTail(text: string, maximum = MAX_TOOL_OUTPUT): string {
  if (text.length <= maximum) return text;
  const half = Math.floor(maximum / 2);
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n[… ${cut} characters cut from the middle of ${text.length} …]\n${text.slice(-half)}`;
}

/** Seconds, for messages (`120 s`, `1.5 s`). */
export function seconds(milliseconds: number): string {
  return `${Number((milliseconds / 1000).toFixed(3))} s`;
}

/**
 * Runs `tool` under its deadline and the caller's signal. The tool sees a signal that fires on
 * either; its reason is a {@link ToolError} saying which, so the model reads "stopped at its
 * 30 s time limit" or "interrupted by the user".
 */
export async function runWithinLimits(
  tool: Tool,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<string> {
  const name = tool.definition.name;
  const deadlineMs = tool.deadlineMs ?? DEFAULT_TOOL_DEADLINE_MS;
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(new ToolError(`${name} was interrupted by the user`));
  if (context.signal?.aborted) onCallerAbort();
  else context.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const deadline = setTimeout(
    () => controller.abort(new ToolError(`${name} stopped at its ${seconds(deadlineMs)} time limit`)),
    deadlineMs,
  );
  let grace: NodeJS.Timeout | undefined;
  const cutOff = new Promise<never>((_, reject) => {
    const onAbort = () => {
      grace = setTimeout(() => reject(abortReason(controller.signal)), ABORT_GRACE_MS);
    };
    if (controller.signal.aborted) onAbort();
    else controller.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    if (controller.signal.aborted) throw abortReason(controller.signal);
    const running = tool.run(args, { ...context, signal: controller.signal }).catch((error: unknown) => {
      // Node's own abort errors (a read cut short) become the reason the signal fired.
      if (controller.signal.aborted && !(error instanceof ToolError)) throw abortReason(controller.signal);
      throw error;
    });
    return await Promise.race([running, cutOff]);
  } finally {
    clearTimeout(deadline);
    if (grace) clearTimeout(grace);
    context.signal?.removeEventListener('abort', onCallerAbort);
  }
}

/**
 * Cooperative time slicing for CPU-bound tool work: call {@link TimeSlicer.tick} often; it
 * yields to the event loop once a slice is used up (so other sessions, timers and Ctrl-C are
 * served) and throws when the signal fired.
 */
export class TimeSlicer {
  private sliceStart = performance.now();

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly sliceMs = 8,
  ) {}

  /** Yields when the current slice is spent; throws the abort reason when the signal fired. */
  async tick(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await nextTurn();
    this.sliceStart = performance.now();
    if (this.signal?.aborted) throw abortReason(this.signal);
  }
}
