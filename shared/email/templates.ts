/**
 * The account e-mails of API.md §6 (E1–E10) as typed templates. A message names its template and
 * carries the data that template needs; `render` turns it into a subject, a UTF-8 plain-text body
 * and an HTML alternative with the same content (every interpolated value HTML-escaped).
 *
 * Rules of §6 kept here: exact subjects; links to `{frontend}` (env FRONTEND_URL, the deployment's
 * front-end base URL); e-mails that carry a token have the link and, each on its own line,
 * `uid: <uid>` and `token: <token>`; addresses other than the recipient's are masked
 * (`j***@example.org`); times are UTC. No password and no JWT ever reaches a template: the data
 * schemas below admit neither (uid and token are `[A-Za-z0-9_-]` only, so no dotted JWT).
 */
import * as z from 'zod/mini';
import { emailToken, type Purpose } from '../auth/email-tokens.js';

const opaque = z.string().check(z.regex(/^[A-Za-z0-9_-]+$/), z.maxLength(200));
const username = z.string().check(z.minLength(1), z.maxLength(100));
const address = z.string().check(z.minLength(3), z.maxLength(254), z.regex(/^[^@\s]+@[^@\s]+$/));
/**
 * A UTC time in RFC 3339 form with `Z` (what `toISOString` writes; every change records its time
 * so). A regex and a parse rather than zod's `iso.datetime`, whose pattern and string-format
 * code weigh ~2 KB in every function that queues e-mails (docs/decisions.md H4).
 */
const time = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/), z.refine((v) => !Number.isNaN(Date.parse(v))));

/** The data of each template as rendered, by id (API.md §6). */
export const TEMPLATE_DATA = {
  /** Activation: registration, `resend_activation`. */
  E1: z.strictObject({ username, uid: opaque, token: opaque }),
  /**
   * Registration / e-mail change with an address that already has an account. No token.
   * `pending`: that account was registered but never activated (docs/decisions.md, squatting).
   */
  E2: z.strictObject({ pending: z.optional(z.boolean()) }),
  /** The account was activated. `replaced`: by the address's owner, in place of an unactivated registration. */
  E3: z.strictObject({ username, replaced: z.optional(z.boolean()) }),
  /** Password reset. `pending`: the account was never activated; confirming replaces that registration. */
  E4: z.strictObject({ username, uid: opaque, token: opaque, pending: z.optional(z.boolean()) }),
  /** The password was changed. */
  E5: z.strictObject({ username, changed_at: time }),
  /** Confirm a new address (sent to the new address). */
  E6: z.strictObject({ username, new_email: address, uid: opaque, token: opaque }),
  /** An e-mail change was requested (sent to the current address). */
  E7: z.strictObject({ username, new_email: address }),
  /** The e-mail address was changed (sent to the old address). */
  E8: z.strictObject({ username, new_email: address, changed_at: time }),
  /** The account was deleted. */
  E9: z.strictObject({ username, deleted_at: time }),
  /** A social identity was linked to the account (§4.17 step 5): the provider's configured name, when. */
  E10: z.strictObject({ username, provider: z.string().check(z.minLength(1), z.maxLength(64)), linked_at: time }),
} as const;

export type TemplateId = keyof typeof TEMPLATE_DATA;
export const TEMPLATE_IDS = Object.keys(TEMPLATE_DATA) as TemplateId[];

/** The templates that carry an e-mailed token, and the token's purpose. */
export const TOKEN_PURPOSE = { E1: 'activation', E4: 'password_reset', E6: 'email_change' } as const satisfies Partial<Record<TemplateId, Purpose>>;
type TokenTemplate = keyof typeof TOKEN_PURPOSE;

/**
 * The e-mails that anyone can cause to be sent to an address they name (registration, the
 * e-mail requests, an e-mail change): the mailer caps how many of them one address receives
 * (shared/email/deliver.ts). Notices of changes that happened (E3, E5, E8, E9, E10) need the
 * account's credentials, an administrator, or (E10) a provider's proof of the address, and are
 * never held back.
 */
export const CAPPED_TEMPLATES: ReadonlySet<TemplateId> = new Set(['E1', 'E2', 'E4', 'E6', 'E7']);

const messageOf = <T extends TemplateId>(template: T) =>
  z.strictObject({ template: z.literal(template), to: address, data: TEMPLATE_DATA[template] });

/** Parses a message ready to render; throws when it is not a valid one. */
export const emailMessageSchema = z.discriminatedUnion('template', [
  messageOf('E1'),
  messageOf('E2'),
  messageOf('E3'),
  messageOf('E4'),
  messageOf('E5'),
  messageOf('E6'),
  messageOf('E7'),
  messageOf('E8'),
  messageOf('E9'),
  messageOf('E10'),
]);

/** One e-mail to send, ready to render: its template, its data and its recipient. */
export type EmailMessage = z.infer<typeof emailMessageSchema>;

export const parseEmailMessage = (value: unknown): EmailMessage => emailMessageSchema.parse(value);

/** The grant of an e-mailed token (shared/auth/email-tokens.ts): the token without the key. */
const grant = z.strictObject({ nonce: opaque, issued: z.int().check(z.nonnegative()) });

/** A token template's data as queued: `token` replaced by the grant it is made from. */
function withGrant<S extends { token: z.ZodMiniString }>(shape: S) {
  const { token: _token, ...fields } = shape;
  return z.strictObject({ ...fields, grant });
}

/** The token templates as queued. */
const QUEUED = {
  E1: z.strictObject({ template: z.literal('E1'), to: address, data: withGrant(TEMPLATE_DATA.E1.shape) }),
  E4: z.strictObject({ template: z.literal('E4'), to: address, data: withGrant(TEMPLATE_DATA.E4.shape) }),
  E6: z.strictObject({ template: z.literal('E6'), to: address, data: withGrant(TEMPLATE_DATA.E6.shape) }),
};

/**
 * An e-mail as the outbox holds it. Tokens are not stored (they would sit readable in the
 * table, its stream and its backups for as long as the message is kept): the deliverer makes
 * them from their grants with the key (`withToken`).
 */
export const queuedEmailSchema = z.discriminatedUnion('template', [
  QUEUED.E1,
  messageOf('E2'),
  messageOf('E3'),
  QUEUED.E4,
  messageOf('E5'),
  QUEUED.E6,
  messageOf('E7'),
  messageOf('E8'),
  messageOf('E9'),
  messageOf('E10'),
]);

export type QueuedEmail = z.infer<typeof queuedEmailSchema>;

/** The message ready to render: a token template gets the token its grant stands for. */
export async function withToken(queued: QueuedEmail): Promise<EmailMessage> {
  if (!(queued.template in TOKEN_PURPOSE)) return queued as EmailMessage;
  const { grant: g, ...data } = (queued as Extract<QueuedEmail, { template: TokenTemplate }>).data;
  const purpose = TOKEN_PURPOSE[queued.template as TokenTemplate];
  return parseEmailMessage({ ...queued, data: { ...data, token: await emailToken(data.uid, purpose, g) } });
}

/**
 * An account request (shared/email/requests.ts): recorded the same way whatever the address,
 * so that the answer takes the same time and work whether or not the address has an account
 * (API.md §6); the mailer decides what, if anything, to send.
 * - `activation` (`resend_activation`): E1 when a never-activated account has the address `to`;
 * - `password_reset` (`reset_password`): E4 when an active or never-activated account has it;
 * - `email_change` (`set_email`, `reset_email`) of `user_id` to the address `to`: E2 to `to`
 *   when it has another account, else the pending change with E6 and E7.
 */
export const accountRequestSchema = z.discriminatedUnion('request', [
  z.strictObject({ request: z.literal('activation'), to: address, data: z.strictObject({}) }),
  z.strictObject({ request: z.literal('password_reset'), to: address, data: z.strictObject({}) }),
  z.strictObject({ request: z.literal('email_change'), to: address, data: z.strictObject({ user_id: opaque, requested_at: time }) }),
]);

export type AccountRequest = z.infer<typeof accountRequestSchema>;

/** What the outbox holds: an e-mail to send, or an account request to decide. */
export type OutboxContent = QueuedEmail | AccountRequest;

export function parseOutboxContent(value: unknown): OutboxContent {
  return typeof value === 'object' && value !== null && 'request' in value ? accountRequestSchema.parse(value) : queuedEmailSchema.parse(value);
}

export const SUBJECTS: Record<TemplateId, string> = {
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
};

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

/** `j***@example.org`: the first character of the local part, `***@`, the domain (API.md §6). */
export function maskAddress(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${Array.from(email.slice(0, at))[0]}***@${email.slice(at + 1)}`;
}

/** A time as `2025-01-31 18:04:05 UTC`. */
export function utc(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) throw new Error('not a time');
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** `{frontend}`: the front-end base URL (FRONTEND_URL, without a trailing slash). */
export function frontendUrl(): string {
  const url = process.env.FRONTEND_URL;
  if (!url) throw new Error('FRONTEND_URL is not set');
  return url.replace(/\/+$/, '');
}

/*
 * A body is a list of blocks, written once and rendered twice (text and HTML), so both always
 * say the same thing. Text of a block is literal; values are interpolated through `v`.
 */
type Part = string | { value: string } | { link: string };
type Block = { p: Part[] } | { lines: Part[][] };

const v = (value: string): Part => ({ value });
const link = (url: string): Part => ({ link: url });
const p = (...parts: Part[]): Block => ({ p: parts });
const tokenLines = (uid: string, token: string): Block => ({ lines: [['uid: ', v(uid)], ['token: ', v(token)]] });

function partText(part: Part): string {
  return typeof part === 'string' ? part : 'value' in part ? part.value : part.link;
}

function partHtml(part: Part): string {
  if (typeof part === 'string') return escapeHtml(part);
  if ('value' in part) return escapeHtml(part.value);
  const url = escapeHtml(part.link);
  return `<a href="${url}">${url}</a>`;
}

function toText(blocks: Block[]): string {
  return `${blocks.map((b) => ('p' in b ? b.p.map(partText).join('') : b.lines.map((l) => l.map(partText).join('')).join('\n'))).join('\n\n')}\n`;
}

function toHtml(subject: string, blocks: Block[]): string {
  const body = blocks
    .map((b) =>
      'p' in b
        ? `<p>${b.p.map(partHtml).join('')}</p>`
        : `<p style="font-family:monospace">${b.lines.map((l) => l.map(partHtml).join('')).join('<br>\n')}</p>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body>
${body}
</body>
</html>
`;
}

const hello = (name: string) => p('Hello ', v(name), ',');
const signature = p('— The catalogue team');

function blocksOf(message: EmailMessage, frontend: string): Block[] {
  switch (message.template) {
    case 'E1': {
      const { username: name, uid, token } = message.data;
      return [
        hello(name),
        p('Thank you for registering the account ', v(name), '. To activate it, open this link:'),
        p(link(`${frontend}/activate/${uid}/${token}`)),
        p('The link is valid for 24 hours. If the link does not open, enter these values on the activation page:'),
        tokenLines(uid, token),
        p('If you did not register, do not open the link: the account stays inactive and is deleted after 30 days. To use this address for an account of your own now, ask for a password reset at ', link(frontend), ' ("Forgot password"): the reset link sent to this address replaces the registration with an account of yours.'),
        signature,
      ];
    }
    case 'E2':
      if (message.data.pending) {
        return [
          p('Hello,'),
          p('Someone tried to register or to move an account to this e-mail address, but an account with this address was registered already and has not been activated yet.'),
          p('If you registered it, open the link of its activation e-mail, or ask for a new one at ', link(frontend), '.'),
          p('If you did not register it, do not activate it. To use this address for an account of your own, ask for a password reset at ', link(frontend), ' ("Forgot password"): the reset link sent to this address replaces that registration, its username and its password with an account of yours.'),
          signature,
        ];
      }
      return [
        p('Hello,'),
        p('Someone tried to register or to move an account to this e-mail address, but an account with this address already exists.'),
        p('If that was you, sign in with this address at ', link(frontend), '. If you have forgotten your password, reset it there ("Forgot password"): a reset link will be sent to this address.'),
        p('If it was not you, you can ignore this e-mail: nothing was changed.'),
        signature,
      ];
    case 'E3':
      return [
        hello(message.data.username),
        p('Your account ', v(message.data.username), ' is active. You can now sign in at ', link(frontend), '.'),
        ...(message.data.replaced
          ? [p('It replaces the registration with this address that was never activated: that registration, its username and its password no longer exist. You can change your username in your account settings.')]
          : []),
        signature,
      ];
    case 'E4': {
      const { username: name, uid, token, pending } = message.data;
      return [
        ...(pending
          ? [
              p('Hello,'),
              p('We received a request to reset the password of the account registered with this address. That account was never activated. If you open this link and choose a password, the registration is replaced by a new active account of yours with that password and a username made from this address; the registration\'s username and password stop working:'),
            ]
          : [hello(name), p('We received a request to reset the password of your account. To choose a new password, open this link:')]),
        p(link(`${frontend}/password/reset/confirm/${uid}/${token}`)),
        p('The link is valid for 1 hour. If the link does not open, enter these values on the password reset page:'),
        tokenLines(uid, token),
        p(pending ? 'Please ignore this e-mail if you did not ask for it: nothing changes.' : 'Please ignore this e-mail if you did not ask for it: your password stays as it is.'),
        signature,
      ];
    }
    case 'E5':
      return [
        hello(message.data.username),
        p('The password of your account was changed on ', v(utc(message.data.changed_at)), '.'),
        p('If this was not you, reset your password at once at ', link(frontend), ' ("Forgot password").'),
        signature,
      ];
    case 'E6': {
      const { username: name, new_email, uid, token } = message.data;
      return [
        hello(name),
        p('You asked to change the e-mail address of your account to ', v(new_email), '. To confirm this new address, open this link:'),
        p(link(`${frontend}/email/reset/confirm/${uid}/${token}`)),
        p('The link is valid for 24 hours. If the link does not open, enter these values on the confirmation page:'),
        tokenLines(uid, token),
        p('If you did not ask for this change, ignore this e-mail: the address of the account stays as it is.'),
        signature,
      ];
    }
    case 'E7':
      return [
        hello(message.data.username),
        p('Someone asked to change the e-mail address of your account to ', v(maskAddress(message.data.new_email)), '. The change takes effect only when it is confirmed from the new address.'),
        p('If this was not you, change your password at once at ', link(frontend), '.'),
        signature,
      ];
    case 'E8':
      return [
        hello(message.data.username),
        p('The e-mail address of your account was changed to ', v(maskAddress(message.data.new_email)), ' on ', v(utc(message.data.changed_at)), '. E-mails about the account now go to the new address.'),
        p('If you did not make this change, someone else may have access to your account: contact the catalogue team.'),
        signature,
      ];
    case 'E9':
      return [
        hello(message.data.username),
        p('Your account ', v(message.data.username), ' was deleted on ', v(utc(message.data.deleted_at)), ', with its profile, lists and reviews.'),
        p('If you did not expect this, contact the catalogue team.'),
        signature,
      ];
    case 'E10':
      return [
        hello(message.data.username),
        p('A sign-in with ', v(message.data.provider), ' was added to your account on ', v(utc(message.data.linked_at)), ': that provider confirmed that this e-mail address is yours.'),
        p('Every other session of the account was signed out. Signing in with a password now needs a new password: choose one at ', link(frontend), ' ("Forgot password"); a reset link will be sent to this address.'),
        p('If this was not you, someone else controls this address at ', v(message.data.provider), ': secure that account first, then reset your password here and contact the catalogue team.'),
        signature,
      ];
  }
}

/** The subject, text and HTML of a message (`frontend` defaults to FRONTEND_URL). */
export function render(message: EmailMessage, frontend: string = frontendUrl()): Rendered {
  const subject = SUBJECTS[message.template];
  const blocks = blocksOf(message, frontend.replace(/\/+$/, ''));
  return { subject, text: toText(blocks), html: toHtml(subject, blocks) };
}
