/**
 * A least-recently-used map bounded by total weight: by default each entry weighs 1, so the
 * bound is a count; with `weigh` it can be bytes. An entry heavier than the whole bound is not kept.
 */
interface Entry<V> {
  readonly value: V;
  readonly weight: number;
}

export class Lru<K, V> {
  readonly #max: number;
  readonly #weigh: (value: V) => number;
  readonly #map = new Map<K, Entry<V>>();
  #weight = 0;
  // The most recently used entry: a repeated get of it need not move it (a poll asks for one key often).
  #newest: Entry<V> | undefined = undefined;

  constructor(max: number, weigh: (value: V) => number = () => 1) {
    if (!Number.isFinite(max) || max < 1)
      throw new RangeError(`An LRU needs room for at least 1 entry, got ${max}`);
    this.#max = max;
    this.#weigh = weigh;
  }

  /** How many entries are held. */
  get size(): number {
    return this.#map.size;
  }

  /** The total weight held. */
  get weight(): number {
    return this.#weight;
  }

  get(key: K): V | undefined {
    const entry = this.#map.get(key);
    if (entry === undefined) return undefined;
    if (entry !== this.#newest) {
      this.#map.delete(key);
      this.#map.set(key, entry);
      this.#newest = entry;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.#weigh(value);
    if (weight > this.#max) return;
    const added = { value, weight };
    this.#map.set(key, added);
    this.#newest = added;
    this.#weight += weight;
    for (const [oldest, entry] of this.#map) {
      if (this.#weight <= this.#max) break;
      this.#map.delete(oldest);
      this.#weight -= entry.weight;
    }
  }

  delete(key: K): void {
    const entry = this.#map.get(key);
    if (entry === undefined) return;
    if (entry === this.#newest) this.#newest = undefined;
    this.#map.delete(key);
    this.#weight -= entry.weight;
  }

  clear(): void {
    this.#map.clear();
    this.#newest = undefined;
    this.#weight = 0;
  }
}
