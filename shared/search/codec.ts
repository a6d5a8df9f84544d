/**
 * The byte layer of the in-memory index's snapshot (snapshot.ts): a growing byte buffer and a
 * reader over one, with the few shapes the snapshot is made of — unsigned integers of the width
 * their largest value needs, LEB128 varints, float64 columns, string tables and posting lists
 * (sorted record numbers, delta-coded). Little-endian throughout.
 */

/** Bytes an unsigned integer below `bound` takes (1–4). */
export const widthFor = (bound: number): number => (bound <= 0x100 ? 1 : bound <= 0x10000 ? 2 : bound <= 0x1000000 ? 3 : 4);

const utf8 = new TextEncoder();
const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

export class ByteWriter {
  private buf = new Uint8Array(1 << 16);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.length++] = v;
  }

  u32(v: number): void {
    this.uint(v, 4);
  }

  /** An unsigned integer in `width` bytes. */
  uint(v: number, width: number): void {
    this.room(width);
    for (let i = 0; i < width; i++) this.buf[this.length++] = (v >>> (8 * i)) & 0xff;
  }

  varint(v: number): void {
    this.room(5);
    while (v >= 0x80) {
      this.buf[this.length++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.length++] = v;
  }

  f64s(values: Float64Array): void {
    this.bytes(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  }

  /** UTF-8 text preceded by its byte length. */
  text(s: string): void {
    const b = utf8.encode(s);
    this.u32(b.length);
    this.bytes(b);
  }

  /**
   * Strings, front-coded: their count; for each, the UTF-16 units it shares with the one before
   * (never splitting a surrogate pair) and the length of the rest; then every rest concatenated
   * as UTF-8 (one decode on reading). Sorted tables share long prefixes (dates, keys).
   */
  strings(values: readonly string[]): void {
    this.u32(values.length);
    const rests: string[] = [];
    let prev = '';
    for (const v of values) {
      let p = 0;
      const max = Math.min(prev.length, v.length);
      while (p < max && prev.charCodeAt(p) === v.charCodeAt(p)) p++;
      if (p > 0 && p < v.length && isHighSurrogate(v.charCodeAt(p - 1))) p--;
      this.varint(p);
      this.varint(v.length - p);
      rests.push(v.slice(p));
      prev = v;
    }
    this.text(rests.join(''));
  }

  /** Unsigned integers below `bound`, each in widthFor(bound) bytes. */
  uints(values: ArrayLike<number>, bound: number): void {
    const w = widthFor(bound);
    this.u32(values.length);
    for (let i = 0; i < values.length; i++) this.uint(values[i]!, w);
  }

  /** Lists of ascending record numbers: each list's length, then every list's gaps (first value absolute). */
  postings(lists: readonly (readonly number[])[]): void {
    this.u32(lists.length);
    for (const l of lists) this.varint(l.length);
    for (const l of lists) {
      let prev = 0;
      for (let i = 0; i < l.length; i++) {
        this.varint(i === 0 ? l[i]! : l[i]! - prev);
        prev = l[i]!;
      }
    }
  }

  done(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** Posting lists as one array of record numbers and the offset of each list in it (list i: recs[offsets[i]] up to recs[offsets[i + 1]]). */
export interface PostingLists {
  offsets: Uint32Array;
  recs: Uint32Array;
}

export class ByteReader {
  at = 0;
  constructor(private readonly buf: Uint8Array) {}

  private need(n: number): void {
    if (this.at + n > this.buf.length) throw new Error('snapshot: truncated');
  }

  u8(): number {
    this.need(1);
    return this.buf[this.at++]!;
  }

  u32(): number {
    return this.uint(4);
  }

  uint(width: number): number {
    this.need(width);
    let v = 0;
    for (let i = 0; i < width; i++) v += this.buf[this.at++]! * 2 ** (8 * i);
    return v;
  }

  varint(): number {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = this.u8();
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
      shift += 7;
    }
  }

  bytesOf(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  f64s(n: number): Float64Array {
    this.need(n * 8);
    // A copy: the column must be 8-byte aligned, and the snapshot's bytes may be freed.
    const out = new Float64Array(this.buf.buffer.slice(this.buf.byteOffset + this.at, this.buf.byteOffset + this.at + n * 8));
    this.at += n * 8;
    return out;
  }

  text(): string {
    const n = this.u32();
    this.need(n);
    const s = fromUtf8.decode(this.buf.subarray(this.at, this.at + n));
    this.at += n;
    return s;
  }

  strings(): string[] {
    const count = this.u32();
    const shared = new Uint32Array(count);
    const lengths = new Uint32Array(count);
    for (let i = 0; i < count; i++) {
      shared[i] = this.varint();
      lengths[i] = this.varint();
    }
    const all = this.text();
    const out = new Array<string>(count);
    let from = 0;
    let prev = '';
    for (let i = 0; i < count; i++) {
      if (shared[i]! > prev.length) throw new Error('snapshot: a string table does not add up');
      const rest = all.slice(from, from + lengths[i]!);
      prev = out[i] = shared[i] === 0 ? rest : prev.slice(0, shared[i]) + rest;
      from += lengths[i]!;
    }
    if (from !== all.length) throw new Error('snapshot: a string table does not add up');
    return out;
  }

  uints(bound: number): Uint32Array {
    const w = widthFor(bound);
    const n = this.u32();
    this.need(n * w);
    const out = new Uint32Array(n);
    const b = this.buf;
    let at = this.at;
    if (w === 1) for (let i = 0; i < n; i++) out[i] = b[at++]!;
    else if (w === 2) for (let i = 0; i < n; i++, at += 2) out[i] = b[at]! | (b[at + 1]! << 8);
    else if (w === 3) for (let i = 0; i < n; i++, at += 3) out[i] = b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
    else for (let i = 0; i < n; i++, at += 4) out[i] = (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
    this.at = at;
    return out;
  }

  postings(): PostingLists {
    const count = this.u32();
    const offsets = new Uint32Array(count + 1);
    for (let i = 0; i < count; i++) offsets[i + 1] = offsets[i]! + this.varint();
    const recs = new Uint32Array(offsets[count]!);
    for (let l = 0; l < count; l++) {
      let prev = 0;
      for (let i = offsets[l]!; i < offsets[l + 1]!; i++) {
        prev = i === offsets[l] ? this.varint() : prev + this.varint();
        recs[i] = prev;
      }
    }
    return { offsets, recs };
  }

  end(): void {
    if (this.at !== this.buf.length) throw new Error('snapshot: trailing bytes');
  }
}
