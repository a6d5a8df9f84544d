/**
 * POST /api/socials/o/{provider}/ (API.md §4.17): finishes social sign-in.
 *
 * 1. `code` and `state` from the body, or (older clients) from the query, never both ways.
 * 2. The state is taken (deleted) whatever happens next; it must be this provider's and unexpired.
 * 3. The code is exchanged (PKCE verifier, stored redirect URI) and the ID token validated.
 * 4. The provider must assert a verified e-mail address.
 * 5. The account: the one linked to the identity (`iss` + `sub`); else the active one with that
 *    e-mail, which gets linked — and since the provider proved control of the address, which
 *    whoever knows the password may not have, every session of it is revoked, its password stops
 *    working until one is set through `reset_password`, and E10 goes to it (docs/decisions.md
 *    H1); else a new active member with a profile from the given/family name and an https
 *    picture — which replaces a registration with that e-mail that was never activated (the
 *    provider proved control of the address, the registrant did not: nothing the registrant
 *    chose survives, docs/decisions.md 59). A deactivated account → 401.
 * 6. A new token family; `last_login` set — in the same transaction as the link (with its
 *    revocations and E10) or the new account, and with an Idempotency-Key the answer (API.md
 *    §8.7: stored sealed under the key, docs/decisions.md EX9): a retry whose answer was lost
 *    gets the same tokens, where the state, already taken, would refuse it.
 */
import { issueTokenPair, type TokenPair } from '../../shared/auth/sessions.js';
import {
  exchangeCode,
  providerMetadata,
  ProviderUnavailable,
  SocialRejected,
  socialProvider,
  type SocialIdentity,
} from '../../shared/auth/social.js';
import { afterSocialLink, newAccount, replaceRegistration } from '../../shared/domain/accounts.js';
import { email as emailField, url } from '../../shared/domain/fields.js';
import { availableUsername } from '../../shared/domain/usernames.js';
import { outboxPlan } from '../../shared/db/outbox.js';
import { commit, StaleRecord, type WritePlan } from '../../shared/db/records.js';
import { getSocialLink, LinkChanged, linkPlans, takeSocialState } from '../../shared/db/social.js';
import { getUser, getUserByEmail, getUserByUsername, isPendingRegistration, replaceUserPlan, type UserRecord } from '../../shared/db/users.js';
import { newId } from '../../shared/ids.js';
import { createHandler, type ApiRequest, type Reply } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { accountInactive, HttpError, invalidQuery, notFound, serviceUnavailable, validationError } from '../../shared/problem.js';
import { logger } from '../../shared/log.js';
import { codePoints, hasControlChars } from '../../shared/text.js';
import { routes } from './routes.js';

/** Attempts when another request changes the account or the link meanwhile. */
const ATTEMPTS = 4;

/** `code` and `state` of the request: from the query when it has them (then the body must be empty), else the body. */
function codeAndState(req: ApiRequest<typeof routes.finish>): { code: string; state: string } {
  const { code, state } = req.query;
  if (code === undefined && state === undefined) return req.body();
  if (Object.keys(req.rawBody).length > 0) {
    throw validationError({ non_field_errors: ['Send code and state either in the body or as query parameters, not both.'] });
  }
  return { code: code!, state: state! };
}

export async function operation(req: ApiRequest<typeof routes.finish>): Promise<Reply> {
  const q = req.query;
  if ((q.code === undefined) !== (q.state === undefined)) {
    throw invalidQuery({ [q.code === undefined ? 'code' : 'state']: ['Send both code and state as query parameters, or neither.'] });
  }
  const provider = socialProvider(req.params.provider);
  if (!provider) throw notFound('No such social provider.');
  const { code, state } = codeAndState(req);

  const stored = await takeSocialState(state);
  if (!stored || stored.provider !== provider.name || stored.expires_at * 1000 <= Date.now()) {
    throw validationError({ state: ['This state is unknown, expired, already used or was issued for another provider.'] });
  }

  let identity: SocialIdentity;
  try {
    const metadata = await providerMetadata(provider);
    identity = await exchangeCode(provider, metadata, { code, redirectUri: stored.redirect_uri, verifier: stored.verifier, nonce: stored.nonce });
  } catch (err) {
    if (err instanceof SocialRejected) {
      logger.info('social sign-in refused', { provider: provider.name, reason: err.message });
      throw validationError({ [err.field]: [err.message] });
    }
    if (err instanceof ProviderUnavailable) {
      logger.warn('social provider unavailable', { provider: provider.name, error: err.message });
      throw serviceUnavailable();
    }
    throw err;
  }
  const email = emailField().safeParse(identity.email ?? '');
  if (!identity.email_verified || !email.success) {
    throw validationError({ email: ['The provider did not assert a verified e-mail address.'] });
  }

  return signIn(provider.name, { ...identity, email: email.data }, req.idempotent);
}

type VerifiedIdentity = SocialIdentity & { email: string };

/** Step 6's answer: the token pair and the account. */
const answer = (user: UserRecord, pair: TokenPair): Reply => ({
  status: 201,
  body: { access: pair.access, refresh: pair.refresh, user: { id: user.id, username: user.username, email: user.email } },
});

/** `store`: the plan that keeps the answer with the sign-in's transaction (an Idempotency-Key, API.md §8.7). */
type Store = (reply: Reply) => WritePlan;

async function signIn(provider: string, identity: VerifiedIdentity, store: Store): Promise<Reply> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptSignIn(provider, identity, store);
    } catch (err) {
      // Another request changed the account, linked the identity or took the e-mail or username.
      const raced = err instanceof StaleRecord || err instanceof LinkChanged || (err instanceof HttpError && err.type === 'conflict');
      if (!raced) throw err;
      if (attempt >= ATTEMPTS) throw serviceUnavailable();
    }
  }
}

async function attemptSignIn(provider: string, identity: VerifiedIdentity, store: Store): Promise<Reply> {
  const now = new Date().toISOString();
  const link = await getSocialLink(provider, identity.iss, identity.sub);
  const linked = link ? await getUser(link.user_id) : null;
  const user = linked ?? (await getUserByEmail(identity.email));
  const newLink = (userId: string): WritePlan[] =>
    linkPlans({ provider, iss: identity.iss, sub: identity.sub, user_id: userId, created_at: now }, link);

  const pending = user !== null && isPendingRegistration(user.record, user.priv) ? user : null;
  if (user && !pending) {
    // Deactivated by an administrator (it was active once): no sign-in, and no link.
    if (!user.record.is_active) throw accountInactive();
    const record: UserRecord = { ...user.record, last_login: now };
    if (linked) {
      const { pair, plan } = await issueTokenPair({ id: record.id, token_version: user.priv.token_version }, newId());
      const reply = answer(record, pair);
      await commit(replaceUserPlan(user, record), plan, store(reply));
      return reply;
    }
    // Linked now: every earlier session revoked, the password unusable, E10 — with the link.
    const priv = afterSocialLink(user.priv, now);
    const { pair, plan } = await issueTokenPair({ id: record.id, token_version: priv.token_version }, newId());
    const e10 = outboxPlan({ template: 'E10', to: record.email, data: { username: record.username, provider, linked_at: now } });
    const reply = answer(record, pair);
    await commit(replaceUserPlan(user, record, priv), ...newLink(record.id), plan, e10, store(reply));
    logger.info('social identity linked: sessions revoked, password unusable', { provider, user_id: record.id });
    return reply;
  }

  const username = await availableUsername([identity.preferred_username, identity.email.split('@')[0]], async (u) => {
    const holder = await getUserByUsername(u);
    return holder !== null && holder.record.id !== pending?.record.id;
  });
  const input = { username, passwordHash: null, profile: profileFields(identity), lastLogin: now };
  const account = pending ? await replaceRegistration(pending, input, now) : newAccount({ email: identity.email, active: true, ...input }, now);
  const record = account.user;
  const { pair, plan } = await issueTokenPair({ id: record.id, token_version: account.priv.token_version }, newId());
  const reply = answer(record, pair);
  await commit(...account.plans, ...newLink(record.id), plan, store(reply));
  logger.info(pending ? 'unactivated registration replaced by social sign-in' : 'account created by social sign-in', { provider, user_id: record.id });
  return reply;
}

/** A profile name from a claim: one line, no control characters, at most 100 characters. */
function name(value: string | undefined): string {
  if (value === undefined || !value.isWellFormed()) return '';
  const v = value.normalize('NFC').replace(/\s+/g, ' ').trim();
  if (hasControlChars(v)) return '';
  return codePoints(v) <= 100 ? v : [...v].slice(0, 100).join('').trim();
}

function profileFields(identity: SocialIdentity) {
  const picture = identity.picture === undefined ? null : url().safeParse(identity.picture);
  return {
    first_name: name(identity.given_name),
    last_name: name(identity.family_name),
    ...(picture?.success ? { image: picture.data } : {}),
  };
}

export const handler = createHandler(routes.finish, operation, { rateLimits: requestLimits });
