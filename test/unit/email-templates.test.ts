/**
 * The e-mails of API.md §6 (shared/email/templates.ts): exact subjects, the required content of
 * each, links to {frontend}, uid/token lines, masked addresses, UTC times, an HTML alternative
 * with the same content and every value escaped, and never a password or a JWT.
 */
import { describe, expect, it } from 'vitest';
import { outboxPlan } from '../../shared/db/outbox.js';
import { escapeHtml, maskAddress, render, SUBJECTS, TEMPLATE_IDS, type EmailMessage } from '../../shared/email/templates.js';

const FRONTEND = 'https://app.example.org';
const UID = 'Ue7YbQk3Lm9Pz2Rt5Vw8Xa';
const TOKEN = 'AQ3v_9-kLmN0pQrStUvWxYz0123456789abcdefghijklmnopqr';
const AT = '2026-03-04T05:06:07.890Z';

const samples: Record<EmailMessage['template'], EmailMessage> = {
  E1: { template: 'E1', to: 'jane@example.org', data: { username: 'jane_doe', uid: UID, token: TOKEN } },
  E2: { template: 'E2', to: 'jane@example.org', data: {} },
  E3: { template: 'E3', to: 'jane@example.org', data: { username: 'jane_doe' } },
  E4: { template: 'E4', to: 'jane@example.org', data: { username: 'jane_doe', uid: UID, token: TOKEN } },
  E5: { template: 'E5', to: 'jane@example.org', data: { username: 'jane_doe', changed_at: AT } },
  E6: { template: 'E6', to: 'new.jane@example.net', data: { username: 'jane_doe', new_email: 'new.jane@example.net', uid: UID, token: TOKEN } },
  E7: { template: 'E7', to: 'jane@example.org', data: { username: 'jane_doe', new_email: 'new.jane@example.net' } },
  E8: { template: 'E8', to: 'jane@example.org', data: { username: 'jane_doe', new_email: 'new.jane@example.net', changed_at: AT } },
  E9: { template: 'E9', to: 'jane@example.org', data: { username: 'jane_doe', deleted_at: AT } },
  E10: { template: 'E10', to: 'jane@example.org', data: { username: 'jane_doe', provider: 'google-oauth2', linked_at: AT } },
};

/** Text as a reader of the HTML part sees it (tags dropped, entities decoded). */
const htmlText = (html: string) =>
  html
    .replace(/<title>.*?<\/title>/s, '')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

const JWT_LIKE = /[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}/;
const lines = (text: string) => text.split('\n');

describe('templates', () => {
  it('there are exactly the ten e-mails of API.md §6, with their exact subjects', () => {
    expect(TEMPLATE_IDS).toEqual(['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7', 'E8', 'E9', 'E10']);
    expect(SUBJECTS).toEqual({
      E1: 'Activate your account',
      E2: 'You already have an account',
      E3: 'Your account is active',
      E4: 'Reset your password',
      E5: 'Your password was changed',
      E6: 'Confirm your new email address',
      E7: 'Email change requested',
      E8: 'Your email address was changed',
      E9: 'Your account was deleted',
      E10: 'A sign-in method was added',
    });
    for (const id of TEMPLATE_IDS) expect(render(samples[id], FRONTEND).subject).toBe(SUBJECTS[id]);
  });

  it('E1: username, activation link, uid/token lines, valid for 24 hours', () => {
    const { text } = render(samples.E1, FRONTEND);
    expect(text).toContain('jane_doe');
    expect(text).toContain(`${FRONTEND}/activate/${UID}/${TOKEN}`);
    expect(lines(text)).toContain(`uid: ${UID}`);
    expect(lines(text)).toContain(`token: ${TOKEN}`);
    expect(text).toContain('valid for 24 hours');
  });

  it('E2: an account with this address exists; how to sign in or reset the password; no token', () => {
    const { text } = render(samples.E2, FRONTEND);
    expect(text).toMatch(/account with this address already exists/);
    expect(text).toMatch(/sign in/);
    expect(text).toMatch(/reset it/);
    expect(text).toContain(FRONTEND);
    expect(text).not.toMatch(/^(uid|token): /m);
  });

  it('E3: username', () => {
    expect(render(samples.E3, FRONTEND).text).toContain('jane_doe');
  });

  it('E4: reset link, uid/token lines, valid for 1 hour, ignore this e-mail if you did not ask for it', () => {
    const { text } = render(samples.E4, FRONTEND);
    expect(text).toContain(`${FRONTEND}/password/reset/confirm/${UID}/${TOKEN}`);
    expect(lines(text)).toContain(`uid: ${UID}`);
    expect(lines(text)).toContain(`token: ${TOKEN}`);
    expect(text).toContain('valid for 1 hour');
    expect(text).toContain('ignore this e-mail if you did not ask for it');
  });

  it('E5: time of the change in UTC; advice to reset the password', () => {
    const { text } = render(samples.E5, FRONTEND);
    expect(text).toContain('2026-03-04 05:06:07 UTC');
    expect(text).toMatch(/If this was not you, reset your password/);
  });

  it('E6: the new address, confirmation link, uid/token lines, valid for 24 hours', () => {
    const { text } = render(samples.E6, FRONTEND);
    expect(text).toContain('new.jane@example.net');
    expect(text).toContain(`${FRONTEND}/email/reset/confirm/${UID}/${TOKEN}`);
    expect(lines(text)).toContain(`uid: ${UID}`);
    expect(lines(text)).toContain(`token: ${TOKEN}`);
    expect(text).toContain('valid for 24 hours');
  });

  it('E7: masked new address (never the full one); advice to change the password', () => {
    const { text, html } = render(samples.E7, FRONTEND);
    expect(text).toContain('n***@example.net');
    expect(text + html).not.toContain('new.jane@');
    expect(text).toMatch(/change your password/);
  });

  it('E8: masked new address; time of the change in UTC', () => {
    const { text, html } = render(samples.E8, FRONTEND);
    expect(text).toContain('n***@example.net');
    expect(text + html).not.toContain('new.jane@');
    expect(text).toContain('2026-03-04 05:06:07 UTC');
  });

  it('E9: username; time of deletion in UTC', () => {
    const { text } = render(samples.E9, FRONTEND);
    expect(text).toContain('jane_doe');
    expect(text).toContain('2026-03-04 05:06:07 UTC');
  });

  it('E10: provider name; time in UTC; other sessions signed out; password sign-in needs a new password via "forgot password"; advice', () => {
    const { text } = render(samples.E10, FRONTEND);
    expect(text).toContain('jane_doe');
    expect(text).toContain('google-oauth2');
    expect(text).toContain('2026-03-04 05:06:07 UTC');
    expect(text).toMatch(/Every other session of the account was signed out/);
    expect(text).toMatch(/needs a new password/);
    expect(text).toContain('"Forgot password"');
    expect(text).toContain(FRONTEND);
    expect(text).toMatch(/If this was not you/);
    expect(text).not.toMatch(/^(uid|token): /m);
  });

  it('{frontend} defaults to FRONTEND_URL, without a trailing slash', () => {
    const before = process.env.FRONTEND_URL;
    process.env.FRONTEND_URL = 'https://front.example.com/';
    try {
      expect(render(samples.E1).text).toContain(`https://front.example.com/activate/${UID}/${TOKEN}`);
    } finally {
      process.env.FRONTEND_URL = before;
    }
  });

  it('the HTML alternative says the same as the text, and links are links', () => {
    for (const id of TEMPLATE_IDS) {
      const { text, html } = render(samples[id], FRONTEND);
      expect(html.startsWith('<!DOCTYPE html>'), id).toBe(true);
      const words = (s: string) => s.replace(/\s+/g, ' ').trim();
      expect(words(htmlText(html)), id).toBe(words(text));
    }
    expect(render(samples.E1, FRONTEND).html).toContain(`<a href="${FRONTEND}/activate/${UID}/${TOKEN}">`);
  });

  it('every interpolated value is HTML-escaped', () => {
    const nasty = `<script>alert("x")</script>&'`;
    const { html, text } = render({ template: 'E9', to: 'jane@example.org', data: { username: nasty, deleted_at: AT } }, FRONTEND);
    expect(html).not.toContain('<script>');
    expect(html).toContain(escapeHtml(nasty));
    expect(escapeHtml(nasty)).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;');
    expect(text).toContain(nasty); // the plain text is plain
    const e7 = render({ template: 'E7', to: 'jane@example.org', data: { username: 'a', new_email: '<b>x@evil.example' } }, FRONTEND).html;
    expect(e7).toContain('&lt;***@evil.example');
    const link = render(samples.E2, 'https://app.example.org/?a=1&b="2"').html;
    expect(link).toContain('href="https://app.example.org/?a=1&amp;b=&quot;2&quot;"');
  });

  it('no output ever contains a JWT-looking string, and a JWT cannot be passed as a token', () => {
    for (const id of TEMPLATE_IDS) {
      const { subject, text, html } = render(samples[id], FRONTEND);
      expect(JWT_LIKE.test(subject + text + html), id).toBe(false);
    }
    const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl';
    const grant = { nonce: 'AAAAAAAAAAAAAAAAAAAAAA', issued: 1 };
    expect(() => outboxPlan({ template: 'E1', to: 'jane@example.org', data: { username: 'jane', uid: UID, token: jwt } } as never)).toThrow();
    expect(() => outboxPlan({ template: 'E4', to: 'jane@example.org', data: { username: 'jane', uid: jwt, grant } })).toThrow();
  });

  it('data that does not fit its template is refused when queued (no password field anywhere)', () => {
    const withPassword = { template: 'E3', to: 'jane@example.org', data: { username: 'jane', password: 'hunter2hunter2' } } as unknown as EmailMessage;
    expect(() => outboxPlan(withPassword as never)).toThrow();
    expect(() => outboxPlan({ template: 'E5', to: 'jane@example.org', data: { username: 'jane', changed_at: 'yesterday' } })).toThrow();
    // Times are UTC RFC 3339 times with Z and seconds, as toISOString writes them.
    for (const at of ['2026-03-04T05:06:07Z', '2026-03-04T05:06:07.890Z', AT]) {
      expect(() => outboxPlan({ template: 'E5', to: 'jane@example.org', data: { username: 'jane', changed_at: at } }), at).not.toThrow();
    }
    for (const at of ['2026-03-04', '2026-03-04T05:06Z', '2026-03-04T05:06:07+01:00', '2026-03-04 05:06:07Z', '2026-13-04T05:06:07Z', ' 2026-03-04T05:06:07Z']) {
      expect(() => outboxPlan({ template: 'E5', to: 'jane@example.org', data: { username: 'jane', changed_at: at } }), at).toThrow();
    }
    expect(() => outboxPlan({ template: 'E10', to: 'jane@example.org', data: { username: 'jane', provider: '', linked_at: AT } })).toThrow();
    expect(() => outboxPlan({ template: 'E3', to: 'not-an-address', data: { username: 'jane' } })).toThrow();
  });
});

describe('maskAddress', () => {
  it('first character of the local part, ***@, the domain', () => {
    expect(maskAddress('jane@example.org')).toBe('j***@example.org');
    expect(maskAddress('j@example.org')).toBe('j***@example.org');
    expect(maskAddress('élodie@exemple.fr')).toBe('é***@exemple.fr');
    expect(maskAddress('😀x@example.org')).toBe('😀***@example.org');
  });
});
