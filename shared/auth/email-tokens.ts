/**
 * Tokens sent by e-mail (API.md §6): activation (24 h), password reset (1 h), e-mail change (24 h).
 *
 * A token is 38 bytes in base64url (`[A-Za-z0-9_-]`, 51 characters): purpose, a 16-byte nonce,
 * the issue time, and an HMAC-SHA256 (cut to 16 bytes) over the user id and all of that, keyed
 * by the secret named by EMAIL_TOKEN_SECRET_ID. The user keeps the nonce of the one token of each
 * purpose that is current. So, without storing tokens:
 *  - not genuine (→ 400): malformed, wrong purpose, or a MAC that does not verify for this uid;
 *  - stale (→ 403): genuine but expired, already used or superseded (the user's current nonce for
 *    the purpose is another one, or none).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { secretFromEnv } from '../secrets.js';

export const PURPOSES = { activation: 1, password_reset: 2, email_change: 3 } as const;
export type Purpose = keyof typeof PURPOSES;

export const LIFETIME_SECONDS: Record<Purpose, number> = {
  activation: 24 * 3600,
  password_reset: 3600,
  email_change: 24 * 3600,
};

const NONCE = 16;
const TIME = 5;
const MAC = 16;
const LENGTH = 1 + NONCE + TIME + MAC;

async function mac(uid: string, body: Buffer): Promise<Buffer> {
  const key = await secretFromEnv('EMAIL_TOKEN_SECRET_ID', 60 * 60_000);
  return createHmac('sha256', key).update(uid).update('\u0000').update(body).digest().subarray(0, MAC);
}

/**
 * What a token is made of besides the key: a fresh random nonce and the issue time (epoch
 * seconds). Granting needs no secret, so the change that grants a token (registration, an
 * account request) stores the grant; only the deliverer, which holds the key, turns it into the
 * token it e-mails (`emailToken`). The outbox therefore never holds a usable token.
 */
export interface Grant {
  nonce: string;
  issued: number;
}

/** A new grant; the caller stores `nonce` as the user's current one for the purpose. */
export function newGrant(now = new Date()): Grant {
  return { nonce: randomBytes(NONCE).toString('base64url'), issued: Math.floor(now.getTime() / 1000) };
}

/** The token of a grant for `uid` and `purpose` (keyed by EMAIL_TOKEN_SECRET_ID). */
export async function emailToken(uid: string, purpose: Purpose, grant: Grant): Promise<string> {
  const nonce = Buffer.from(grant.nonce, 'base64url');
  if (nonce.length !== NONCE) throw new Error('malformed grant nonce');
  const body = Buffer.alloc(1 + NONCE + TIME);
  body.writeUInt8(PURPOSES[purpose], 0);
  nonce.copy(body, 1);
  body.writeUIntBE(grant.issued, 1 + NONCE, TIME);
  return Buffer.concat([body, await mac(uid, body)]).toString('base64url');
}

/** A new token for `uid` and `purpose` at once (tests and tools); the caller stores `nonce`. */
export async function issueEmailToken(uid: string, purpose: Purpose, now = new Date()): Promise<{ token: string; nonce: string }> {
  const grant = newGrant(now);
  return { token: await emailToken(uid, purpose, grant), nonce: grant.nonce };
}

export type TokenCheck = { ok: true; nonce: string } | { ok: false; reason: 'not-genuine' | 'stale' };

/**
 * Checks `token` for `uid` and `purpose` against the user's current nonce for that purpose
 * (`undefined`: none is current — used, or the state it was for has passed).
 */
export async function checkEmailToken(uid: string, token: string, purpose: Purpose, current: string | undefined, now = new Date()): Promise<TokenCheck> {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return { ok: false, reason: 'not-genuine' };
  const raw = Buffer.from(token, 'base64url');
  if (raw.length !== LENGTH || raw.toString('base64url') !== token) return { ok: false, reason: 'not-genuine' };
  const body = raw.subarray(0, LENGTH - MAC);
  const expected = await mac(uid, body);
  if (!timingSafeEqual(raw.subarray(LENGTH - MAC), expected) || body.readUInt8(0) !== PURPOSES[purpose]) {
    return { ok: false, reason: 'not-genuine' };
  }
  const nonce = body.subarray(1, 1 + NONCE).toString('base64url');
  const issued = body.readUIntBE(1 + NONCE, TIME);
  if (Math.floor(now.getTime() / 1000) > issued + LIFETIME_SECONDS[purpose]) return { ok: false, reason: 'stale' };
  if (current === undefined || current !== nonce) return { ok: false, reason: 'stale' };
  return { ok: true, nonce };
}
