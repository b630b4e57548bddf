import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type * as WorkerThreads from 'node:worker_threads';
import type * as Re2 from 're2js';
import { ToolError } from './tool-types.js';

/**
 * The matching half of `search_files`, in a worker thread. RE2 matches in time linear in the
 * line, but the factor is the compiled program's size: `[\p{L}\p{N}]{1,1000}[\p{Greek}]{1,1000}`
 * compiles to ~4,000 instructions and costs ~0.1 ms per character, so one 2,000,000-character
 * line is minutes of one synchronous call that nothing in the same thread can interrupt. In a
 * worker, the gateway's other sessions and the CLI's Ctrl-C are served meanwhile, and the
 * search's deadline or abort TERMINATES the worker, whatever call it is in.
 *
 * Work per line is capped too: a line is matched on its first `lineWork / instructions`
 * characters (at least {@link MIN_MATCHED_CHARS}), so an ordinary pattern sees whole lines of
 * any file the tool reads while a huge program cannot spend more than about a second per line.
 */

/** Characters of a line matched at least, whatever the pattern's size. */
export const MIN_MATCHED_CHARS = 4_096;

/** Characters of a matching line shown. */
export const MAX_SHOWN_LINE = 300;

/** One file sent for matching. */
export interface SearchFileJob {
  /** Index in the batch, given back with its result. */
  index: number;
  bytes: Uint8Array;
}

/** What matching one file found. */
export interface SearchFileResult {
  index: number;
  /** The file holds NUL: skipped as binary. */
  binary: boolean;
  /** `[line number, shown text]` of each matching line. */
  matches: [number, string][];
  /** Lines longer than the matched prefix (matched on that prefix only). */
  cutLines: number;
}

/** Messages from the worker. */
type WorkerMessage =
  | { type: 'ready'; matchedChars: number }
  | { type: 'invalid'; message: string }
  | { type: 'results'; results: SearchFileResult[] };

/** Messages to the worker: a search's pattern, then its batches of files. */
type SearchRequest =
  | { type: 'compile'; pattern: string; ignoreCase: boolean; lineWork: number }
  | { type: 'match'; files: SearchFileJob[]; wanted: number };

/** What the worker is started with. */
interface SearchWorkerData {
  re2js: string;
  minimumChars: number;
  shownChars: number;
}

/**
 * The worker's program. It runs from its own source text (`toString()`), so it uses nothing
 * from this module's scope: what it needs comes in `workerData`.
 */
function searchWorkerMain(): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- the worker runs as a CommonJS script */
  const threads = require('node:worker_threads') as typeof WorkerThreads;
  const data = threads.workerData as SearchWorkerData;
  const { RE2JS } = require(data.re2js) as typeof Re2;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const port = threads.parentPort;
  if (port === null) return;
  const decoder = new TextDecoder();
  let expression: InstanceType<typeof RE2JS> | null = null;
  let matchedChars = data.minimumChars;
  const compile = (request: Extract<SearchRequest, { type: 'compile' }>) => {
    try {
      expression = RE2JS.compile(request.pattern, request.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    } catch (error) {
      expression = null;
      port.postMessage({ type: 'invalid', message: (error as Error).message });
      return;
    }
    // The compiled program's size (re2js keeps it on `re2Input.prog.inst`); unknown: the minimum.
    const program = expression as unknown as { re2Input?: { prog?: { inst?: unknown[] } } };
    const instructions = program.re2Input?.prog?.inst?.length ?? 0;
    matchedChars =
      instructions > 0 ? Math.max(data.minimumChars, Math.floor(request.lineWork / instructions)) : data.minimumChars;
    port.postMessage({ type: 'ready', matchedChars });
  };
  const match = (request: Extract<SearchRequest, { type: 'match' }>, pattern: InstanceType<typeof RE2JS>) => {
    let wanted = request.wanted;
    const results: SearchFileResult[] = [];
    for (const file of request.files) {
      if (wanted <= 0) break;
      const text = decoder.decode(file.bytes);
      const result: SearchFileResult = { index: file.index, binary: text.includes('\0'), matches: [], cutLines: 0 };
      results.push(result);
      if (result.binary) continue;
      const lines = text.split('\n');
      for (let index = 0; index < lines.length && wanted > 0; index += 1) {
        const line = lines[index] ?? '';
        const tested = line.length > matchedChars ? line.slice(0, matchedChars) : line;
        if (tested !== line) result.cutLines += 1;
        if (!pattern.test(tested)) continue;
        const shown = line.length > data.shownChars ? `${line.slice(0, data.shownChars)}…` : line;
        result.matches.push([index + 1, shown]);
        wanted -= 1;
      }
    }
    port.postMessage({ type: 'results', results });
  };
  port.on('message', (request: SearchRequest) => {
    if (request.type === 'compile') compile(request);
    else if (expression !== null) match(request, expression);
  });
}

/**
 * One idle worker, kept (unref'd, so it never holds the process open) for the next search: a
 * worker's start and re2js's load cost tens of milliseconds, a search of a small tree a few.
 * A worker stopped by a deadline or an abort is never kept.
 */
let idleWorker: Worker | null = null;

function startWorker(): Worker {
  const workerData: SearchWorkerData = {
    re2js: createRequire(import.meta.url).resolve('re2js'),
    minimumChars: MIN_MATCHED_CHARS,
    shownChars: MAX_SHOWN_LINE,
  };
  const worker = new Worker(`(${searchWorkerMain.toString()})()`, { eval: true, workerData });
  worker.once('exit', () => {
    if (idleWorker === worker) idleWorker = null;
  });
  return worker;
}

/** A running matcher: compile once, then batches of files; {@link SearchWorker.stop} ends it at once. */
export class SearchWorker {
  private readonly worker: Worker;
  private pending: { resolve(results: SearchFileResult[]): void; reject(error: unknown): void } | null = null;
  private failure: unknown = null;
  private readonly listeners: { message(message: WorkerMessage): void; error(error: Error): void; exit(): void };
  /** Resolves with the characters matched per line once the pattern compiled; rejects on a bad pattern. */
  readonly ready: Promise<number>;

  constructor(pattern: string, ignoreCase: boolean, lineWork: number) {
    this.worker = idleWorker ?? startWorker();
    idleWorker = null;
    this.worker.ref();
    let compiled!: (matchedChars: number) => void;
    let refused!: (error: unknown) => void;
    this.ready = new Promise<number>((resolve, reject) => {
      compiled = resolve;
      refused = reject;
    });
    const fail = (error: unknown) => {
      this.failure ??= error;
      refused(this.failure);
      this.pending?.reject(this.failure);
      this.pending = null;
    };
    this.listeners = {
      message: (message) => {
        if (message.type === 'ready') compiled(message.matchedChars);
        else if (message.type === 'invalid') {
          fail(
            new ToolError(
              `invalid pattern: ${message.message} (RE2 syntax, as in ripgrep: lookaround and backreferences are not supported)`,
            ),
          );
        } else {
          this.pending?.resolve(message.results);
          this.pending = null;
        }
      },
      error: (error) => fail(new ToolError(`search_files failed: ${error.message}`)),
      exit: () => fail(new ToolError('search_files stopped')),
    };
    this.worker.on('message', this.listeners.message);
    this.worker.on('error', this.listeners.error);
    this.worker.on('exit', this.listeners.exit);
    // A failure nobody awaits yet (the search was stopped) is not an unhandled rejection.
    this.ready.catch(() => undefined);
    this.post({ type: 'compile', pattern, ignoreCase, lineWork });
  }

  /** Matches a batch of files, at most `wanted` matching lines in all. */
  match(files: SearchFileJob[], wanted: number): Promise<SearchFileResult[]> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.post({ type: 'match', files, wanted });
    });
  }

  /** Ends the worker now, in the middle of a match if need be; a pending batch rejects with `reason`. */
  async stop(reason: unknown = new ToolError('search_files stopped')): Promise<void> {
    this.failure ??= reason;
    this.pending?.reject(this.failure);
    this.pending = null;
    await this.worker.terminate();
  }

  /**
   * The search is over and the worker is idle (no batch pending): it is kept for the next
   * search when no other is kept, else ended. A stopped or failed worker is ended.
   */
  async release(): Promise<void> {
    this.worker.off('message', this.listeners.message);
    this.worker.off('error', this.listeners.error);
    this.worker.off('exit', this.listeners.exit);
    if (this.failure !== null || this.pending !== null || idleWorker !== null) {
      await this.stop();
      return;
    }
    this.failure = new ToolError('search_files stopped');
    this.worker.unref();
    idleWorker = this.worker;
  }

  private post(request: SearchRequest): void {
    this.worker.postMessage(request);
  }
}
