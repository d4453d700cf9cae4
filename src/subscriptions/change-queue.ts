/**
 * A bounded push queue read as an async iterator: what one subscription's events wait in until
 * graphql-ws sends them. {@link push} past `capacity` waiting events ends the queue with an error
 * (a subscriber too slow to read its events loses the subscription, not the process's memory);
 * {@link end} finishes it; `return()` (the client completed, or its socket closed) runs
 * `onReturn` once.
 */
export class ChangeQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private failWaiting: ((error: Error) => void) | null = null;
  private done = false;
  private error: Error | null = null;

  /**
   * @param capacity events that may wait at most.
   * @param onReturn called once when the queue ends for any reason.
   */
  constructor(
    private readonly capacity: number,
    private readonly onReturn: () => void,
  ) {}

  /** Adds an event; ends the queue with an error when `capacity` events already wait. */
  push(item: T): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = this.failWaiting = null;
      resolve({ value: item, done: false });
      return;
    }
    if (this.items.length >= this.capacity) {
      this.end(
        new Error(
          `More than ${this.capacity} events waited to be sent: the subscription ended; subscribe again`,
        ),
      );
      return;
    }
    this.items.push(item);
  }

  /** Ends the queue: after the waiting events, with `error` when given (sent as the operation's error). */
  end(error?: Error): void {
    if (this.done) return;
    this.done = true;
    this.error = error ?? null;
    // An error ends the stream at once: the waiting events are dropped.
    if (error) this.items.length = 0;
    this.onReturn();
    if (this.waiting) {
      const resolve = this.waiting;
      const reject = this.failWaiting!;
      this.waiting = this.failWaiting = null;
      if (error) reject(error);
      else resolve({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length) return Promise.resolve({ value: this.items.shift()!, done: false });
    if (this.done) {
      const error = this.error;
      this.error = null;
      return error ? Promise.reject(error) : Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiting = reject;
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.items.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error: unknown): Promise<IteratorResult<T>> {
    this.end(error instanceof Error ? error : new Error(String(error)));
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
