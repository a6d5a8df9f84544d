/**
 * The deployment settings of one stage, read from CDK context (`-c key=value` or cdk.json):
 *
 * | key              | meaning                                                     | default            |
 * |------------------|-------------------------------------------------------------|--------------------|
 * | `stage`          | stage name, `[a-z][a-z0-9-]*`; part of every name            | `dev`              |
 * | `allowedOrigins` | CORS origins, comma separated, `*` for any (API.md §1.1)     | `*` on dev, none elsewhere |
 * | `publicBaseUrl`  | `{base}` of API.md (a custom domain)                         | the edge's URL with `edge`, else the API endpoint |
 * | `mailFrom`       | sender address or domain of the SES identity                | no identity        |
 * | `frontendUrl`    | `{frontend}` of API.md §6, where e-mailed links point; required with `mailFrom` | —  |
 * | `rateLimits`     | the specific rate limits (API.md §7.2): `off` or a JSON object of overrides (shared/http/rate-limits.ts) | the published values |
 * | `socialProviders`| the social sign-in providers (API.md §4.17): a JSON list (shared/auth/social.ts); client secrets go into the secret `<stage>/catalogue/social-secrets` | none |
 * | `edge`           | `true`: CloudFront with the AWS WAF rate rules of the general limits in front of the API (edge.ts) | `false` |
 * | `region`         | the region of the stage's stack (the edge's rules are always in us-east-1); needed with `edge` | the CLI's region |
 * | `nag`            | run the cdk-nag AwsSolutions checks during synthesis        | `false`            |
 */
import type { Node } from 'constructs';
import { parseProviders } from '../../shared/auth/social.js';
import { parseSetting } from '../../shared/http/rate-limits.js';

export const SERVICE = 'catalogue-api';

export interface StageConfig {
  stage: string;
  allowedOrigins: string;
  /** Without a trailing slash; undefined: the API endpoint URL. */
  publicBaseUrl?: string;
  mailFrom?: string;
  /** Without a trailing slash; set whenever `mailFrom` is. */
  frontendUrl?: string;
  /** RATE_LIMITS of the route functions; undefined: the published values. */
  rateLimits?: string;
  /** SOCIAL_PROVIDERS of the social sign-in functions; undefined: none. */
  socialProviders?: string;
  /** CloudFront and AWS WAF in front of the HTTP API (edge.ts). */
  edge: boolean;
  /** The region of the stage's stack; undefined: environment-agnostic (the CLI's region). */
  region?: string;
  nag: boolean;
}

/** Stages whose data outlive the stack (deletion protection, RETAIN). Every stage but `dev`. */
export function keepsData(config: Pick<StageConfig, 'stage'>): boolean {
  return config.stage !== 'dev';
}

function text(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null) return undefined;
  const s = String(value).trim();
  return s === '' ? undefined : s;
}

export function stageConfig(node: Node): StageConfig {
  const stage = text(node, 'stage') ?? 'dev';
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) throw new Error(`stage "${stage}" must match [a-z][a-z0-9-]{0,19}`);

  const allowedOrigins = text(node, 'allowedOrigins') ?? (stage === 'dev' ? '*' : '');
  for (const origin of allowedOrigins.split(',').map((o) => o.trim()).filter(Boolean)) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) throw new Error(`allowedOrigins: "${origin}" is not an origin (scheme://host[:port])`);
  }

  const base = text(node, 'publicBaseUrl');
  if (base !== undefined && !/^https:\/\/[^/\s]+\/?$/.test(base)) throw new Error(`publicBaseUrl "${base}" must be https://host`);

  const limitsContext: unknown = node.tryGetContext('rateLimits');
  // In cdk.json the overrides may be written as an object.
  const rateLimits = typeof limitsContext === 'object' && limitsContext !== null ? JSON.stringify(limitsContext) : text(node, 'rateLimits');
  if (rateLimits !== undefined) parseSetting(rateLimits); // throws on a value the functions would refuse

  const mailFrom = text(node, 'mailFrom');
  const frontend = text(node, 'frontendUrl');
  if (frontend !== undefined && !/^https?:\/\/[^/\s]+(\/[^\s]*)?$/.test(frontend)) throw new Error(`frontendUrl "${frontend}" must be an http(s) URL`);
  if (mailFrom !== undefined && frontend === undefined) throw new Error('mailFrom needs frontendUrl: the links of the e-mails point there');

  const socialContext: unknown = node.tryGetContext('socialProviders');
  // In cdk.json the list may be written as JSON.
  const socialProviders = typeof socialContext === 'object' && socialContext !== null ? JSON.stringify(socialContext) : text(node, 'socialProviders');
  if (socialProviders !== undefined) parseProviders(socialProviders); // throws on a list the functions would refuse

  const edge = text(node, 'edge') ?? 'false';
  if (edge !== 'true' && edge !== 'false') throw new Error(`edge "${edge}" must be true or false`);
  const region = text(node, 'region');
  if (region !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) throw new Error(`region "${region}" is not an AWS region name`);

  return {
    stage,
    allowedOrigins,
    publicBaseUrl: base?.replace(/\/$/, ''),
    mailFrom,
    frontendUrl: frontend?.replace(/\/+$/, ''),
    rateLimits,
    socialProviders,
    edge: edge === 'true',
    region,
    nag: text(node, 'nag') === 'true',
  };
}
