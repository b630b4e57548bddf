import type { ToolCall } from '../core/message.js';
import type { GatewayHttpError } from './gateway-errors.js';
import type { EventBody } from './gateway-event-body.js';
import { readableReasoning, type FrontDoorAnswer, type FrontDoorDelta } from './gateway-front-door.js';

/**
 * The order a front-door answer goes out in, streamed or not, for both doors (each door maps
 * these events to its own wire events and JSON):
 *
 * - The reasoning block (Messages `thinking`, Responses `reasoning` item) comes first and streams
 *   live, as the real APIs put it (SPEC §26.3: a `claude -p` answer whose thinking came after its
 *   text printed nothing). It carries the sealed handle, which is sealed over the complete
 *   provider answer, so the block closes when the answer is complete; text that arrived meanwhile
 *   follows it then.
 * - When the turn thinks (`holdText`) and text arrives before any reasoning (a route that returns
 *   only an opaque signature, at the end), the text is held until the reasoning block can be
 *   written first. A turn that does not think streams its text live; a reasoning block it still
 *   gets then follows the text.
 * - Tool calls go out whole once the answer is complete (their ids and arguments are final only
 *   then; a client runs a call only after the turn anyway).
 * - A message without any carrier gets no reasoning block (there is nothing to hand back).
 */

/** One step of a door's answer. */
export type AnswerEvent =
  | { type: 'reasoning-start' }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'reasoning-end'; text: string; handle: string }
  | { type: 'text-start' }
  | { type: 'text-delta'; text: string }
  | { type: 'text-end'; text: string }
  | { type: 'tool-call'; call: ToolCall };

/**
 * Puts live deltas and the finished answer in the order above. A `live` sequencer (chat
 * completions, whose deltas carry reasoning and text side by side) passes every delta on as it
 * comes and adds at the end only what was not streamed.
 */
export class AnswerSequencer {
  private mode: 'idle' | 'held' | 'reasoning' | 'text' = 'idle';
  private reasoning = '';
  private text = '';

  constructor(
    private readonly emit: (event: AnswerEvent) => void,
    private readonly live = false,
    private readonly holdText = false,
  ) {}

  /** A live delta of the provider's answer. */
  delta(delta: FrontDoorDelta): void {
    if (delta.text === '') return;
    if (this.live) {
      if (delta.type === 'reasoning') this.reasoning += delta.text;
      else this.text += delta.text;
      this.emit({ type: delta.type === 'reasoning' ? 'reasoning-delta' : 'text-delta', text: delta.text });
      return;
    }
    if (delta.type === 'reasoning') {
      if (this.mode === 'text') return; // goes out whole in the trailing block
      if (this.mode === 'idle' || this.mode === 'held') {
        this.mode = 'reasoning';
        this.emit({ type: 'reasoning-start' });
      }
      this.reasoning += delta.text;
      this.emit({ type: 'reasoning-delta', text: delta.text });
      return;
    }
    if (this.mode === 'reasoning' || this.mode === 'held') return; // follows the reasoning block
    if (this.mode === 'idle' && this.holdText) {
      this.mode = 'held';
      return;
    }
    if (this.mode === 'idle') {
      this.mode = 'text';
      this.emit({ type: 'text-start' });
    }
    this.text += delta.text;
    this.emit({ type: 'text-delta', text: delta.text });
  }

  /** The finished answer: everything not sent live, in order. */
  finish(answer: FrontDoorAnswer): void {
    const content = answer.message.content ?? '';
    const calls = answer.message.tool_calls ?? [];
    if (this.live) {
      const reasoning = readableReasoning(answer.message);
      if (this.reasoning === '' && reasoning !== '') this.emit({ type: 'reasoning-delta', text: reasoning });
      if (this.text === '' && content !== '') this.emit({ type: 'text-delta', text: content });
      for (const call of calls) this.emit({ type: 'tool-call', call });
      return;
    }
    if (this.mode === 'reasoning') {
      this.closeReasoning(answer, true);
      this.wholeText(content);
    } else if (this.mode === 'text') {
      const rest = content.startsWith(this.text) ? content.slice(this.text.length) : '';
      if (rest !== '') this.emit({ type: 'text-delta', text: rest });
      this.emit({ type: 'text-end', text: this.text + rest });
    } else {
      if (answer.hasCarriers) this.wholeReasoning(answer);
      this.wholeText(content);
    }
    for (const call of calls) this.emit({ type: 'tool-call', call });
    if (this.mode === 'text' && answer.hasCarriers) this.wholeReasoning(answer);
  }

  private wholeReasoning(answer: FrontDoorAnswer): void {
    this.emit({ type: 'reasoning-start' });
    const text = readableReasoning(answer.message);
    if (text !== '') this.emit({ type: 'reasoning-delta', text });
    this.reasoning = text;
    this.closeReasoning(answer, false);
  }

  private closeReasoning(answer: FrontDoorAnswer, streamed: boolean): void {
    // A streamed block may have missed the end of the text (a non-streaming retry); add it.
    const full = readableReasoning(answer.message);
    if (streamed && full.startsWith(this.reasoning) && full.length > this.reasoning.length) {
      this.emit({ type: 'reasoning-delta', text: full.slice(this.reasoning.length) });
      this.reasoning = full;
    }
    this.emit({ type: 'reasoning-end', text: this.reasoning, handle: answer.handle });
  }

  private wholeText(content: string): void {
    if (content === '') return;
    this.emit({ type: 'text-start' });
    this.emit({ type: 'text-delta', text: content });
    this.emit({ type: 'text-end', text: content });
  }
}

/** The whole answer's events, in order (JSON responses). */
export function answerEvents(answer: FrontDoorAnswer): AnswerEvent[] {
  const events: AnswerEvent[] = [];
  new AnswerSequencer((event) => events.push(event)).finish(answer);
  return events;
}

/** What a door's SSE writer does with the stream's steps. */
export interface DoorStreamWriter {
  /** The opening event(s) (`message_start`, `response.created`). */
  open(): void;
  event(event: AnswerEvent): void;
  /** The closing events after the last answer event. */
  close(answer: FrontDoorAnswer): void;
  /** A failure after the stream started. */
  fail(error: GatewayHttpError): void;
}

/** Milliseconds the gateway waits for a first event before it commits to a 200 stream. */
export const STREAM_COMMIT_MS = 10_000;

/** Milliseconds between keep-alive comments while the provider is silent. */
export const KEEPALIVE_MS = 15_000;

/**
 * A streaming front-door answer. The turn starts at once; the HTTP status is decided at its
 * first live event (or after {@link STREAM_COMMIT_MS}): a turn that failed before then is
 * answered with its real status and error body (`failure`), one that produced something with a
 * `text/event-stream` whose later failures are the door's error event. While the provider is
 * silent an SSE comment goes out every {@link KEEPALIVE_MS} (clients ignore comments).
 */
export async function streamingAnswer(options: {
  run: (onDelta: (delta: FrontDoorDelta) => void) => Promise<FrontDoorAnswer>;
  writer: (send: (event: string | null, data: string) => void) => DoorStreamWriter;
  failure: (error: unknown) => Response;
  toError: (error: unknown) => GatewayHttpError;
  abort: () => void;
  /** Where the events go (the request source's body); `onCancel` runs when the client leaves first. */
  eventBody: (onCancel: () => void) => EventBody;
  headers: Record<string, string>;
  /** Pass deltas on as they come (chat completions), see {@link AnswerSequencer}. */
  live?: boolean;
  /** The turn thinks: text that comes before reasoning waits for the reasoning block (SPEC §26.3). */
  holdText?: boolean;
}): Promise<Response> {
  const early: FrontDoorDelta[] = [];
  let live: ((delta: FrontDoorDelta) => void) | null = null;
  let firstEvent!: () => void;
  const first = new Promise<void>((resolve) => (firstEvent = resolve));
  const running = options.run((delta) => {
    if (live) live(delta);
    else {
      early.push(delta);
      firstEvent();
    }
  });
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    first.then(() => 'event' as const),
    running.then(
      () => 'done' as const,
      () => 'failed' as const,
    ),
    new Promise<'waited'>((resolve) => (timer = setTimeout(() => resolve('waited'), STREAM_COMMIT_MS))),
  ]);
  clearTimeout(timer);
  if (outcome === 'failed') {
    try {
      await running;
    } catch (error) {
      return options.failure(error);
    }
  }
  // Events leave in one socket write per event-loop turn (`gateway-event-body.ts`). The client
  // going away before the answer closed interrupts the turn.
  const body = options.eventBody(() => {
    clearInterval(keepalive);
    options.abort();
  });
  const send = (event: string | null, data: string) =>
    body.write(event === null ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`);
  const keepalive = setInterval(() => body.write(': keep-alive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  const writer = options.writer(send);
  const sequencer = new AnswerSequencer(
    (event) => writer.event(event),
    options.live === true,
    options.holdText === true,
  );
  writer.open();
  for (const delta of early.splice(0)) sequencer.delta(delta);
  live = (delta) => sequencer.delta(delta);
  void running
    .then((answer) => {
      sequencer.finish(answer);
      writer.close(answer);
    })
    .catch((error: unknown) => writer.fail(options.toError(error)))
    .finally(() => {
      clearInterval(keepalive);
      body.close();
    });
  return body.respond({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    ...options.headers,
  });
}
