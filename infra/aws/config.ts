/**
 * The deployment settings of one stage, read from CDK context (`-c key=value` or cdk.json):
 *
 * | key              | meaning                                                     | default            |
 * |------------------|-------------------------------------------------------------|--------------------|
 * | `stage`          | stage name, `[a-z][a-z0-9-]*`; part of every name            | `dev`              |
 * | `allowedOrigins` | CORS origins, comma separated, `*` for any (API.md §1.1)     | `*` on dev, none elsewhere |
 * | `publicBaseUrl`  | `{base}` of API.md (a custom domain)                         | the API endpoint   |
 * | `mailFrom`       | sender address or domain of the SES identity                | no identity        |
 * | `nag`            | run the cdk-nag AwsSolutions checks during synthesis        | `false`            |
 */
import type { Node } from 'constructs';

export const SERVICE = 'catalogue-api';

export interface StageConfig {
  stage: string;
  allowedOrigins: string;
  /** Without a trailing slash; undefined: the API endpoint URL. */
  publicBaseUrl?: string;
  mailFrom?: string;
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

  return {
    stage,
    allowedOrigins,
    publicBaseUrl: base?.replace(/\/$/, ''),
    mailFrom: text(node, 'mailFrom'),
    nag: text(node, 'nag') === 'true',
  };
}
