/**
 * Request bodies in the local gateway's events (infra/local/functions.ts), as API Gateway's HTTP
 * API (payload 2.0) passes them: text types (JSON and the like, valid UTF-8) as text; any other
 * type — multipart/form-data above all — base64-encoded with `isBase64Encoded: true`, so a
 * binary file survives byte for byte, and the handler chain decodes it (request.ts bodyBytes).
 */
import { describe, expect, it } from 'vitest';
import { gatewayEvents } from '../../infra/local/functions.js';
import { bodyBytes } from '../../shared/http/request.js';
import { fixture } from '../support/images.js';
import { formData } from '../support/multipart.js';

const eventOf = (contentType: string, body: Buffer) =>
  gatewayEvents({
    method: 'POST',
    url: '/api/persons/p1/create-picture/',
    headers: { 'content-type': contentType, host: 'localhost' },
    body,
    sourceIp: '127.0.0.1',
    route: { method: 'POST', path: '/api/persons/{id}/create-picture/' },
    params: { id: 'p1' },
  }).event;

describe('bodies in the local gateway’s events', () => {
  it('multipart/form-data with a binary file: base64, and decoded to the same bytes', () => {
    const { body, contentType } = formData([{ name: 'image', filename: 'a.jpg', type: 'image/jpeg', data: fixture('baseline.jpg') }]);
    const event = eventOf(contentType, body);
    expect(event.isBase64Encoded).toBe(true);
    expect(event.body).toBe(body.toString('base64'));
    expect(bodyBytes(event.body, event.isBase64Encoded!).equals(body)).toBe(true);
  });

  it('multipart/form-data is base64 even when every byte is UTF-8 text', () => {
    const { body, contentType } = formData([{ name: 'name', value: 'only text' }]);
    const event = eventOf(contentType, body);
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body!, 'base64').equals(body)).toBe(true);
  });

  it('JSON stays text; a JSON body that is not UTF-8 is base64 (and then refused as malformed by the chain)', () => {
    const json = eventOf('application/json', Buffer.from('{"name":"Mecha"}'));
    expect([json.isBase64Encoded, json.body]).toEqual([false, '{"name":"Mecha"}']);
    const bad = eventOf('application/json', Buffer.from([0x7b, 0xff, 0x7d]));
    expect(bad.isBase64Encoded).toBe(true);
  });
});
