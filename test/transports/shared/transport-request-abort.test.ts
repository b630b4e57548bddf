import { describe, expect, it } from 'vitest';
import { RequestAbort, toAbortSignal } from '../../../src/transports/shared/transport-request-abort.js';

describe('RequestAbort', () => {
  it('runs each listener once, in order, and ignores a second abort', () => {
    const abort = new RequestAbort();
    const calls: string[] = [];
    abort.addEventListener('abort', () => calls.push('first'));
    abort.addEventListener('abort', () => calls.push('second'));
    const reason = new Error('limit');
    abort.abort(reason);
    abort.abort(new Error('later'));
    expect(calls).toEqual(['first', 'second']);
    expect(abort.aborted).toBe(true);
    expect(abort.reason).toBe(reason);
  });

  it('forgets a removed listener and takes none once aborted', () => {
    const abort = new RequestAbort();
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    abort.addEventListener('abort', removed);
    abort.removeEventListener('abort', removed);
    abort.abort();
    abort.addEventListener('abort', () => calls.push('late'));
    expect(calls).toEqual([]);
  });

  it('aborts without a reason as AbortController does: an AbortError DOMException', () => {
    const abort = new RequestAbort();
    abort.abort();
    const controller = new AbortController();
    controller.abort();
    expect(abort.reason).toBeInstanceOf(DOMException);
    expect((abort.reason as DOMException).name).toBe((controller.signal.reason as DOMException).name);
  });
});

describe('toAbortSignal', () => {
  it('passes an AbortSignal through and follows a RequestAbort with its reason', () => {
    const signal = new AbortController().signal;
    expect(toAbortSignal(signal)).toBe(signal);
    const abort = new RequestAbort();
    const followed = toAbortSignal(abort);
    expect(followed.aborted).toBe(false);
    const reason = new Error('stop');
    abort.abort(reason);
    expect(followed.aborted).toBe(true);
    expect(followed.reason).toBe(reason);
    const already = new RequestAbort();
    already.abort(reason);
    expect(toAbortSignal(already).reason).toBe(reason);
  });
});
