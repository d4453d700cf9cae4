import { FIXED_VALUE_BYTES, RowReader, rowBytes } from './row-bytes';
import type { RowSink } from './row-bytes';

/**
 * The one estimate of a row's size for the request's byte budget (issue 22 item 10): lengths and
 * fixed sizes, as the answer's JSON would write them, never a copy of the row.
 */
describe('rowBytes', () => {
  it('counts column names and string lengths with their quotes', () => {
    expect(rowBytes({ name: 'Ana' })).toBe(4 + 3 + 2);
    expect(rowBytes({ x: 'é'.repeat(10) })).toBe(1 + 10 + 2);
  });

  it('counts bytes as their base64 text', () => {
    expect(rowBytes({ b: Buffer.alloc(3) })).toBe(1 + 4 + 2);
    expect(rowBytes({ b: new Uint8Array(4) })).toBe(1 + 8 + 2);
  });

  it('gives numbers, big integers, booleans and dates a fixed size, null 4', () => {
    expect(rowBytes({ n: 12345.678, i: 10n ** 30n, t: true, d: new Date(0) })).toBe(
      4 + 4 * FIXED_VALUE_BYTES,
    );
    expect(rowBytes({ n: null, u: undefined })).toBe(2 + 8);
  });

  it('sums the keys and values of JSON objects and arrays', () => {
    expect(rowBytes({ doc: { a: 'xy', list: [1, 'z'] } })).toBe(3 + (1 + 4) + (4 + 8 + 3));
  });

  it('walks a deeply nested value without overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(rowBytes({ d: deep })).toBe(1 + 6);
  });

  it('is linear in a large value: a 50 MB string is its length', () => {
    expect(rowBytes({ p: 'x'.repeat(50 * 1024 * 1024) })).toBe(1 + 50 * 1024 * 1024 + 2);
  });
});

describe('RowReader', () => {
  const sink = (limit: number): RowSink & { charged: number } => ({
    charged: 0,
    bytesLeft() {
      return limit - this.charged;
    },
    chargeRows(_rows, bytes) {
      this.charged += bytes;
      if (this.charged > limit) throw new Error('over');
    },
  });

  it('keeps rows the sink accepts, then drops them all and every later row once it refuses', () => {
    const reader = new RowReader(sink(20));
    expect(reader.accept({ a: 'xxxxx' })).toBe(true);
    expect(reader.rows).toHaveLength(1);
    expect(reader.accept({ a: 'xxxxxxxxxxxxxxxx' })).toBe(false);
    expect(reader.rows).toEqual([]);
    expect((reader.refusal?.reason as Error).message).toBe('over');
    expect(reader.accept({ a: '' })).toBe(false);
  });

  it('keeps every row without a sink', () => {
    const reader = new RowReader(undefined);
    for (let i = 0; i < 3; i++) expect(reader.accept({ i })).toBe(true);
    expect(reader.rows).toHaveLength(3);
  });
});
