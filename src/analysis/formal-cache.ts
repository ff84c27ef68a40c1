/**
 * The formal models one model worker holds, by digest, so that checking a plan does not read
 * and parse the model again: filled by the analyses the worker runs and by the models it
 * reads for plan checks, least recently used first out. Bounded by the size of the models'
 * JSON (a fair measure of their memory), but the newest model is always kept, however large.
 */
import type { FormalModel } from "../formal/index.js";

/** JSON characters kept across models: a handful of large sessions' models per thread. */
export const DEFAULT_FORMAL_CACHE_CHARS = 64 * 1024 * 1024;

interface Entry {
  model: FormalModel;
  chars: number;
}

/**
 * A least-recently-used cache of formal models by digest, one per model worker thread, bounded
 * by `maxChars` of JSON (the newest model is kept even over the bound). Not shared across threads.
 */
export class FormalModelCache {
  /** Insertion order is use order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry>();
  private chars = 0;

  constructor(private readonly maxChars = DEFAULT_FORMAL_CACHE_CHARS) {}

  /** The model with this digest, if held; it becomes the most recently used. */
  get(digest: string): FormalModel | undefined {
    const entry = this.entries.get(digest);
    if (entry === undefined) return undefined;
    this.entries.delete(digest);
    this.entries.set(digest, entry);
    return entry.model;
  }

  /** Holds `model` (whose JSON has `chars` characters), letting the least recently used go to stay in bounds. */
  remember(digest: string, model: FormalModel, chars: number): void {
    const old = this.entries.get(digest);
    if (old !== undefined) {
      this.entries.delete(digest);
      this.chars -= old.chars;
    }
    this.entries.set(digest, { model, chars });
    this.chars += chars;
    for (const [key, entry] of this.entries) {
      if (this.chars <= this.maxChars || key === digest) break;
      this.entries.delete(key);
      this.chars -= entry.chars;
    }
  }

  /** Digests held, least recently used first (for tests). */
  get digests(): string[] {
    return [...this.entries.keys()];
  }
}
