import type { ServerResponse } from 'node:http';

/**
 * Server-sent events writer for emulators (chat completions, Anthropic, Gemini, Responses all
 * stream SSE). Each call writes one event as its own chunk so clients see realistic framing.
 */
export class EmulatorSseWriter {
  private readonly response: ServerResponse;
  private started = false;
  private flushed: Promise<void> = Promise.resolve();

  /** Wraps a response that has not been written yet. */
  constructor(response: ServerResponse) {
    this.response = response;
  }

  /** Sends the status line and SSE headers (idempotent). */
  start(status = 200, headers: Record<string, string> = {}): void {
    if (this.started) return;
    this.started = true;
    this.response.writeHead(status, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...headers,
    });
    this.response.flushHeaders();
  }

  /** Writes `data: <payload>` (objects are JSON-encoded; strings are written as given). */
  data(payload: unknown, eventName?: string): void {
    this.start();
    const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
    const eventLine = eventName === undefined ? '' : `event: ${eventName}\n`;
    this.write(`${eventLine}data: ${text}\n\n`);
  }

  /** Writes an SSE comment line (OpenRouter sends `: OPENROUTER PROCESSING` keep-alives). */
  comment(text: string): void {
    this.start();
    this.write(`: ${text}\n\n`);
  }

  /** Writes raw bytes as they are (used to emit deliberately malformed frames). */
  raw(text: string): void {
    this.start();
    this.write(text);
  }

  private write(text: string): void {
    this.flushed = new Promise<void>((resolve) => {
      this.response.write(text, () => resolve());
    });
  }

  /** Ends the response cleanly. */
  end(): void {
    this.start();
    this.response.end();
  }

  /**
   * Drops the connection without finishing the stream (the client sees a reset mid-stream).
   * Waits until the events already written reached the socket, so the client really receives
   * a partial stream rather than nothing.
   */
  async destroy(): Promise<void> {
    await this.flushed;
    this.response.socket?.destroy();
    this.response.destroy();
  }
}
