/**
 * Judging uploaded images by their content (shared/domain/images.ts, API.md §4.9, §7.1) with
 * real files: JPEG (baseline, progressive, greyscale), PNG (RGBA, palette, interlaced) and WebP
 * (lossy, lossless, extended with alpha, animated) made by ImageMagick and libwebp; PNGs encoded
 * by the test support for the sizes that matter (3001×1, over 2 MiB); and what must be refused:
 * a text file named .png, other formats, animations, files cut short, corrupt headers and chunk
 * structures, sizes out of range.
 *
 * What is stored (§7.1): the image without its metadata (EXIF with GPS, XMP, PNG text chunks,
 * JPEG comments, thumbnails; a colour profile stays) and without bytes after its end, added to
 * the fixtures byte by byte by the test support; each stored file is read back by the test
 * support's own readers of the three containers (every PNG CRC checked) and by the project's
 * reader (same type and size), and judging it again changes nothing.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ImageRejected, judgeImage, MAX_IMAGE_BYTES, readImage, type JudgedImage } from '../../shared/domain/images.js';
import {
  adobeSegment, commentSegment, encodeApng, encodePng, exifSegment, exifTiff, expectStoredImage, extendWebp, fixture, iccProfile, iccSegment, insertJpegSegments,
  insertJpegSegmentsBefore, insertPngChunks, jfifWithThumbnail, jpegSegment, jpegSegments, keepPngChunks, metadataLeft, pngChunk, pngChunks, pngItxt, pngText, pngTime,
  pngZtxt, STORED_PNG_CHUNKS, webpChunk, webpChunks, webpFile, XMP_PACKET, xmpSegment,
} from '../support/images.js';
import { rng } from '../support/rng.js';

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
  ])('%s: %s, %i×%i', (name, type, width, height) => {
    expect(judgeImage(fixture(name))).toMatchObject({ type, width, height });
  });

  it('whatever the name or declared type: only the bytes are read', () => {
    expect(readImage(fixture('lossy.webp')).type).toBe('webp');
    expect(readImage(encodePng(3000, 1))).toEqual({ type: 'png', width: 3000, height: 1 });
  });

  it('a JPEG with data after its end (e.g. a motion photo) is still a JPEG; the data is not kept', () => {
    const bytes = Buffer.concat([fixture('baseline.jpg'), Buffer.from('trailing video data')]);
    expect(judgeImage(bytes)).toEqual({ type: 'jpeg', width: 6, height: 4, bytes: fixture('baseline.jpg') });
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

/**
 * What judging `bytes` stores, checked (expectStoredImage: only what may stay, nothing after the
 * end, every PNG CRC right, read back as the same type and size), and judged again unchanged.
 */
function stored(bytes: Buffer): Buffer {
  const { bytes: out, ...info } = judgeImage(bytes);
  expectStoredImage(out, info);
  expect(judgeImage(out).bytes.equals(out)).toBe(true);
  return out;
}

const expectNoSecrets = (out: Buffer) => expect(metadataLeft(out)).toEqual([]);
const typesOf = (png: Buffer) => pngChunks(png).chunks.map((c) => c.type);

describe('what is stored: the image, without metadata or bytes after its end (§7.1)', () => {
  it.each(['baseline.jpg', 'progressive.jpg', 'gray.jpg', 'lossy.webp', 'lossless.webp', 'extended.webp'])('%s, which holds no metadata, is stored byte for byte', (name) => {
    expect(stored(fixture(name)).equals(fixture(name))).toBe(true);
  });

  it.each([
    ['rgba.png', ['IHDR', 'gAMA', 'cHRM', 'IDAT', 'IEND']],
    ['palette.png', ['IHDR', 'gAMA', 'cHRM', 'PLTE', 'IDAT', 'IEND']],
    ['interlaced.png', ['IHDR', 'gAMA', 'cHRM', 'IDAT', 'IEND']],
  ])('%s keeps the chunks that draw it, each as sent; the tIME, bKGD and date tEXt chunks ImageMagick wrote go', (name, types) => {
    const before = pngChunks(fixture(name)).chunks;
    expect(before.map((c) => c.type)).toEqual(expect.arrayContaining(['tIME', 'bKGD', 'tEXt']));
    const after = pngChunks(stored(fixture(name))).chunks;
    expect(after.map((c) => c.type)).toEqual(types);
    expect(after).toEqual(before.filter((c) => types.includes(c.type)));
  });

  it('a PNG with an HTML page appended after IEND is stored up to IEND', () => {
    const html = Buffer.from('<html><body><script>fetch("/api/users/me/")</script></body></html>\n');
    const out = stored(Buffer.concat([fixture('rgba.png'), html]));
    expect(out.subarray(-12).equals(pngChunk('IEND', Buffer.alloc(0)))).toBe(true);
    expect(out.equals(keepPngChunks(fixture('rgba.png'), STORED_PNG_CHUNKS))).toBe(true);
    expectNoSecrets(out);
  });

  it('text chunks holding a script (tEXt, zTXt, iTXt), eXIf with GPS, tIME and private chunks go, before and after the image data', () => {
    const png = insertPngChunks(
      insertPngChunks(encodePng(4, 3), 'IDAT', pngText('Comment', '<script>alert(document.cookie)</script>'), pngZtxt('Description', '<svg onload=alert(1)>'), pngChunk('eXIf', exifTiff()), pngTime()),
      'IEND',
      pngItxt('Author', '<html>Ünïcode</html>'),
      pngChunk('prVt', Buffer.from('GPS 48.8582 N')),
    );
    expect(typesOf(png)).toEqual(['IHDR', 'tEXt', 'zTXt', 'eXIf', 'tIME', 'IDAT', 'iTXt', 'prVt', 'IEND']);
    const out = stored(png);
    expect(out.equals(encodePng(4, 3))).toBe(true);
    expectNoSecrets(out);
  });

  it('the colour chunks (gAMA, cHRM, sRGB, iCCP, sBIT, pHYs) and tRNS stay, as sent and in their order; bKGD goes', () => {
    const colour = [
      pngChunk('iCCP', Buffer.concat([Buffer.from('Display\0\0', 'latin1'), deflateSync(iccProfile())])),
      pngChunk('sBIT', Buffer.from([8, 8, 8])),
      pngChunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f])),
      pngChunk('cHRM', Buffer.alloc(32, 1)),
      pngChunk('sRGB', Buffer.from([0])),
      pngChunk('pHYs', Buffer.from([0, 0, 0x0b, 0x13, 0, 0, 0x0b, 0x13, 1])),
      pngChunk('tRNS', Buffer.from([0, 0x80, 0, 0x80, 0, 0x80])),
    ];
    const out = stored(insertPngChunks(encodePng(4, 3), 'IDAT', ...colour, pngChunk('bKGD', Buffer.from([0, 0, 0, 0, 0, 0]))));
    expect(out.equals(insertPngChunks(encodePng(4, 3), 'IDAT', ...colour))).toBe(true);
  });

  it('a JPEG with EXIF (with a GPS IFD), XMP and a comment with GPS text is stored as the JPEG without them', () => {
    const jpeg = insertJpegSegments(fixture('baseline.jpg'), exifSegment(), xmpSegment(), commentSegment('GPS 48.858222 N, 2.294500 E'));
    expect(jpegSegments(jpeg).segments.map((s) => s.marker.toString(16)).slice(0, 5)).toEqual(['d8', 'e0', 'e1', 'e1', 'fe']);
    const out = stored(jpeg);
    expect(out.equals(fixture('baseline.jpg'))).toBe(true);
    expectNoSecrets(out);
  });

  it('a progressive JPEG with XMP, and a comment and an APP segment between its scans: every scan stays, the rest goes', () => {
    const jpeg = insertJpegSegmentsBefore(insertJpegSegments(fixture('progressive.jpg'), xmpSegment()), 0xda, 1, commentSegment('<script>between scans</script>'), jpegSegment(0xe5, Buffer.from(XMP_PACKET)));
    expect(jpegSegments(jpeg).segments.filter((s) => s.marker === 0xda).length).toBeGreaterThan(1);
    const out = stored(jpeg);
    expect(out.equals(fixture('progressive.jpg'))).toBe(true);
    expectNoSecrets(out);
  });

  it('a colour profile (APP2 ICC_PROFILE) and APP14 Adobe stay; MPF, Photoshop IRB, JFXX and a JFIF thumbnail go; images after EOI go', () => {
    const base = fixture('baseline.jpg');
    const rest = base.subarray(4 + base.readUInt16BE(4)); // after SOI and APP0
    const mpf = jpegSegment(0xe2, Buffer.concat([Buffer.from('MPF\0', 'latin1'), Buffer.from('II*\0\x08\0\0\0', 'latin1')]));
    const photoshop = jpegSegment(0xed, Buffer.from('Photoshop 3.0\x008BIM\x04\x04\0\0\0\0\0\x0cGPS 48.8582 N', 'latin1'));
    const jfxx = jpegSegment(0xe0, Buffer.concat([Buffer.from('JFXX\0\x10', 'latin1'), fixture('gray.jpg')]));
    const sent = Buffer.concat([base.subarray(0, 2), jfifWithThumbnail(), jfxx, iccSegment(), mpf, photoshop, adobeSegment(), rest, fixture('gray.jpg')]);
    const out = stored(sent);
    expect(out.equals(Buffer.concat([base.subarray(0, 2), base.subarray(2, 4 + base.readUInt16BE(4)), iccSegment(), adobeSegment(), rest]))).toBe(true);
    expectNoSecrets(out);
  });

  it('a WebP with EXIF (with GPS) and XMP chunks: stored without them and their VP8X flags, with its ICC profile, the RIFF size fixed', () => {
    const icc = webpChunk('ICCP', iccProfile());
    const webp = extendWebp(fixture('extended.webp'), { flags: 0x20 | 0x08 | 0x04, first: [icc], last: [webpChunk('EXIF', exifTiff()), webpChunk('XMP ', Buffer.from(XMP_PACKET))] });
    const out = stored(webp);
    expect(out.equals(extendWebp(fixture('extended.webp'), { flags: 0x20, first: [icc] }))).toBe(true);
    expect(webpChunks(out).chunks[0]!.data[0]).toBe(0x30); // ICC and alpha
    expectNoSecrets(out);
  });

  it('a WebP: unknown chunks, a second bitstream and bytes after the RIFF go; so do chunks after a simple file’s bitstream', () => {
    const extended = extendWebp(fixture('extended.webp'), { last: [webpChunk('ZZZZ', Buffer.from('<script>x</script>')), webpChunk('VP8L', webpChunks(fixture('lossless.webp')).chunks[0]!.data)] });
    expect(stored(Buffer.concat([extended, Buffer.from('<html>')])).equals(fixture('extended.webp'))).toBe(true);
    const [vp8] = webpChunks(fixture('lossy.webp')).chunks;
    const simple = webpFile(webpChunk(vp8!.type, vp8!.data), webpChunk('EXIF', exifTiff()));
    expect(stored(Buffer.concat([simple, Buffer.from('trailing')])).equals(fixture('lossy.webp'))).toBe(true);
    // A last chunk of odd length without its pad byte gets it; a VP8X longer than its 10 bytes is cut to them.
    const lossless = fixture('lossless.webp');
    const unpadded = Buffer.from(lossless.subarray(0, -1));
    unpadded.writeUInt32LE(lossless.readUInt32LE(4) - 1, 4);
    expect(stored(unpadded).equals(lossless)).toBe(true);
    const [vp8x, ...rest] = webpChunks(fixture('extended.webp')).chunks;
    const long = webpFile(webpChunk('VP8X', Buffer.concat([vp8x!.data, Buffer.from('<b>')])), ...rest.map((c) => webpChunk(c.type, c.data)));
    expect(stored(long).equals(fixture('extended.webp'))).toBe(true);
  });

  it('animations are refused: an APNG (acTL), and a WebP with the animation flag, ANIM or ANMF', () => {
    expect(rejection(encodeApng(3, 2))).toMatch(/animated/);
    expect(rejection(insertPngChunks(encodePng(3, 2), 'IEND', pngChunk('acTL', Buffer.from([0, 0, 0, 1, 0, 0, 0, 0]))))).toMatch(/animated/);
    expect(rejection(fixture('animated.webp'))).toMatch(/animated/);
    const anim = webpChunk('ANIM', Buffer.from([255, 255, 255, 255, 0, 0]));
    expect(rejection(extendWebp(fixture('extended.webp'), { first: [anim] }))).toMatch(/animated/);
    expect(rejection(extendWebp(fixture('extended.webp'), { flags: 0x02 }))).toMatch(/animated/);
    const frame = webpChunks(fixture('animated.webp')).chunks.find((c) => c.type === 'ANMF')!;
    expect(rejection(extendWebp(fixture('extended.webp'), { last: [webpChunk('ANMF', frame.data)] }))).toMatch(/animated/);
  });

  it('malformed chunk structures are refused, wherever the chunk: CRCs, lengths, unknown critical chunks, a second header, IEND with data', () => {
    const png = insertPngChunks(encodePng(4, 3), 'IDAT', pngText('Comment', 'hello'));
    const at = png.indexOf('tEXt') - 4;
    const badCrc = Buffer.from(png);
    badCrc[at + 8 + 5] = 0x21; // the text changes, its CRC does not
    expect(rejection(badCrc)).toMatch(/not a valid PNG image \(chunk checksum mismatch\)/);
    const badData = Buffer.from(encodePng(4, 3));
    const pixels = badData.indexOf('IDAT') + 6;
    badData[pixels] = badData[pixels]! ^ 0x01; // a bit of the compressed pixels
    expect(rejection(badData)).toMatch(/checksum mismatch/);
    const long = Buffer.from(png);
    long.writeUInt32BE(png.length, at); // runs past the end of the file
    expect(rejection(long)).toMatch(/truncated/);
    expect(rejection(insertPngChunks(encodePng(4, 3), 'IDAT', pngChunk('CgBI', Buffer.from([0x50, 0, 0x20, 2]))))).toMatch(/unknown critical chunk/);
    expect(rejection(insertPngChunks(encodePng(4, 3), 'IDAT', encodePng(5, 5).subarray(8, 33)))).toMatch(/second image header/);
    const iend = encodePng(4, 3);
    expect(rejection(Buffer.concat([iend.subarray(0, -12), pngChunk('IEND', Buffer.from('<html>'))]))).toMatch(/corrupt chunk/);

    const [vp8] = webpChunks(fixture('lossy.webp')).chunks;
    const runaway = webpFile(webpChunk(vp8!.type, vp8!.data), webpChunk('EXIF', exifTiff()));
    runaway.writeUInt32LE(5000, runaway.length - exifTiff().length - 4); // the EXIF chunk runs past the RIFF's end
    expect(rejection(runaway)).toMatch(/not a valid WebP image \(truncated\)/);
  });

  it('mutated files (bytes changed, cut, inserted, repeated) are refused with ImageRejected or stored clean — never another error', () => {
    const sources = [
      ...['baseline.jpg', 'progressive.jpg', 'gray.jpg', 'rgba.png', 'palette.png', 'interlaced.png', 'lossy.webp', 'lossless.webp', 'extended.webp', 'animated.webp'].map(fixture),
      insertJpegSegments(fixture('baseline.jpg'), exifSegment(), xmpSegment(), commentSegment('GPS'), iccSegment()),
      insertPngChunks(fixture('rgba.png'), 'IDAT', pngText('Comment', '<script>'), pngChunk('eXIf', exifTiff())),
      extendWebp(fixture('extended.webp'), { flags: 0x0c, last: [webpChunk('EXIF', exifTiff()), webpChunk('XMP ', Buffer.from(XMP_PACKET))] }),
      encodeApng(3, 2),
    ];
    const random = rng(18);
    const int = (n: number) => Math.floor(random() * n);
    const mutate = (b: Buffer): Buffer => {
      const at = int(b.length);
      switch (int(4)) {
        case 0: return Buffer.from(b).fill(int(256), at, Math.min(b.length, at + 1 + int(4)));
        case 1: return b.subarray(0, at);
        case 2: return Buffer.concat([b.subarray(0, at), Buffer.from(Array.from({ length: 1 + int(8) }, () => [0xff, 0x00, 0xd9, int(256)][int(4)]!)), b.subarray(at)]);
        default: return Buffer.concat([b.subarray(0, at), b.subarray(int(b.length)), b.subarray(at)]);
      }
    };
    let accepted = 0;
    for (const source of sources) {
      for (let i = 0; i < 300; i++) {
        const bytes = mutate(source);
        let image: JudgedImage;
        try {
          image = judgeImage(bytes);
        } catch (err) {
          expect(err, `mutation ${i} of a ${source.length}-byte file`).toBeInstanceOf(ImageRejected);
          continue;
        }
        accepted++;
        const { bytes: out, ...info } = image;
        expectStoredImage(out, info);
        expect(judgeImage(out).bytes.equals(out)).toBe(true);
      }
    }
    expect(accepted).toBeGreaterThan(100); // the mutations also reach the stripping, not only the refusals
  });
});
