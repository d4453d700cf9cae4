import { Cancellation, CancelSignal } from './cancellation';

describe('Cancellation', () => {
  it('fires its abort listeners once, with the first reason, as AbortController does', () => {
    const cancellation = new Cancellation();
    const heard: unknown[] = [];
    const listener = () => heard.push(cancellation.reason);
    cancellation.addEventListener('abort', listener, { once: true });
    expect(cancellation.aborted).toBe(false);
    expect(() => cancellation.throwIfAborted()).not.toThrow();
    const first = new Error('client disconnected');
    cancellation.abort(first);
    cancellation.abort(new Error('later'));
    expect(heard).toEqual([first]);
    expect(cancellation.aborted).toBe(true);
    expect(cancellation.reason).toBe(first);
    expect(() => cancellation.throwIfAborted()).toThrow(first);
  });

  it('stops calling a removed listener', () => {
    const cancellation = new Cancellation();
    const listener = jest.fn();
    cancellation.addEventListener('abort', listener);
    cancellation.removeEventListener('abort', listener);
    cancellation.abort('gone');
    expect(listener).not.toHaveBeenCalled();
  });

  it('is a CancelSignal, as the standard AbortSignal is', () => {
    const signals: CancelSignal[] = [new Cancellation(), new AbortController().signal];
    for (const signal of signals) expect(signal.aborted).toBe(false);
  });
});
