/**
 * What was read from a text, by text, kept from the text's second sighting on. Text that repeats
 * (templates, stock phrasings, sentences a rollout group's samples share) is then read at most twice,
 * while text seen once, as most of a model's own wording is, leaves no reading behind: kept, readings
 * outlived the young generation, and collecting them from the old one cost more than reading a text
 * again. Both the readings and the texts seen are cleared when full, so memory stays bounded.
 */
export class RepeatCache<V> {
  private readonly kept = new Map<string, V>();
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  get(text: string, read: (text: string) => V): V {
    let value = this.kept.get(text);
    if (value !== undefined) return value;
    value = read(text);
    if (this.seen.has(text)) {
      if (this.kept.size >= this.max) this.kept.clear();
      this.kept.set(text, value);
    } else {
      if (this.seen.size >= this.max) this.seen.clear();
      this.seen.add(text);
    }
    return value;
  }

  /** Forgets every text and reading: for readings that hold what their source has dropped. */
  clear(): void {
    this.kept.clear();
    this.seen.clear();
  }
}
