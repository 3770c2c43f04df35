/**
 * A short-lived memory of pages already read, keyed by URL: a model that fetches the same page
 * twice in a few minutes (to ask another question of it) does not fetch it again. Entries expire
 * after `ttlMs`; the oldest go first once the count or the characters held pass their bounds.
 */
export interface PageCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  maxChars?: number;
}

export const DEFAULT_PAGE_TTL_MS = 15 * 60_000;

export class PageCache<T extends { text: string }> {
  private readonly entries = new Map<string, { at: number; value: T }>();
  private chars = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly maxChars: number;

  constructor(
    options: PageCacheOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_PAGE_TTL_MS;
    this.maxEntries = options.maxEntries ?? 32;
    this.maxChars = options.maxChars ?? 20_000_000;
  }

  get(url: string): T | undefined {
    const entry = this.entries.get(url);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.ttlMs) {
      this.delete(url);
      return undefined;
    }
    return entry.value;
  }

  set(url: string, value: T): void {
    this.delete(url);
    if (value.text.length > this.maxChars) return;
    this.entries.set(url, { at: this.now(), value });
    this.chars += value.text.length;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(url: string): void {
    const entry = this.entries.get(url);
    if (!entry) return;
    this.chars -= entry.value.text.length;
    this.entries.delete(url);
  }
}
