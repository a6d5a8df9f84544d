/**
 * Sending one rendered e-mail through SES (locally the SES emulator, reached through
 * AWS_ENDPOINT_URL_SES). The sender is MAIL_FROM, the deployment's configured address.
 */
import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import type { Rendered } from './templates.js';

let client: SESClient | undefined;

/**
 * One client per container. Few SDK attempts and short timeouts: a failed send is retried by the
 * outbox with backoff, and an attempt must end well within the claim's lease (60 s).
 */
export function sesClient(): SESClient {
  client ??= new SESClient({ maxAttempts: 2, requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000 } });
  return client;
}

export function mailFrom(): string {
  const from = process.env.MAIL_FROM;
  if (!from) throw new Error('MAIL_FROM is not set');
  return from;
}

/** Sends `mail` to `to`; resolves to SES's message id. Throws what SES (or the network) throws. */
export async function sendEmail(to: string, mail: Rendered): Promise<string | undefined> {
  const charset = 'UTF-8';
  const out = await sesClient().send(
    new SendEmailCommand({
      Source: mailFrom(),
      Destination: { ToAddresses: [to] },
      Message: {
        Subject: { Data: mail.subject, Charset: charset },
        Body: { Text: { Data: mail.text, Charset: charset }, Html: { Data: mail.html, Charset: charset } },
      },
    }),
  );
  return out.MessageId;
}
