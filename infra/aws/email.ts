/**
 * The SES identity account e-mails are sent from (API.md §6), from context `mailFrom`: an
 * address (`noreply@example.org`) or a domain (`example.org`, Easy DKIM). Nothing sends yet;
 * the mailer function gets ses:SendEmail on this identity when it exists.
 */
import { EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';

export interface MailIdentityProps {
  mailFrom: string;
}

export class MailIdentity extends Construct {
  readonly identity: EmailIdentity;

  constructor(scope: Construct, id: string, props: MailIdentityProps) {
    super(scope, id);
    const { mailFrom } = props;
    this.identity = new EmailIdentity(this, 'Identity', {
      identity: mailFrom.includes('@') ? Identity.email(mailFrom) : Identity.domain(mailFrom),
    });
  }
}
