/**
 * The SES identity account e-mails are sent from (API.md §6), from context `mailFrom`: an
 * address (`noreply@example.org`) or a domain (`example.org`, Easy DKIM; mail then comes from
 * `no-reply@<domain>`), and the front-end URL their links point to (context `frontendUrl`).
 * Only the functions that send (the mailer stream consumer and the outbox job) get the sender
 * settings and ses:SendEmail, on this identity only, and the key of e-mailed tokens: the outbox
 * holds a token e-mail's grant, and the deliverer makes the token from it (docs/decisions.md).
 */
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';
import { FUNCTION_ENV } from '../api-config.js';
import { secretReadStatement } from './function.js';

export interface MailIdentityProps {
  mailFrom: string;
  /** `{frontend}` of API.md §6, without a trailing slash. */
  frontendUrl: string;
  /** The HMAC key of e-mailed tokens. */
  tokenKey: ISecret;
}

export class MailIdentity extends Construct {
  readonly identity: EmailIdentity;
  /** The sender address (MAIL_FROM). */
  readonly sender: string;
  readonly frontendUrl: string;
  readonly tokenKey: ISecret;

  constructor(scope: Construct, id: string, props: MailIdentityProps) {
    super(scope, id);
    const { mailFrom } = props;
    const isAddress = mailFrom.includes('@');
    this.identity = new EmailIdentity(this, 'Identity', {
      identity: isAddress ? Identity.email(mailFrom) : Identity.domain(mailFrom),
    });
    this.sender = isAddress ? mailFrom : `no-reply@${mailFrom}`;
    this.frontendUrl = props.frontendUrl;
    this.tokenKey = props.tokenKey;
  }

  /** The variables a sending function reads. */
  environment(): Record<string, string> {
    return { [FUNCTION_ENV.mailFrom]: this.sender, [FUNCTION_ENV.frontendUrl]: this.frontendUrl, [FUNCTION_ENV.emailTokenKey]: this.tokenKey.secretArn };
  }

  /**
   * Sending from this identity (while the account is in the SES sandbox, recipients must be
   * verified identities too, and SES then also authorises on theirs), and reading the token key.
   */
  statements(): PolicyStatement[] {
    return [
      new PolicyStatement({ actions: ['ses:SendEmail'], resources: [this.identity.emailIdentityArn] }),
      secretReadStatement(this.tokenKey),
    ];
  }
}
