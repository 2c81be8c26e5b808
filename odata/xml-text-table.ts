// Names of one XML document found again by a hash of their characters, read in place: a reader
// meets the same few dozen element and attribute names on every entry of a feed, and finding one
// this way costs no new string, no engine hashing of a fresh slice and no second check of it.

export function hashStep(hash: number, c: number): number {
  return (Math.imul(hash, 31) + c) | 0;
}

interface Slot<T> {
  readonly hash: number;
  readonly raw: string;
  readonly item: T;
}

/** Open addressing over a power-of-two array; it stops taking strings once half full. */
export class TextTable<T> {
  private readonly slots: (Slot<T> | undefined)[];
  private readonly mask: number;
  private size = 0;

  constructor(private readonly capacity: number) {
    let length = 2;
    while (length < capacity * 2) length *= 2;
    this.slots = new Array<Slot<T> | undefined>(length).fill(undefined);
    this.mask = length - 1;
  }

  /** The item of `xml` from `from` to `to` (whose characters hash to `hash`), if known. */
  find(xml: string, from: number, to: number, hash: number): T | undefined {
    const length = to - from;
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const slot = this.slots[i];
      if (slot === undefined) return undefined;
      if (slot.hash === hash && slot.raw.length === length && xml.startsWith(slot.raw, from)) return slot.item;
    }
  }

  /** Keeps `item` for `raw`, unless the table is full. */
  add(raw: string, hash: number, item: T): void {
    if (this.size >= this.capacity) return;
    let i = hash & this.mask;
    while (this.slots[i] !== undefined) i = (i + 1) & this.mask;
    this.slots[i] = { hash, raw, item };
    this.size++;
  }
}
