/**
 * Image bytes for the tests of uploads: the checked-in fixtures (test/fixtures/images, made by
 * ImageMagick and libwebp, see make.sh there), and real PNG files encoded here (chunks with
 * their CRCs, zlib-compressed scanlines) where a fixture would be too large to check in (a
 * file over 2 MiB) or its size is the point (e.g. 3001×1).
 */
import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';

export const fixture = (name: string): Buffer => readFileSync(new URL(`../fixtures/images/${name}`, import.meta.url));

function chunk(type: string, data: Buffer): Buffer {
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
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: opts.noise ? 0 : 6 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
