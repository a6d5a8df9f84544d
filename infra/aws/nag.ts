/**
 * cdk-nag (AwsSolutions pack). Every acknowledged finding is acknowledged on the one resource it
 * concerns, with one of the reasons below; nothing is acknowledged stack-wide. The infra tests
 * run the checks on every synthesis; `npx cdk synth -c nag=true` runs them in the CLI.
 */
import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

export const REASONS = {
  publicRoute:
    'Public operation (API.md §2.5): anyone may call it. A token, when one is sent, is verified by the function itself (API.md §2.1), so the route has no authorizer.',
  credentialsRoute:
    'Credential-establishing operation or support endpoint: by contract it ignores the Authorization header (API.md §2.1, §4.22), so the route has no authorizer.',
  catchAllRoute:
    'Routed to the catch-all function, which only answers 404, 405 (with Allow), 308 and CORS preflights (API.md §1.1); it reads no data, and preflights carry no credentials.',
  nodeRuntime:
    'Node.js 22 is the runtime chosen for the service (DESIGN.md §5, bundles target node22); moving to a newer runtime is a deliberate change of runtime and bundle target together.',
  signingKeyRotation:
    'Signing keys rotate by publishing a new key at least an hour before it signs and keeping old keys until their tokens expire (API.md §2.2); a Secrets Manager rotation, which replaces the value at once, would invalidate live tokens. Key rotation is the job of the token issue.',
  cursorKeyRotation:
    'The cursor HMAC key only makes pagination cursors tamper-evident (API.md §1.5); rotating it invalidates every cursor in flight, so it is rotated deliberately (by replacing the secret value), not on a schedule.',
  emailTokenKeyRotation:
    'The e-mailed-token HMAC key only authenticates activation, password-reset and e-mail-change tokens (API.md §6), which live at most 24 hours; rotating it invalidates the tokens in flight, so it is rotated deliberately (by replacing the secret value), not on a schedule.',
  originSecretRotation:
    'The origin secret only proves that a request came through the distribution, which sends it in a custom origin header resolved from this secret when the distribution is deployed; a scheduled rotation would change the value the functions expect before CloudFront sends it, refusing every request until the next deployment. It is replaced deliberately (docs/decisions.md).',
  socialSecretRotation:
    'The social providers’ client secrets are issued by each provider; they change when the operator registers a new secret there and puts it here, which Secrets Manager cannot do on a schedule.',
  pictureBucketAccessLogs:
    'Objects are written only by the upload function, whose requests are logged with their caller, deleted only by the cleanup job, which logs each key, and read only by the pictures distribution; server access logs would need a separate log bucket and would record little more.',
  picturesGeoRestriction:
    'Pictures of a public catalogue (API.md §4.9) are served worldwide: no country is excluded.',
  picturesWaf:
    'The distribution serves public, cached images read-only (GET and HEAD) from a private bucket; no request reaches code or data besides the objects. The API’s own rate rules (edge.ts) would count image requests against the anonymous API limit.',
  picturesAccessLogs:
    'Public images, identical for every viewer and read-only; CloudFront’s metrics show the traffic. Access logs would need a log bucket with ACLs enabled for records that say nothing about API callers.',
  picturesDefaultCertificate:
    'The distribution is reached at its *.cloudfront.net name, whose default certificate fixes the viewer security policy; a minimum of TLS 1.2 needs a custom domain with its own certificate (ACM in us-east-1), not configured yet. Viewers must use HTTPS; towards the bucket CloudFront signs its requests (Origin Access Control).',
  pictureObjects:
    'The upload route writes, and the cleanup job deletes, objects under the `pictures/` prefix of the pictures bucket only: each upload gets a new key chosen by the server, so the keys cannot be listed in advance.',
  indexBucketAccessLogs:
    'The bucket holds only the in-memory index’s snapshots of the public catalogue: written and deleted only by the compactor, which logs each version it writes and deletes, and read only by functions of this stack; server access logs would need a separate log bucket and would record little more.',
  indexObjects:
    'Functions read (and the compactor writes and deletes) objects under the `index/` prefix of the index bucket only: each version of a kind’s snapshot gets a new key, so the keys cannot be listed in advance.',
  providerInvokesVersions:
    'Granted by the CDK custom resource Provider: invoke on the signing-key handler and its versions (`<arn>:*`), that one function only.',
  failureQueue:
    'This queue is itself a dead-letter destination: the on-failure destination of a stream consumer’s event source mapping. Nothing consumes it automatically; its messages are kept 14 days for inspection and an alarm fires when one arrives.',
  edgeGeoRestriction:
    'A public catalogue API served worldwide (API.md): no country is excluded. Abuse is limited by the AWS WAF rate rules on this distribution and the throttling of the HTTP API.',
  edgeAccessLogs:
    'Every request that passes reaches the HTTP API, whose stage writes a JSON access log line for it; requests the AWS WAF rate rules block are logged by the web ACL (log group aws-waf-logs-<service>-<stage>). CloudFront access logs would record the same requests a third time in another bucket.',
  edgeDefaultCertificate:
    'The distribution is reached at its *.cloudfront.net name, whose default certificate fixes the viewer security policy; a minimum of TLS 1.2 needs a custom domain with its own certificate (an ACM certificate in us-east-1 and an alternate domain name), which the edge does not configure yet. Towards the origin it is HTTPS with TLS 1.2 only.',
} as const;

/** Acknowledges one cdk-nag finding on one construct (and its children). */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/** Registers the AwsSolutions checks with the app: synthesis fails on any unacknowledged finding. */
export function addNagChecks(app: App): AwsSolutionsChecks {
  const checks = new AwsSolutionsChecks(app, { verbose: true });
  Validations.of(app).addPlugins(checks);
  return checks;
}
