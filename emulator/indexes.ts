// Indexed collections, so every request costs what it touches (a page, a name), never the whole
// account: by UUID (a Map), by owner (reseller + environment, A8) in seq order, and for domains by
// name per environment. Inserts are O(1) appends: seq only grows.

/** What every owned resource carries. */
export interface OwnedItem {
  uuid: string;
  seq: number;
  resellerUuid: string;
  environment: string;
}

export function ownerKeyOf(owner: { resellerUuid: string; environment: string }): string {
  return `${owner.resellerUuid}:${owner.environment}`;
}

const EMPTY: readonly never[] = Object.freeze([]);

/** A Map by UUID plus one seq-ordered array per owner. */
export class OwnedMap<T extends OwnedItem> implements Iterable<[string, T]> {
  readonly #byUuid = new Map<string, T>();
  readonly #byOwner = new Map<string, T[]>();

  /** `onAdd` keeps a caller's secondary index (e.g. orders by external_id) in step with inserts. */
  constructor(private readonly onAdd?: (item: T) => void) {}

  get size(): number {
    return this.#byUuid.size;
  }

  get(uuid: string): T | undefined {
    return this.#byUuid.get(uuid);
  }

  has(uuid: string): boolean {
    return this.#byUuid.has(uuid);
  }

  set(uuid: string, item: T): this {
    const previous = this.#byUuid.get(uuid);
    this.#byUuid.set(uuid, item);
    if (previous === item) return this;
    if (previous) this.#remove(previous);
    const key = ownerKeyOf(item);
    let list = this.#byOwner.get(key);
    if (!list) this.#byOwner.set(key, (list = []));
    if (list.length === 0 || list[list.length - 1].seq < item.seq) list.push(item);
    else list.splice(firstAfter(list, item.seq - 1), 0, item); // out-of-order seq: keep the order
    this.added(item);
    return this;
  }

  /** Called once per newly stored item (subclasses add their own indexes). */
  protected added(item: T): void {
    this.onAdd?.(item);
  }

  #remove(item: T): void {
    const list = this.#byOwner.get(ownerKeyOf(item));
    const at = list ? list.indexOf(item) : -1;
    if (list && at >= 0) list.splice(at, 1);
  }

  values(): IterableIterator<T> {
    return this.#byUuid.values();
  }

  [Symbol.iterator](): IterableIterator<[string, T]> {
    return this.#byUuid.entries();
  }

  clear(): void {
    this.#byUuid.clear();
    this.#byOwner.clear();
  }

  /** The owner's items in seq order — the live array, not a copy: never mutate it. */
  owned(owner: { resellerUuid: string; environment: string }): readonly T[] {
    return this.#byOwner.get(ownerKeyOf(owner)) ?? EMPTY;
  }
}

/** Index of the first item whose seq is greater than `after` (binary search). */
export function firstAfter(items: readonly { seq: number }[], after: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid].seq > after) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Domains, also by name per environment (a name is registered once per environment). */
export class DomainMap<T extends OwnedItem & { name: string }> extends OwnedMap<T> {
  readonly #byName = new Map<string, T>();

  protected override added(item: T): void {
    this.#byName.set(`${item.environment}:${item.name}`, item);
  }

  override clear(): void {
    super.clear();
    this.#byName.clear();
  }

  byName(environment: string, name: string): T | undefined {
    return this.#byName.get(`${environment}:${name}`);
  }
}

/** A secondary index: key → items in insertion (seq) order. */
export class MultiIndex<T> {
  readonly #map = new Map<string, T[]>();

  add(key: string, item: T): void {
    const list = this.#map.get(key);
    if (list) list.push(item);
    else this.#map.set(key, [item]);
  }

  get(key: string): readonly T[] {
    return this.#map.get(key) ?? EMPTY;
  }

  clear(): void {
    this.#map.clear();
  }
}
