/**
 * Image bytes for the tests of uploads: the checked-in fixtures (test/fixtures/images, made by
 * ImageMagick and libwebp, see make.sh there), and real PNG files encoded here (chunks with
 * their CRCs, zlib-compressed scanlines) where a fixture would be too large to check in (a
 * file over 2 MiB) or its size is the point (e.g. 3001×1).
 *
 * Also the metadata a camera or an editor writes, built byte by byte as the formats define it,
 * to add to those files: EXIF (a TIFF structure with a GPS IFD), XMP packets, PNG text chunks,
 * JPEG comments, an ICC profile's header; animated PNGs (acTL, fcTL, fdAT); and readers of the
 * three containers, written apart from shared/domain/images.ts, that list what a stored file
 * holds (chunks or segments, CRCs, bytes after the image's end), and the checks of a stored file
 * built on them (expectStoredImage, metadataLeft).
 */
import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { readImage, type ImageInfo } from '../../shared/domain/images.js';

export const fixture = (name: string): Buffer => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));

/** A PNG chunk: length, type, data and the CRC of type and data. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * An RGB PNG of `width`×`height`: grey, or random pixels (`noise`, which do not compress, so
 * the file is about 3 × width × height bytes).
 */
export function encodePng(width: number, height: number, opts: { noise?: boolean } = {}): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, adaptive filtering, no interlace
  const row = 1 + 3 * width;
  const raw = opts.noise ? randomBytes(row * height) : Buffer.alloc(row * height, 0x80);
  for (let y = 0; y < height; y++) raw[y * row] = 0; // filter type None
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw, { level: opts.noise ? 0 : 6 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PngChunk {
  type: string;
  data: Buffer;
  /** Whether the chunk's CRC matches its type and data. */
  crcOk: boolean;
}

/** The chunks of a PNG file up to IEND, each with whether its CRC matches, and how many bytes follow IEND. */
export function pngChunks(png: Buffer): { chunks: PngChunk[]; trailing: number } {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG file');
  const chunks: PngChunk[] = [];
  let at = 8;
  while (at + 12 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const crcOk = at + 12 + length <= png.length && crc32(png.subarray(at + 4, at + 8 + length)) === png.readUInt32BE(at + 8 + length);
    chunks.push({ type, data: png.subarray(at + 8, at + 8 + length), crcOk });
    at += 12 + length;
    if (type === 'IEND') break;
  }
  return { chunks, trailing: png.length - at };
}

/** `png` with `chunks` inserted before its first chunk of type `before` (text chunks go before IDAT or IEND, as editors write them). */
export function insertPngChunks(png: Buffer, before: string, ...chunks: Buffer[]): Buffer {
  let at = 8;
  while (png.toString('latin1', at + 4, at + 8) !== before) at += 12 + png.readUInt32BE(at);
  return Buffer.concat([png.subarray(0, at), ...chunks, png.subarray(at)]);
}

/** PNG text chunks: tEXt (Latin-1), zTXt (compressed Latin-1), iTXt (UTF-8, uncompressed, no language). */
export const pngText = (keyword: string, text: string): Buffer => pngChunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1'));
export const pngZtxt = (keyword: string, text: string): Buffer => pngChunk('zTXt', Buffer.concat([Buffer.from(`${keyword}\0\0`, 'latin1'), deflateSync(Buffer.from(text, 'latin1'))]));
export const pngItxt = (keyword: string, text: string): Buffer => pngChunk('iTXt', Buffer.concat([Buffer.from(`${keyword}\0\0\0\0\0`, 'latin1'), Buffer.from(text, 'utf8')]));
/** A tIME chunk (year, month, day, hour, minute, second). */
export const pngTime = (): Buffer => pngChunk('tIME', Buffer.from([0x07, 0xea, 11, 29, 9, 30, 0]));

/**
 * An animated PNG (APNG) of two `width`×`height` frames as the APNG specification lays it out:
 * acTL (2 frames, looping) before the image data, an fcTL before each frame, the first frame in
 * IDAT (also the image of decoders that ignore animation), the second in fdAT.
 */
export function encodeApng(width: number, height: number): Buffer {
  const still = encodePng(width, height);
  const idat = pngChunks(still).chunks.find((c) => c.type === 'IDAT')!.data;
  const u32 = (...values: number[]) => Buffer.concat(values.map((v) => Buffer.from([v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255])));
  // fcTL: sequence, size, offset 0,0, delay 1/10 s, dispose none, blend source.
  const fctl = (sequence: number) => Buffer.concat([u32(sequence, width, height, 0, 0), Buffer.from([0, 1, 0, 10, 0, 0])]);
  return Buffer.concat([
    still.subarray(0, 33), // signature and IHDR
    pngChunk('acTL', u32(2, 0)),
    pngChunk('fcTL', fctl(0)),
    pngChunk('IDAT', idat),
    pngChunk('fcTL', fctl(1)),
    pngChunk('fdAT', Buffer.concat([u32(2), idat])),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A JPEG marker segment: 0xFF, the marker, its length (2 + the payload's) and the payload. */
export function jpegSegment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(2 + payload.length, 2);
  return Buffer.concat([head, payload]);
}

/** `jpeg` with `segments` inserted after SOI and its APP0 (JFIF) segment, where cameras and editors put theirs. */
export function insertJpegSegments(jpeg: Buffer, ...segments: Buffer[]): Buffer {
  const at = jpeg[3] === 0xe0 ? 4 + jpeg.readUInt16BE(4) : 2;
  return Buffer.concat([jpeg.subarray(0, at), ...segments, jpeg.subarray(at)]);
}

/** `jpeg` with `segments` inserted before its first segment of `marker` (e.g. a comment between the scans of a progressive JPEG). */
export function insertJpegSegmentsBefore(jpeg: Buffer, marker: number, nth: number, ...segments: Buffer[]): Buffer {
  const at = jpegSegments(jpeg).segments.filter((s) => s.marker === marker)[nth]!.at;
  return Buffer.concat([jpeg.subarray(0, at), ...segments, jpeg.subarray(at)]);
}

export interface JpegSegment {
  marker: number;
  /** Where the segment's 0xFF is in the file. */
  at: number;
  payload: Buffer;
}

/**
 * The marker segments of a JPEG file from SOI to EOI (a scan's entropy-coded data, which ends at
 * the first 0xFF that is neither stuffed, 0xFF00, nor a restart marker, is counted in
 * `scanBytes`), and how many bytes follow EOI.
 */
export function jpegSegments(jpeg: Buffer): { segments: JpegSegment[]; scanBytes: number; trailing: number } {
  const segments: JpegSegment[] = [{ marker: 0xd8, at: 0, payload: Buffer.alloc(0) }];
  let at = 2;
  let scanBytes = 0;
  for (;;) {
    if (jpeg[at] !== 0xff) throw new Error(`no marker at ${at}`);
    const marker = jpeg[at + 1]!;
    if (marker === 0xd9) {
      segments.push({ marker, at, payload: Buffer.alloc(0) });
      return { segments, scanBytes, trailing: jpeg.length - at - 2 };
    }
    const length = jpeg.readUInt16BE(at + 2);
    segments.push({ marker, at, payload: jpeg.subarray(at + 4, at + 2 + length) });
    at += 2 + length;
    if (marker !== 0xda) continue;
    const start = at;
    for (;;) {
      const ff = jpeg.indexOf(0xff, at);
      if (ff < 0) throw new Error('a scan without an end');
      const next = jpeg[ff + 1]!;
      at = ff;
      if (next !== 0x00 && next !== 0xff && (next < 0xd0 || next > 0xd7)) break;
      at = ff + (next === 0xff ? 1 : 2);
    }
    scanBytes += at - start;
  }
}

/** The GPS position the EXIF below holds: 48°51′29.59″ N, 2°17′40.20″ E, each as three rationals. */
const GPS_LATITUDE = [48, 1, 51, 1, 2959, 100];
const GPS_LONGITUDE = [2, 1, 17, 1, 4020, 100];
export const EXIF_MAKE = 'Catalogue Test Camera';

/** The rationals of a GPS coordinate as the EXIF stores them (little-endian): what must not be found in a stored file. */
export const exifGpsBytes = (): Buffer[] => [GPS_LATITUDE, GPS_LONGITUDE].map((r) => Buffer.from(new Uint32Array(r).buffer));

/**
 * EXIF as a phone writes it (CIPA DC-008): a little-endian TIFF structure whose IFD0 holds Make,
 * Model and the offset of the GPS IFD (tag 0x8825), which holds GPSVersionID 2.3, the latitude
 * and longitude (3 RATIONALs each) and their references N and E. 196 bytes, offsets from the
 * TIFF header.
 */
export function exifTiff(): Buffer {
  const b = Buffer.alloc(196);
  b.write('II', 0, 'latin1');
  b.writeUInt16LE(42, 2);
  b.writeUInt32LE(8, 4); // IFD0
  const entry = (at: number, tag: number, type: number, count: number, value: number | Buffer) => {
    b.writeUInt16LE(tag, at);
    b.writeUInt16LE(type, at + 2);
    b.writeUInt32LE(count, at + 4);
    if (typeof value === 'number') b.writeUInt32LE(value, at + 8);
    else value.copy(b, at + 8);
  };
  const model = 'Pocket 1';
  b.writeUInt16LE(3, 8); // IFD0: 3 entries at 10, next IFD (none) at 46
  entry(10, 0x010f, 2, EXIF_MAKE.length + 1, 50); // Make, ASCII at 50
  entry(22, 0x0110, 2, model.length + 1, 72); // Model, ASCII at 72
  entry(34, 0x8825, 4, 1, 82); // GPS IFD pointer, LONG
  b.write(EXIF_MAKE, 50, 'latin1');
  b.write(model, 72, 'latin1');
  b.writeUInt16LE(5, 82); // GPS IFD: 5 entries at 84, next IFD (none) at 144
  entry(84, 0x0000, 1, 4, Buffer.from([2, 3, 0, 0])); // GPSVersionID, BYTE×4
  entry(96, 0x0001, 2, 2, Buffer.from('N\0', 'latin1')); // GPSLatitudeRef
  entry(108, 0x0002, 5, 3, 148); // GPSLatitude, RATIONAL×3 at 148
  entry(120, 0x0003, 2, 2, Buffer.from('E\0', 'latin1')); // GPSLongitudeRef
  entry(132, 0x0004, 5, 3, 172); // GPSLongitude, RATIONAL×3 at 172
  const [latitude, longitude] = exifGpsBytes();
  latitude!.copy(b, 148);
  longitude!.copy(b, 172);
  return b;
}

/** An EXIF APP1 segment: `Exif\0\0` and the TIFF structure. */
export const exifSegment = (): Buffer => jpegSegment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), exifTiff()]));

/** An XMP packet with a GPS position and a creator tool, as photo editors write one. */
export const XMP_PACKET =
  '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" exif:GPSLatitude="48,51.4932N" exif:GPSLongitude="2,17.67E" xmp:CreatorTool="Catalogue Test Editor"/>' +
  '</rdf:RDF></x:xmpmeta><?xpacket end="w"?>';
/** An XMP APP1 segment: the XMP namespace, NUL, the packet. */
export const xmpSegment = (): Buffer => jpegSegment(0xe1, Buffer.from(`http://ns.adobe.com/xap/1.0/\0${XMP_PACKET}`, 'utf8'));
/** A COM segment. */
export const commentSegment = (text: string): Buffer => jpegSegment(0xfe, Buffer.from(text, 'latin1'));

/**
 * The header of an ICC profile (ICC.1:2022, 128 bytes) and an empty tag table: a display RGB
 * profile by its signatures. Enough for the tests, which check that a profile is kept as sent.
 */
export function iccProfile(): Buffer {
  const b = Buffer.alloc(132);
  b.writeUInt32BE(132, 0);
  b.writeUInt32BE(0x04300000, 8); // version 4.3
  b.write('mntrRGB XYZ ', 12, 'latin1');
  b.write('acsp', 36, 'latin1');
  return b;
}
/** An APP2 ICC_PROFILE segment holding the whole profile (chunk 1 of 1). */
export const iccSegment = (): Buffer => jpegSegment(0xe2, Buffer.concat([Buffer.from('ICC_PROFILE\0', 'latin1'), Buffer.from([1, 1]), iccProfile()]));
/** An APP14 Adobe segment (version 100, no flags, transform 1: YCbCr). */
export const adobeSegment = (): Buffer => jpegSegment(0xee, Buffer.concat([Buffer.from('Adobe', 'latin1'), Buffer.from([0, 100, 0, 0, 0, 0, 1])]));
/** A JFIF 1.01 APP0 segment (no units, density 1:1) with a 2×1 RGB thumbnail (red, blue). */
export const jfifWithThumbnail = (): Buffer => jpegSegment(0xe0, Buffer.concat([Buffer.from('JFIF\0', 'latin1'), Buffer.from([1, 1, 0, 0, 1, 0, 1, 2, 1, 255, 0, 0, 0, 0, 255])]));

export interface WebpChunk {
  type: string;
  data: Buffer;
}

/** The RIFF size a WebP file declares, its chunks, and how many bytes follow the RIFF's end. */
export function webpChunks(webp: Buffer): { riffSize: number; chunks: WebpChunk[]; trailing: number } {
  if (webp.toString('latin1', 0, 4) !== 'RIFF' || webp.toString('latin1', 8, 12) !== 'WEBP') throw new Error('not a WebP file');
  const riffSize = webp.readUInt32LE(4);
  const end = Math.min(8 + riffSize, webp.length);
  const chunks: WebpChunk[] = [];
  for (let at = 12; at + 8 <= end; ) {
    const length = webp.readUInt32LE(at + 4);
    chunks.push({ type: webp.toString('latin1', at, at + 4), data: webp.subarray(at + 8, at + 8 + length) });
    at += 8 + length + (length & 1);
  }
  return { riffSize, chunks, trailing: webp.length - 8 - riffSize };
}

/** A RIFF chunk: fourCC, little-endian length, data and a pad byte when the length is odd. */
export function webpChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(type, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, Buffer.alloc(data.length & 1)]);
}

/** A WebP file of `chunks`: `RIFF`, their size + 4, `WEBP`, the chunks. */
export function webpFile(...chunks: Buffer[]): Buffer {
  const body = Buffer.concat(chunks);
  const head = Buffer.from('RIFF\0\0\0\0WEBP', 'latin1');
  head.writeUInt32LE(body.length + 4, 4);
  return Buffer.concat([head, body]);
}

/**
 * An extended WebP (one whose first chunk is VP8X) with chunks added after VP8X (`first`: e.g.
 * ICCP, ANIM) and after the image (`last`: EXIF, XMP), and `flags` set in VP8X (0x20 ICC, 0x08
 * EXIF, 0x04 XMP, 0x02 animation), as libwebp's webpmux writes them.
 */
export function extendWebp(webp: Buffer, opts: { flags?: number; first?: Buffer[]; last?: Buffer[] }): Buffer {
  const [vp8x, ...rest] = webpChunks(webp).chunks;
  if (vp8x?.type !== 'VP8X') throw new Error('not an extended WebP');
  const header = Buffer.from(vp8x.data);
  header[0] = header[0]! | (opts.flags ?? 0);
  return webpFile(webpChunk('VP8X', header), ...(opts.first ?? []), ...rest.map((c) => webpChunk(c.type, c.data)), ...(opts.last ?? []));
}

/** The chunks a stored PNG may hold (API.md §7.1): those that draw the image, and its colour. */
export const STORED_PNG_CHUNKS = ['IHDR', 'PLTE', 'tRNS', 'IDAT', 'IEND', 'gAMA', 'cHRM', 'sRGB', 'iCCP', 'sBIT', 'pHYs'];
/** The segments a stored JPEG may hold: SOI, the tables, frame headers, DRI, scans, DNL, DHP, EXP, EOI, and APP0/APP2/APP14 as checked below. */
const STORED_JPEG_MARKERS = new Set([0xd8, 0xdb, 0xc4, 0xcc, 0xdd, 0xda, 0xdc, 0xde, 0xdf, 0xd9, 0xe0, 0xe2, 0xee, 0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
/** The chunks a stored WebP may hold, and the VP8X flags it may not set (EXIF 0x08, XMP 0x04, animation 0x02). */
const STORED_WEBP_CHUNKS = ['VP8X', 'ICCP', 'ALPH', 'VP8 ', 'VP8L'];
const DROPPED_VP8X_FLAGS = 0x08 | 0x04 | 0x02;

/** `png` with only its chunks of `types`, in their order, up to IEND. */
export function keepPngChunks(png: Buffer, types: readonly string[]): Buffer {
  const kept = pngChunks(png).chunks.filter((c) => types.includes(c.type));
  return Buffer.concat([PNG_SIGNATURE, ...kept.map((c) => pngChunk(c.type, c.data))]);
}

/**
 * Checks a stored file with the readers above: it holds only what may stay (§7.1) and nothing
 * after the image's end, every PNG chunk's CRC matches, a WebP's RIFF size is its length; and
 * the project's reader reads it back as `info` (type and size).
 */
export function expectStoredImage(bytes: Buffer, info: ImageInfo): void {
  if (info.type === 'png') {
    const { chunks, trailing } = pngChunks(bytes);
    expect(trailing).toBe(0);
    expect(chunks.filter((c) => !c.crcOk).map((c) => c.type)).toEqual([]);
    expect(chunks.map((c) => c.type).filter((t) => !STORED_PNG_CHUNKS.includes(t))).toEqual([]);
    expect(chunks.at(-1)?.type).toBe('IEND');
  } else if (info.type === 'jpeg') {
    const { segments, trailing } = jpegSegments(bytes);
    expect(trailing).toBe(0);
    expect(segments.map((s) => s.marker).filter((m) => !STORED_JPEG_MARKERS.has(m)).map((m) => m.toString(16))).toEqual([]);
    for (const { marker, payload } of segments) {
      // APP0 only as a JFIF header without a thumbnail; APP2 only a colour profile; APP14 only Adobe's.
      if (marker === 0xe0) expect([payload.length, payload.toString('latin1', 0, 5), payload[12], payload[13]]).toEqual([14, 'JFIF\0', 0, 0]);
      if (marker === 0xe2) expect(payload.toString('latin1', 0, 12)).toBe('ICC_PROFILE\0');
      if (marker === 0xee) expect(payload.toString('latin1', 0, 5)).toBe('Adobe');
    }
  } else {
    const { riffSize, chunks, trailing } = webpChunks(bytes);
    expect([riffSize, trailing]).toEqual([bytes.length - 8, 0]);
    expect(chunks.map((c) => c.type).filter((t) => !STORED_WEBP_CHUNKS.includes(t))).toEqual([]);
    if (chunks[0]!.type === 'VP8X') expect(chunks[0]!.data[0]! & DROPPED_VP8X_FLAGS).toBe(0);
  }
  expect(readImage(bytes)).toEqual({ type: info.type, width: info.width, height: info.height });
}

/** What the metadata built above holds (EXIF's header, camera and GPS rationals, XMP, scripts and pages in text): none of it may be stored. */
const METADATA_MARKS: (string | Buffer)[] = ['Exif\0\0', EXIF_MAKE, 'GPS', 'xmpmeta', 'Catalogue Test Editor', '<script', '<svg', '<html', ...exifGpsBytes()];
/** The marks of that metadata found in `bytes` (none, for a stored file). */
export const metadataLeft = (bytes: Buffer): (string | Buffer)[] => METADATA_MARKS.filter((m) => bytes.includes(m));
