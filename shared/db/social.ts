/**
 * Social sign-in items (API.md §4.17):
 *
 *   state       pk = SOCIAL#STATE#<state>                   sk = S
 *               { provider, redirect_uri, nonce, verifier, expires_at (TTL) }
 *   link        pk = SOCIAL#LINK#<provider>#<iss>#<sub>     sk = L
 *               { user_id, provider, iss, sub, created_at }
 *   user's link pk = SOCIAL#USER#<user id>                  sk = LINK#<provider>#<iss>#<sub>
 *               { the same attributes }
 *
 * A state is written by the start of a sign-in and deleted (conditionally: exactly one request
 * gets it) by the first finish that presents it. A link maps a provider identity to an account;
 * its twin under the user lets the account's links be found with one Query (account deletion
 * removes them). Both are written in the transaction that creates or links the account.
 */
import { queryAll } from './batch.js';
import { send, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { grant, grants, type KeyGrants, type KeyPattern } from './key-patterns.js';
import { del, itemPlan, put, type WritePlan } from './records.js';

export interface SocialState {
  provider: string;
  redirect_uri: string;
  nonce: string;
  verifier: string;
  /** Epoch seconds (also the item's TTL). */
  expires_at: number;
}

export interface SocialLink {
  provider: string;
  iss: string;
  sub: string;
  user_id: string;
  created_at: string;
}

const stateKey = (state: string) => ({ pk: `SOCIAL#STATE#${state}`, sk: 'S' });
const identity = (l: Pick<SocialLink, 'provider' | 'iss' | 'sub'>) => `${l.provider}#${l.iss}#${l.sub}`;
const linkKey = (l: Pick<SocialLink, 'provider' | 'iss' | 'sub'>) => ({ pk: `SOCIAL#LINK#${identity(l)}`, sk: 'L' });
const userLinksPk = (userId: string) => `SOCIAL#USER#${userId}`;
const userLinkKey = (l: SocialLink) => ({ pk: userLinksPk(l.user_id), sk: `LINK#${identity(l)}` });

/** Every social sign-in state. */
export const SOCIAL_STATE_KEYS: KeyPattern = stateKey('*').pk;
/** Every social identity link and its twin under the user. */
export const SOCIAL_LINK_KEYS: KeyPattern[] = [linkKey({ provider: '*', iss: '*', sub: '*' }).pk, userLinksPk('*')];
/** Removing a user's links: their list read (Query of the user's partition), both items of each deleted (unlinkPlans). */
export const SOCIAL_UNLINKS: KeyGrants = grants(grant(SOCIAL_LINK_KEYS, 'DeleteItem'), grant(userLinksPk('*'), 'Query'));

/** States are random base64url strings; anything else names no state (and could not be a key). */
const STATE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

export async function saveSocialState(state: string, value: SocialState): Promise<void> {
  await send((c) =>
    new c.PutCommand({ TableName: tableName(), Item: { ...stateKey(state), ...value }, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
}

/** Deletes the state and returns what it held; null when there is none (unknown or already used). */
export async function takeSocialState(state: string): Promise<SocialState | null> {
  if (!STATE_PATTERN.test(state)) return null;
  try {
    const out = await send((c) =>
      new c.DeleteCommand({ TableName: tableName(), Key: stateKey(state), ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_OLD' }),
    );
    const item = out.Attributes;
    if (!item) return null;
    return {
      provider: String(item.provider),
      redirect_uri: String(item.redirect_uri),
      nonce: String(item.nonce),
      verifier: String(item.verifier),
      expires_at: Number(item.expires_at),
    };
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** Thrown when a link was written by another request since it was read (start again from the read). */
export class LinkChanged extends Error {
  constructor() {
    super('social link changed since it was read');
    this.name = 'LinkChanged';
  }
}

const linkAttributes = (l: SocialLink) => ({ provider: l.provider, iss: l.iss, sub: l.sub, user_id: l.user_id, created_at: l.created_at });

export async function getSocialLink(provider: string, iss: string, sub: string): Promise<SocialLink | null> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: linkKey({ provider, iss, sub }), ConsistentRead: true }));
  return out.Item ? (linkAttributes(out.Item as SocialLink) satisfies SocialLink) : null;
}

const changed = { what: 'error', error: () => new LinkChanged() } as const;

/**
 * Links an identity to an account. `replacing`: the link read before, whose account no longer
 * exists (the new link is written only if it is still that one).
 */
export function linkPlans(link: SocialLink, replacing: SocialLink | null = null): WritePlan[] {
  const condition = replacing
    ? { expression: '#uid = :uid', names: { '#uid': 'user_id' }, values: { ':uid': replacing.user_id } }
    : { expression: 'attribute_not_exists(pk)' };
  const plans = [itemPlan(put({ ...linkKey(link), ...linkAttributes(link) }, condition), changed), itemPlan(put({ ...userLinkKey(link), ...linkAttributes(link) }))];
  if (replacing) plans.push(itemPlan(del(userLinkKey(replacing))));
  return plans;
}

/** The identities linked to an account (one Query). */
export async function socialLinksOfUser(userId: string): Promise<SocialLink[]> {
  return (await queryAll(userLinksPk(userId))).map((item) => linkAttributes(item as unknown as SocialLink));
}

/** Removes a link and its twin (account deletion: commit with the deletion of the account). */
export function unlinkPlans(link: SocialLink): WritePlan[] {
  return [itemPlan(del(linkKey(link))), itemPlan(del(userLinkKey(link)))];
}
