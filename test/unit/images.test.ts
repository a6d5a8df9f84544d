/**
 * Judging uploaded images by their content (shared/domain/images.ts, API.md §4.9, §7.1) with
 * real files: JPEG (baseline, progressive, greyscale), PNG (RGBA, palette, interlaced) and WebP
 * (lossy, lossless, extended with alpha, animated) made by ImageMagick and libwebp; PNGs encoded
 * by the test support for the sizes that matter (3001×1, over 2 MiB); and what must be refused:
 * a text file named .png, other formats, files cut short, corrupt headers, sizes out of range.
 */
import { describe, expect, it } from 'vitest';
import { ImageRejected, judgeImage, MAX_IMAGE_BYTES, readImage } from '../../shared/domain/images.js';
import { encodePng, fixture } from '../support/images.js';

const rejection = (bytes: Buffer): string => {
  try {
    judgeImage(bytes);
  } catch (err) {
    expect(err).toBeInstanceOf(ImageRejected);
    return (err as Error).message;
  }
  throw new Error('the image was accepted');
};

describe('real images are read by their content', () => {
  it.each([
    ['baseline.jpg', 'jpeg', 6, 4],
    ['progressive.jpg', 'jpeg', 6, 4],
    ['gray.jpg', 'jpeg', 6, 4],
    ['rgba.png', 'png', 5, 3],
    ['palette.png', 'png', 4, 4],
    ['interlaced.png', 'png', 7, 5],
    ['lossy.webp', 'webp', 5, 3],
    ['lossless.webp', 'webp', 5, 3],
    ['extended.webp', 'webp', 5, 3],
    ['animated.webp', 'webp', 4, 4],
  ])('%s: %s, %i×%i', (name, type, width, height) => {
    const bytes = fixture(name);
    expect(judgeImage(bytes)).toEqual({ type, width, height, bytes });
  });

  it('whatever the name or declared type: only the bytes are read', () => {
    expect(readImage(fixture('lossy.webp')).type).toBe('webp');
    expect(readImage(encodePng(3000, 1))).toEqual({ type: 'png', width: 3000, height: 1 });
  });

  it('a JPEG with data after its end (e.g. a motion photo) is still a JPEG', () => {
    const bytes = Buffer.concat([fixture('baseline.jpg'), Buffer.from('trailing video data')]);
    expect(judgeImage(bytes)).toMatchObject({ type: 'jpeg', width: 6, height: 4 });
  });
});

describe('what is refused, with errors.image', () => {
  it('a text file named .png, and other formats', () => {
    expect(rejection(Buffer.from('just some text, saved as picture.png\n'))).toMatch(/not a JPEG, PNG or WebP/);
    const gif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
    expect(rejection(gif)).toMatch(/not a JPEG, PNG or WebP/);
    expect(rejection(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toMatch(/not a JPEG, PNG or WebP/);
    expect(rejection(Buffer.alloc(0))).toMatch(/empty/);
  });

  it('over 2 MiB (a real PNG of 2.1 MB), whatever its dimensions', () => {
    const big = encodePng(900, 800, { noise: true });
    expect(big.length).toBeGreaterThan(MAX_IMAGE_BYTES);
    expect(readImage(big)).toEqual({ type: 'png', width: 900, height: 800 });
    expect(rejection(big)).toMatch(/larger than 2 MiB/);
    // What the multipart parse keeps of it: one byte over the limit.
    expect(rejection(big.subarray(0, MAX_IMAGE_BYTES + 1))).toMatch(/larger than 2 MiB/);
  });

  it('dimensions outside 1–3,000 on either side', () => {
    expect(rejection(fixture('3001x1.png'))).toMatch(/1–3,000 pixels.*3001×1/);
    expect(rejection(encodePng(1, 3001))).toMatch(/1×3001/);
    expect(judgeImage(encodePng(3000, 3000)).width).toBe(3000);
    // A header that says 0 (PNG forbids it; a JPEG that defines its height later does not, but is refused).
    const zero = Buffer.from(fixture('baseline.jpg'));
    const sof = zero.indexOf(Buffer.from([0xff, 0xc0]));
    zero.writeUInt16BE(0, sof + 5);
    expect(rejection(zero)).toMatch(/6×0/);
  });

  it.each(['baseline.jpg', 'progressive.jpg', 'rgba.png', 'interlaced.png', 'lossy.webp', 'lossless.webp', 'extended.webp', 'animated.webp'])(
    '%s cut short, at any length, is refused',
    (name) => {
      const bytes = fixture(name);
      for (let n = 1; n < bytes.length; n++) {
        expect(() => judgeImage(bytes.subarray(0, n)), `${name} cut to ${n} of ${bytes.length} bytes`).toThrow(ImageRejected);
      }
    },
  );

  it('corrupt headers', () => {
    const png = Buffer.from(fixture('rgba.png'));
    png[17] = png[17]! ^ 0x01; // a width bit: the header's CRC no longer matches
    expect(rejection(png)).toMatch(/not a valid PNG image \(image header checksum mismatch\)/);
    const colour = encodePng(2, 2);
    colour[25] = 5; // no such colour type (the CRC is checked after the fields)
    expect(rejection(colour)).toMatch(/invalid image header/);

    const jpeg = Buffer.from(fixture('baseline.jpg'));
    jpeg[4 + jpeg.readUInt16BE(4)] = 0x00; // the segment after APP0 starts with no marker
    expect(rejection(jpeg)).toMatch(/not a valid JPEG image/);
    const noFrame = Buffer.from(fixture('baseline.jpg'));
    noFrame[noFrame.indexOf(Buffer.from([0xff, 0xc0])) + 1] = 0xe5; // the frame header becomes an APP5 segment
    expect(rejection(noFrame)).toMatch(/no frame header/);

    const lossy = Buffer.from(fixture('lossy.webp'));
    lossy[20 + 3] = 0x00; // the VP8 start code
    expect(rejection(lossy)).toMatch(/not a valid WebP image \(invalid lossy bitstream\)/);
    const lossless = Buffer.from(fixture('lossless.webp'));
    lossless[20] = 0x00; // the VP8L signature
    expect(rejection(lossless)).toMatch(/invalid lossless bitstream/);
    const unknown = Buffer.from(fixture('lossy.webp'));
    unknown.write('ABCD', 12, 'latin1');
    expect(rejection(unknown)).toMatch(/unknown bitstream/);
    const canvas = Buffer.from(fixture('extended.webp'));
    canvas[24] = 9; // canvas width 10: the bitstream is 5 wide
    expect(rejection(canvas)).toMatch(/sizes differ/);
  });
});
