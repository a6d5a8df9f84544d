/**
 * DynamoDB Streams consumers (DESIGN.md §5): one function and one event source mapping on the
 * table's stream per declaration of functions/streams/registry.ts, with the declaration's
 * filter, batch size and retries, and partial batch responses (ReportBatchItemFailures). A
 * consumer that sends e-mail is created only when the stage has a sender (MailIdentity).
 *
 * Failures: a batch whose function throws is split in two and retried (bisect on error), so one
 * bad record cannot hold its neighbours back; a record still failing after the declared retries,
 * or older than MAX_RECORD_AGE, is given up and its description (shard, sequence numbers, the
 * error) goes to the consumer's failure queue (SQS, encrypted, TLS only, kept 14 days). Two
 * alarms watch each consumer: a message in its failure queue, and errors of its function. For
 * the mailer a given-up record loses nothing: the outbox job still delivers the message from its
 * due entry (docs/decisions.md); the alarm says that the fast path is failing.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EventSourceMapping, FilterCriteria, FilterRule, StartingPosition, type IEventSourceDlq } from 'aws-cdk-lib/aws-lambda';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULT_CONSUMER_TIMEOUT_SECONDS, type KeyPattern, type StreamConsumerDecl, type StreamFilter } from '../../functions/streams/registry.js';
import type { MailIdentity } from './email.js';
import { acknowledgeIndexObjects, indexStatements, type IndexStorage } from './index-storage.js';
import { CatalogueFunction, ENV, tableStatements } from './function.js';
import { acknowledge, REASONS } from './nag.js';

/** A record older than this is given up (to the failure queue) rather than retried further. */
export const MAX_RECORD_AGE = Duration.hours(1);
/** How long the failure queue keeps a message (SQS allows at most 14 days). */
export const FAILURE_RETENTION = Duration.days(14);

/** A consumer's failure queue and its alarms. */
export interface ConsumerFailures {
  queue: Queue;
  /** At least one message in the failure queue. */
  queued: Alarm;
  /** At least one error of the function in five minutes. */
  errors: Alarm;
}

export interface StreamConsumersProps {
  consumers: readonly StreamConsumerDecl[];
  table: ITable;
  environment: Record<string, string>;
  logRemovalPolicy: RemovalPolicy;
  /** The stage's sender; consumers that send e-mail are left out without one. */
  mail?: MailIdentity;
  /** The index bucket, for consumers declared with `index` (its name and the actions of index-storage.ts indexStatements). */
  index: IndexStorage;
}

/** The mapping's filter pattern for a declared filter. */
export function filterPattern(filter: StreamFilter): Record<string, unknown> {
  const keys = Object.fromEntries(
    Object.entries(filter.keys).map(([name, patterns]) => [
      name,
      { S: ([] as KeyPattern[]).concat(patterns).flatMap((p) => ('equals' in p ? FilterRule.isEqual(p.equals) : FilterRule.beginsWith(p.prefix))) },
    ]),
  );
  return { eventName: FilterRule.or(...filter.events), dynamodb: { Keys: keys } };
}

export class StreamConsumers extends Construct {
  readonly functions = new Map<string, CatalogueFunction>();
  /** The failure queue and alarms of each consumer, by name. */
  readonly failures = new Map<string, ConsumerFailures>();

  constructor(scope: Construct, id: string, props: StreamConsumersProps) {
    super(scope, id);
    const { table } = props;
    const streamArn = table.tableStreamArn;
    if (!streamArn) throw new Error('the table has no stream');
    for (const consumer of props.consumers) {
      if (!/^[a-z0-9-]+$/.test(consumer.name)) throw new Error(`stream consumer name "${consumer.name}" must match [a-z0-9-]+`);
      if (this.functions.has(consumer.name)) throw new Error(`stream consumer "${consumer.name}" is declared twice`);
      if (consumer.sendsMail && !props.mail) continue;
      const queue = new Queue(this, `${consumer.name}-failures`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: FAILURE_RETENTION,
      });
      acknowledge(queue, 'AwsSolutions-SQS3', REASONS.failureQueue);
      const fn = new CatalogueFunction(this, consumer.name, {
        entry: consumer.entry,
        component: `stream.${consumer.name}`,
        description: consumer.description,
        timeout: Duration.seconds(consumer.timeoutSeconds ?? DEFAULT_CONSUMER_TIMEOUT_SECONDS),
        logRemovalPolicy: props.logRemovalPolicy,
        environment: {
          ...props.environment,
          [ENV.table]: table.tableName,
          ...(consumer.sendsMail ? props.mail!.environment() : {}),
          ...(consumer.index ? { [ENV.indexBucket]: props.index.bucket.bucketName } : {}),
        },
        statements: [
          ...tableStatements(table, consumer.keys),
          // What the event source mapping reads, on this table's stream only.
          new PolicyStatement({
            actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
            resources: [streamArn],
          }),
          // Lambda sends the description of a given-up batch with the function's role.
          new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }),
          ...(consumer.sendsMail ? props.mail!.statements() : []),
          ...(consumer.index ? indexStatements(consumer.index, props.index.bucket.bucketArn) : []),
        ],
      });
      if (consumer.index) acknowledgeIndexObjects(fn.role, props.index.arnInStack.nagName);
      // The destination only; the permission is the statement above (no grant on the role).
      const onFailure: IEventSourceDlq = { bind: () => ({ destination: queue.queueArn }) };
      new EventSourceMapping(this, `${consumer.name}-mapping`, {
        target: fn.function,
        eventSourceArn: streamArn,
        // From the oldest record on creation: nothing written before the mapping existed is missed.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: consumer.batchSize,
        retryAttempts: consumer.retryAttempts,
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        maxRecordAge: MAX_RECORD_AGE,
        onFailure,
        filters: [FilterCriteria.filter(filterPattern(consumer.filter))],
      });
      const queued = new Alarm(this, `${consumer.name}-failures-queued`, {
        alarmDescription: `Stream records the ${consumer.name} consumer gave up are waiting in its failure queue`,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      const errors = new Alarm(this, `${consumer.name}-errors`, {
        alarmDescription: `The ${consumer.name} stream consumer failed`,
        metric: fn.function.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      this.functions.set(consumer.name, fn);
      this.failures.set(consumer.name, { queue, queued, errors });
    }
  }
}
