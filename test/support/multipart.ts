/**
 * multipart/form-data bodies for the tests of uploads, written byte by byte (RFC 7578) so a test
 * controls every header, name and byte: file parts (with a filename and a Content-Type), text
 * parts, and whatever malformation a test adds afterwards.
 */
export type Part = { name: string; value: string } | { name: string; filename: string; type?: string; data: Buffer };

export const BOUNDARY = '----catalogue-test-7MA4YWxkTrZu0gW';

export function formData(parts: readonly Part[], boundary = BOUNDARY): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if ('filename' in part) head += `; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`, 'utf8'), 'data' in part ? part.data : Buffer.from(part.value, 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
