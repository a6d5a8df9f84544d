/**
 * Uploaded images (API.md §4.9, §7.1): a file is accepted when its content — not its name or
 * declared type — is a JPEG, PNG or WebP image of at most 2 MiB whose width and height are each
 * 1–3,000 pixels. The type and the size are read from the bytes here (decision 70: a reader of
 * the three formats' headers rather than a general library, which would judge more formats and
 * less strictly):
 *
 *  - PNG: the signature, an IHDR chunk with valid fields and a matching CRC, then a chain of
 *    well-formed chunks with at least one IDAT, up to IEND (a file cut short never reaches it);
 *  - JPEG: SOI, then a chain of marker segments that fit in the file, a frame header (SOF0–SOF15
 *    but DHT, JPG and DAC) before the first scan (SOS), and an EOI marker after it;
 *  - WebP: a RIFF container whose declared size fits in the file, then a lossy (`VP8 `: key
 *    frame, start code), lossless (`VP8L`: signature, version 0) or extended (`VP8X`: canvas,
 *    and a chain of chunks holding an image or animation frames) bitstream.
 *
 * Any failure is an ImageRejected whose message goes into `errors.image` (the upload's schema,
 * shared/domain/pictures.ts). No dependency: the storage module and the cleanup job import the
 * types from here without the request schemas.
 */
import { crc32 } from 'node:zlib';

export const MAX_IMAGE_BYTES = 2_097_152;
export const MAX_IMAGE_SIDE = 3000;

export type ImageType = 'jpeg' | 'png' | 'webp';

/** The Content-Type and file name extension each type is stored with. */
export const IMAGE_TYPES: Readonly<Record<ImageType, { mime: string; ext: string; label: string }>> = {
  jpeg: { mime: 'image/jpeg', ext: 'jpg', label: 'JPEG' },
  png: { mime: 'image/png', ext: 'png', label: 'PNG' },
  webp: { mime: 'image/webp', ext: 'webp', label: 'WebP' },
};

export interface ImageInfo {
  type: ImageType;
  width: number;
  height: number;
}

/** An image judged acceptable: its bytes, as sent, with what they are. */
export interface JudgedImage extends ImageInfo {
  bytes: Buffer;
}

/** Why a file is not an acceptable image (the message goes into `errors.image`). */
export class ImageRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageRejected';
  }
}

const corrupt = (type: ImageType, what: string) => new ImageRejected(`The file is not a valid ${IMAGE_TYPES[type].label} image (${what}).`);

const startsWith = (b: Uint8Array, at: number, ascii: string) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1', at, at + ascii.length) === ascii;
const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at]! << 24) >>> 0) + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!);
const u32le = (b: Uint8Array, at: number) => ((b[at + 3]! << 24) >>> 0) + ((b[at + 2]! << 16) | (b[at + 1]! << 8) | b[at]!);

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Allowed bit depths per PNG colour type. */
const PNG_DEPTHS: Readonly<Record<number, readonly number[]>> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

function readPng(b: Uint8Array): ImageInfo {
  const bad = (what: string) => corrupt('png', what);
  if (b.length < 8 + 25 || u32be(b, 8) !== 13 || !startsWith(b, 12, 'IHDR')) throw bad('no image header');
  const width = u32be(b, 16);
  const height = u32be(b, 20);
  const [depth, colour, compression, filter, interlace] = [b[24]!, b[25]!, b[26]!, b[27]!, b[28]!];
  if (!PNG_DEPTHS[colour]?.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1) throw bad('invalid image header');
  if (crc32(b.subarray(12, 29)) !== u32be(b, 29)) throw bad('image header checksum mismatch');
  let at = 33;
  let data = false;
  for (;;) {
    if (at + 12 > b.length) throw bad('truncated');
    const length = u32be(b, at);
    if (length > 0x7fffffff || at + 12 + length > b.length) throw bad('truncated');
    const type = Buffer.from(b.subarray(at + 4, at + 8)).toString('latin1');
    if (!/^[A-Za-z]{4}$/.test(type)) throw bad('corrupt chunk');
    if (type === 'IDAT') data = true;
    if (type === 'IEND') break;
    at += 12 + length;
  }
  if (!data) throw bad('no image data');
  return { type: 'png', width, height };
}

/** SOF0–SOF15 but DHT (C4), JPG (C8) and DAC (CC): the frame headers that carry the size. */
const isFrameHeader = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function readJpeg(b: Uint8Array): ImageInfo {
  const bad = (what: string) => corrupt('jpeg', what);
  let at = 2;
  let size: { width: number; height: number } | undefined;
  for (;;) {
    if (at + 2 > b.length || b[at] !== 0xff) throw bad(at + 2 > b.length ? 'truncated' : 'corrupt marker');
    while (b[at + 1] === 0xff && at + 2 < b.length) at++; // fill bytes
    const marker = b[at + 1]!;
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2; // standalone markers
      continue;
    }
    if (marker === 0x00 || marker === 0xd8 || marker === 0xd9) throw bad(marker === 0xd9 ? 'no image data' : 'corrupt marker');
    if (at + 4 > b.length) throw bad('truncated');
    const length = u16be(b, at + 2);
    if (length < 2 || at + 2 + length > b.length) throw bad('truncated');
    if (isFrameHeader(marker) && !size) {
      const components = b[at + 9];
      if (length < 8 || components === undefined || components === 0 || length !== 8 + 3 * components) throw bad('invalid frame header');
      size = { height: u16be(b, at + 5), width: u16be(b, at + 7) };
    }
    if (marker === 0xda) {
      if (!size) throw bad('no frame header');
      // Entropy-coded data follows; inside it 0xFF is always stuffed or a restart marker, so an
      // EOI after the scan header means the data is complete (whatever trails it).
      const end = Buffer.from(b.buffer, b.byteOffset, b.byteLength).lastIndexOf(Buffer.from([0xff, 0xd9]));
      if (end < at + 2 + length) throw bad('truncated');
      return { type: 'jpeg', ...size };
    }
    at += 2 + length;
  }
}

/** The size of a lossy (`VP8 `) bitstream at `at` of `length` bytes. */
function vp8Size(b: Uint8Array, at: number, length: number): { width: number; height: number } {
  const bad = (what: string) => corrupt('webp', what);
  if (length < 10) throw bad('truncated');
  const tag = u24le(b, at);
  const keyFrame = (tag & 1) === 0;
  const version = (tag >> 1) & 7;
  const shown = (tag >> 4) & 1;
  const partition = tag >> 5;
  if (!keyFrame || version > 3 || !shown || partition >= length) throw bad('invalid lossy bitstream');
  if (b[at + 3] !== 0x9d || b[at + 4] !== 0x01 || b[at + 5] !== 0x2a) throw bad('invalid lossy bitstream');
  return { width: u16le(b, at + 6) & 0x3fff, height: u16le(b, at + 8) & 0x3fff };
}

/** The size of a lossless (`VP8L`) bitstream at `at` of `length` bytes. */
function vp8lSize(b: Uint8Array, at: number, length: number): { width: number; height: number } {
  const bad = (what: string) => corrupt('webp', what);
  if (length < 5) throw bad('truncated');
  if (b[at] !== 0x2f) throw bad('invalid lossless bitstream');
  const bits = u32le(b, at + 1);
  if (bits >>> 29 !== 0) throw bad('invalid lossless bitstream'); // version
  return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
}

function readWebp(b: Uint8Array): ImageInfo {
  const bad = (what: string) => corrupt('webp', what);
  const riffEnd = 8 + u32le(b, 4);
  if (riffEnd > b.length) throw bad('truncated');
  if (riffEnd < 12 + 8) throw bad('no image data');
  /** The chunks of the container from `at`: fourCC, payload offset and length (padded to even). */
  const chunk = (at: number) => {
    if (at + 8 > riffEnd) throw bad('truncated');
    const length = u32le(b, at + 4);
    if (at + 8 + length > riffEnd) throw bad('truncated');
    return { type: Buffer.from(b.subarray(at, at + 4)).toString('latin1'), data: at + 8, length, next: at + 8 + length + (length & 1) };
  };
  const first = chunk(12);
  if (first.type === 'VP8 ') return { type: 'webp', ...vp8Size(b, first.data, first.length) };
  if (first.type === 'VP8L') return { type: 'webp', ...vp8lSize(b, first.data, first.length) };
  if (first.type !== 'VP8X') throw bad('unknown bitstream');
  if (first.length < 10) throw bad('truncated');
  const flags = b[first.data]!; // its reserved bits are ignored, as the format requires of readers
  const canvas = { width: u24le(b, first.data + 4) + 1, height: u24le(b, first.data + 7) + 1 };
  const animated = (flags & 0x02) !== 0;
  // The image: a VP8/VP8L bitstream of the canvas's size, or (animated) at least one frame.
  let image = false;
  for (let at = first.next; at < riffEnd; ) {
    const c = chunk(at);
    if (!animated && (c.type === 'VP8 ' || c.type === 'VP8L')) {
      const size = c.type === 'VP8 ' ? vp8Size(b, c.data, c.length) : vp8lSize(b, c.data, c.length);
      if (size.width !== canvas.width || size.height !== canvas.height) throw bad('bitstream and canvas sizes differ');
      image = true;
    }
    if (animated && c.type === 'ANMF') image = true;
    at = c.next;
  }
  if (!image) throw bad('no image data');
  return { type: 'webp', ...canvas };
}

/** What the bytes are (type, width, height); ImageRejected when they are no JPEG, PNG or WebP image. */
export function readImage(bytes: Uint8Array): ImageInfo {
  if (PNG_SIGNATURE.every((v, i) => bytes[i] === v)) return readPng(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return readJpeg(bytes);
  if (bytes.length >= 16 && startsWith(bytes, 0, 'RIFF') && startsWith(bytes, 8, 'WEBP')) return readWebp(bytes);
  throw new ImageRejected('The file is not a JPEG, PNG or WebP image.');
}

/** The rules of §4.9: size, type by content, dimensions. ImageRejected with the reason otherwise. */
export function judgeImage(bytes: Buffer): JudgedImage {
  if (bytes.length > MAX_IMAGE_BYTES) throw new ImageRejected('The image is larger than 2 MiB (2,097,152 bytes).');
  if (bytes.length === 0) throw new ImageRejected('The file is empty.');
  const info = readImage(bytes);
  const inRange = (n: number) => n >= 1 && n <= MAX_IMAGE_SIDE;
  if (!inRange(info.width) || !inRange(info.height)) {
    throw new ImageRejected(`The image must be 1–3,000 pixels wide and high; it is ${info.width}×${info.height}.`);
  }
  return { ...info, bytes };
}
