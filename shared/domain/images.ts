/**
 * Uploaded images (API.md §4.9, §7.1): a file is accepted when its content — not its name or
 * declared type — is a JPEG, PNG or WebP image of at most 2 MiB whose width and height are each
 * 1–3,000 pixels, in a single frame. The type and the size are read from the bytes here
 * (decision 70: a reader of the three formats' containers rather than a general library, which
 * would judge more formats and less strictly), and the same walk says which parts of the file
 * are stored (decision U1): the image without its metadata (EXIF, XMP, text, comments,
 * thumbnails; a colour profile stays) and without the bytes after its end.
 *
 *  - PNG: the signature, an IHDR chunk with valid fields, then a chain of well-formed chunks,
 *    each with a matching CRC, with at least one IDAT, up to IEND (a file cut short never
 *    reaches it). Stored: the chunks that draw the image (PNG_KEPT), up to IEND. Refused: acTL
 *    (an animation) and critical chunks that no decoder knows;
 *  - JPEG: SOI, then a chain of marker segments that fit in the file, a frame header (SOF0–SOF15
 *    but DHT, JPG and DAC) before the first scan (SOS), each scan's entropy-coded data, and an
 *    EOI marker. Stored: the tables, frames and scans (JPEG_KEPT), the JFIF header without its
 *    thumbnail, an ICC profile (APP2) and Adobe's colour transform (APP14), up to EOI;
 *  - WebP: a RIFF container whose declared size fits in the file, holding a chain of chunks that
 *    fit in it, the first a lossy (`VP8 `: key frame, start code), lossless (`VP8L`: signature,
 *    version 0) or extended (`VP8X`: canvas, and a bitstream of its size) one. Stored: the
 *    bitstream, and for an extended file VP8X (its flags cut to ICC profile and alpha), ICCP and
 *    ALPH, in a RIFF of their size. Refused: the animation flag, ANIM or ANMF.
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

/** An image judged acceptable: what it is, and the bytes to store (without metadata and trailing bytes). */
export interface JudgedImage extends ImageInfo {
  bytes: Buffer;
}

/** What a reader found: the image, and the parts of the file that are stored, in their order. */
interface ImageParts extends ImageInfo {
  parts: Uint8Array[];
}

/** Why a file is not an acceptable image (the message goes into `errors.image`). */
export class ImageRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageRejected';
  }
}

const corrupt = (type: ImageType, what: string) => new ImageRejected(`The file is not a valid ${IMAGE_TYPES[type].label} image (${what}).`);
const animated = () => new ImageRejected('The image is animated; a picture must be a single frame.');

const startsWith = (b: Uint8Array, at: number, ascii: string) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1', at, at + ascii.length) === ascii;
/** The four characters of a chunk type at `at` (read per chunk: a file may hold 250,000 of them). */
const fourCC = (b: Uint8Array, at: number) => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);
const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at]! << 24) >>> 0) + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!);
const u32le = (b: Uint8Array, at: number) => ((b[at + 3]! << 24) >>> 0) + ((b[at + 2]! << 16) | (b[at + 1]! << 8) | b[at]!);

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Allowed bit depths per PNG colour type. */
const PNG_DEPTHS: Readonly<Record<number, readonly number[]>> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
/**
 * The PNG chunks that are stored: the critical ones, transparency (tRNS) and colour (gAMA, cHRM,
 * sRGB, iCCP, sBIT, pHYs). Every other ancillary chunk — text (tEXt, zTXt, iTXt), eXIf, tIME,
 * bKGD, private ones — is dropped.
 */
const PNG_KEPT = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS', 'gAMA', 'cHRM', 'sRGB', 'iCCP', 'sBIT', 'pHYs']);
/** A chunk type whose first letter is upper case is critical: a decoder that does not know it cannot draw the image. */
const isCritical = (type: string) => type.charCodeAt(0) < 0x61;

/** The PNG chunk at `at`, checked: it fits in the file, its type is four letters, its CRC matches, IEND is empty. */
function pngChunk(b: Uint8Array, at: number): { type: string; end: number } {
  // Called per chunk, of which a file may have 170,000: no closure here.
  if (at + 12 > b.length) throw corrupt('png', 'truncated');
  const length = u32be(b, at);
  if (length > 0x7fffffff || at + 12 + length > b.length) throw corrupt('png', 'truncated');
  const type = fourCC(b, at + 4);
  if (!/^[A-Za-z]{4}$/.test(type) || (type === 'IEND' && length !== 0)) throw corrupt('png', 'corrupt chunk');
  if (crc32(b.subarray(at + 4, at + 8 + length)) !== u32be(b, at + 8 + length)) throw corrupt('png', 'chunk checksum mismatch');
  return { type, end: at + 12 + length };
}

function readPng(b: Uint8Array): ImageParts {
  const bad = (what: string) => corrupt('png', what);
  if (b.length < 8 + 25 || u32be(b, 8) !== 13 || !startsWith(b, 12, 'IHDR')) throw bad('no image header');
  const width = u32be(b, 16);
  const height = u32be(b, 20);
  const [depth, colour, compression, filter, interlace] = [b[24]!, b[25]!, b[26]!, b[27]!, b[28]!];
  if (!PNG_DEPTHS[colour]?.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1) throw bad('invalid image header');
  if (crc32(b.subarray(12, 29)) !== u32be(b, 29)) throw bad('image header checksum mismatch');
  const parts = [b.subarray(0, 33)]; // the signature and IHDR
  let data = false;
  for (let at = 33; ; ) {
    const { type, end } = pngChunk(b, at);
    if (type === 'acTL') throw animated();
    if (type === 'IHDR') throw bad('second image header');
    if (isCritical(type) && !PNG_KEPT.has(type)) throw bad('unknown critical chunk');
    if (PNG_KEPT.has(type)) parts.push(b.subarray(at, end));
    if (type === 'IDAT') data = true;
    if (type === 'IEND') break; // whatever follows it is not stored
    at = end;
  }
  if (!data) throw bad('no image data');
  return { type: 'png', width, height, parts };
}

/** SOF0–SOF15 but DHT (C4), JPG (C8) and DAC (CC): the frame headers that carry the size. */
const isFrameHeader = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
/**
 * The JPEG segments that are stored besides the frame headers: the tables (DQT, DHT, DAC), DRI,
 * the scans (SOS), DNL, and the hierarchical mode's DHP and EXP. APPn, COM and any other
 * segment are dropped, but for the three APP segments of jpegApp.
 */
const JPEG_KEPT = new Set([0xdb, 0xc4, 0xcc, 0xdd, 0xda, 0xdc, 0xde, 0xdf]);

/**
 * What is stored of the APP segment at `at` (its length field `length`): an ICC profile (APP2
 * `ICC_PROFILE`) and Adobe's colour transform (APP14 `Adobe`) as sent, the JFIF header (APP0
 * `JFIF`) without the thumbnail it may carry; null for any other (EXIF and XMP in APP1, MPF,
 * JFXX thumbnails, Photoshop's APP13, …).
 */
function jpegApp(b: Uint8Array, at: number, length: number): Uint8Array | null {
  const marker = b[at + 1]!;
  const id = (ascii: string) => length - 2 >= ascii.length && startsWith(b, at + 4, ascii);
  if ((marker === 0xe2 && id('ICC_PROFILE\0')) || (marker === 0xee && id('Adobe'))) return b.subarray(at, at + 2 + length);
  if (marker !== 0xe0 || !id('JFIF\0') || length < 16) return null;
  // `JFIF\0`, version, density unit, X and Y density (12 bytes), then a thumbnail of 0×0.
  const header = new Uint8Array(18);
  header.set([0xff, 0xe0, 0, 16]);
  header.set(b.subarray(at + 4, at + 16), 4);
  return header;
}

/**
 * Where the entropy-coded data of a scan starting at `at` ends: at its first marker, a 0xFF that
 * is not stuffed (0xFF00), a restart marker (RST0–RST7) or a fill byte before a marker.
 */
function scanEnd(b: Uint8Array, at: number): number {
  for (let i = at; i + 1 < b.length; i++) {
    if (b[i] !== 0xff) continue;
    const next = b[i + 1]!;
    if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) i++;
    else if (next !== 0xff) return i;
  }
  throw corrupt('jpeg', 'truncated');
}

function readJpeg(b: Uint8Array): ImageParts {
  const bad = (what: string) => corrupt('jpeg', what);
  const parts = [b.subarray(0, 2)]; // SOI
  let at = 2;
  let size: { width: number; height: number } | undefined;
  let scanned = false;
  for (;;) {
    if (at + 2 > b.length || b[at] !== 0xff) throw bad(at + 2 > b.length ? 'truncated' : 'corrupt marker');
    while (b[at + 1] === 0xff && at + 2 < b.length) at++; // fill bytes
    const marker = b[at + 1]!;
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2; // standalone markers: nothing to store outside a scan
      continue;
    }
    if (marker === 0xd9 && size && scanned) {
      parts.push(b.subarray(at, at + 2)); // EOI: what follows (a motion photo's video, MPF's other images) is not stored
      return { type: 'jpeg', ...size, parts };
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
    const kept = isFrameHeader(marker) || JPEG_KEPT.has(marker) ? b.subarray(at, at + 2 + length) : marker >= 0xe0 && marker <= 0xef ? jpegApp(b, at, length) : null;
    if (kept) parts.push(kept);
    at += 2 + length;
    if (marker === 0xda) {
      if (!size) throw bad('no frame header');
      const end = scanEnd(b, at);
      parts.push(b.subarray(at, end));
      at = end;
      scanned = true;
    }
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

/** A chunk of a WebP file: fourCC, where it starts, its payload's offset and length, where the next starts (padded to even). */
interface RiffChunk {
  type: string;
  at: number;
  data: number;
  length: number;
  next: number;
}

/** The chunks of the RIFF container, which ends at `riffEnd`: each must fit in it. */
function riffChunks(b: Uint8Array, riffEnd: number): RiffChunk[] {
  const chunks: RiffChunk[] = [];
  for (let at = 12; at < riffEnd; ) {
    if (at + 8 > riffEnd) throw corrupt('webp', 'truncated');
    const length = u32le(b, at + 4);
    if (at + 8 + length > riffEnd) throw corrupt('webp', 'truncated');
    chunks.push({ type: fourCC(b, at), at, data: at + 8, length, next: at + 8 + length + (length & 1) });
    at = chunks.at(-1)!.next;
  }
  return chunks;
}

const isBitstream = (c: RiffChunk) => c.type === 'VP8 ' || c.type === 'VP8L';
const bitstreamSize = (b: Uint8Array, c: RiffChunk) => (c.type === 'VP8 ' ? vp8Size : vp8lSize)(b, c.data, c.length);

/** VP8X flags: ICC profile, alpha, EXIF, XMP, animation. Only the first two can describe what is stored. */
const VP8X_ICC = 0x20;
const VP8X_ALPHA = 0x10;
const VP8X_ANIMATION = 0x02;

/** The parts of a WebP file of `chunks` (VP8X's replaced by `vp8x`): a RIFF header of their size, then each, padded to even. */
function webpParts(b: Uint8Array, chunks: RiffChunk[], vp8x?: Uint8Array): Uint8Array[] {
  const parts = chunks.flatMap((c) => {
    const whole = c.type === 'VP8X' && vp8x ? vp8x : b.subarray(c.at, c.data + c.length);
    return whole.length & 1 ? [whole, new Uint8Array(1)] : [whole];
  });
  const header = new Uint8Array(12);
  header.set(b.subarray(0, 12));
  const size = 4 + parts.reduce((n, p) => n + p.length, 0);
  header.set([size & 0xff, (size >>> 8) & 0xff, (size >>> 16) & 0xff, size >>> 24], 4);
  return [header, ...parts];
}

/**
 * An extended WebP: VP8X (canvas, flags) and its image, a VP8/VP8L bitstream of the canvas's
 * size with the ICCP and ALPH chunks before it. Stored: those, VP8X's flags cut to ICC profile
 * and alpha (its EXIF and XMP flags name chunks that are dropped); whatever follows the
 * bitstream (EXIF, XMP, unknown chunks) is not stored.
 */
function readExtendedWebp(b: Uint8Array, [vp8x, ...rest]: RiffChunk[]): ImageParts {
  const bad = (what: string) => corrupt('webp', what);
  if (vp8x!.length < 10) throw bad('truncated');
  const flags = b[vp8x!.data]!; // its reserved bits are ignored, as the format requires of readers
  if (flags & VP8X_ANIMATION) throw animated();
  const canvas = { width: u24le(b, vp8x!.data + 4) + 1, height: u24le(b, vp8x!.data + 7) + 1 };
  const image = rest.findIndex(isBitstream);
  if (image < 0) throw bad('no image data');
  const size = bitstreamSize(b, rest[image]!);
  if (size.width !== canvas.width || size.height !== canvas.height) throw bad('bitstream and canvas sizes differ');
  const header = new Uint8Array(18);
  header.set(b.subarray(vp8x!.at, vp8x!.at + 4)); // VP8X
  header.set([10, 0, 0, 0, flags & (VP8X_ICC | VP8X_ALPHA), 0, 0, 0], 4);
  header.set(b.subarray(vp8x!.data + 4, vp8x!.data + 10), 12); // the canvas
  const kept = [vp8x!, ...rest.slice(0, image).filter((c) => c.type === 'ICCP' || c.type === 'ALPH'), rest[image]!];
  return { type: 'webp', ...canvas, parts: webpParts(b, kept, header) };
}

function readWebp(b: Uint8Array): ImageParts {
  const bad = (what: string) => corrupt('webp', what);
  const riffEnd = 8 + u32le(b, 4);
  if (riffEnd > b.length) throw bad('truncated');
  if (riffEnd < 12 + 8) throw bad('no image data');
  const chunks = riffChunks(b, riffEnd);
  if (chunks.some((c) => c.type === 'ANIM' || c.type === 'ANMF')) throw animated();
  const first = chunks[0]!;
  if (first.type === 'VP8X') return readExtendedWebp(b, chunks);
  if (!isBitstream(first)) throw bad('unknown bitstream');
  // A simple file: the bitstream is the image; any chunk after it is not stored.
  return { type: 'webp', ...bitstreamSize(b, first), parts: webpParts(b, [first]) };
}

/** The image in the bytes and the parts of them to store; ImageRejected when they are no acceptable JPEG, PNG or WebP image. */
function readParts(bytes: Uint8Array): ImageParts {
  if (PNG_SIGNATURE.every((v, i) => bytes[i] === v)) return readPng(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return readJpeg(bytes);
  if (bytes.length >= 16 && startsWith(bytes, 0, 'RIFF') && startsWith(bytes, 8, 'WEBP')) return readWebp(bytes);
  throw new ImageRejected('The file is not a JPEG, PNG or WebP image.');
}

/** What the bytes are (type, width, height); ImageRejected when they are no acceptable JPEG, PNG or WebP image. */
export function readImage(bytes: Uint8Array): ImageInfo {
  const { type, width, height } = readParts(bytes);
  return { type, width, height };
}

/**
 * The rules of §4.9 and §7.1: size (of the file as sent), type by content, dimensions, a single
 * frame; ImageRejected with the reason otherwise. The bytes to store are the image's parts.
 */
export function judgeImage(bytes: Buffer): JudgedImage {
  if (bytes.length > MAX_IMAGE_BYTES) throw new ImageRejected('The image is larger than 2 MiB (2,097,152 bytes).');
  if (bytes.length === 0) throw new ImageRejected('The file is empty.');
  const { parts, ...info } = readParts(bytes);
  const inRange = (n: number) => n >= 1 && n <= MAX_IMAGE_SIDE;
  if (!inRange(info.width) || !inRange(info.height)) {
    throw new ImageRejected(`The image must be 1–3,000 pixels wide and high; it is ${info.width}×${info.height}.`);
  }
  return { ...info, bytes: Buffer.concat(parts) };
}
