/**
 * A `Storage` that lives in memory and ends with the page. GraphiQL keeps its tabs, query
 * history and request headers in the storage it is given (`localStorage` by default); this page
 * gives it this one, so nothing typed into the test tab (a key in the headers editor, say) is
 * written to the browser's storage, and every visit opens on the API's starter query.
 */
export class MemoryStorage implements Storage {
  [name: string]: unknown;
  private readonly items = new Map<string, string>();

  get length(): number {
    return this.items.size;
  }

  clear(): void {
    this.items.clear();
  }

  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }

  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }

  removeItem(key: string): void {
    this.items.delete(key);
  }

  setItem(key: string, value: string): void {
    this.items.set(key, String(value));
  }
}
