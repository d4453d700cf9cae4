import type { WriteContext } from './dialect';

/**
 * Small helpers the adapters' error translators share (`*-errors.ts`): reading driver error
 * objects safely and naming fields in plain words.
 */

/** `name` when it is a column of the written table (or when the context lists no columns), else null. */
export function knownColumn(name: string | undefined, context: WriteContext): string | null {
  if (!name) return null;
  if (context.columns.length === 0) return name;
  return context.columns.some((c) => c.name === name) ? name : null;
}

/** `a`, `a and b`, `a, b and c`. */
export function wordList(words: string[]): string {
  return words.length === 1
    ? words[0]
    : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** Whether a value is a non-null object (a driver error or one of its parts). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The value when it is non-empty text, else undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
