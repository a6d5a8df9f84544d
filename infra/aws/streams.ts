/**
 * DynamoDB Streams consumers (DESIGN.md §5): one function and one event source mapping on the
 * table's stream per declaration of functions/streams/registry.ts, with the declaration's
 * filter, batch size and retries, and partial batch responses (ReportBatchItemFailures). A
 * consumer that sends e-mail is created only when the stage has a sender (MailIdentity).
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EventSourceMapping, FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { StreamConsumerDecl, StreamFilter } from '../../functions/streams/registry.js';
import { TABLE_READ, TABLE_WRITE } from './access.js';
import type { MailIdentity } from './email.js';
import { CatalogueFunction, ENV, tableStatement } from './function.js';

export interface StreamConsumersProps {
  consumers: readonly StreamConsumerDecl[];
  table: ITable;
  environment: Record<string, string>;
  logRemovalPolicy: RemovalPolicy;
  /** The stage's sender; consumers that send e-mail are left out without one. */
  mail?: MailIdentity;
}

/** The mapping's filter pattern for a declared filter. */
export function filterPattern(filter: StreamFilter): Record<string, unknown> {
  const keys = Object.fromEntries(
    Object.entries(filter.keys).map(([name, p]) => [name, { S: 'equals' in p ? FilterRule.isEqual(p.equals) : FilterRule.beginsWith(p.prefix) }]),
  );
  return { eventName: FilterRule.or(...filter.events), dynamodb: { Keys: keys } };
}

export class StreamConsumers extends Construct {
  readonly functions = new Map<string, CatalogueFunction>();

  constructor(scope: Construct, id: string, props: StreamConsumersProps) {
    super(scope, id);
    const { table } = props;
    const streamArn = table.tableStreamArn;
    if (!streamArn) throw new Error('the table has no stream');
    for (const consumer of props.consumers) {
      if (!/^[a-z0-9-]+$/.test(consumer.name)) throw new Error(`stream consumer name "${consumer.name}" must match [a-z0-9-]+`);
      if (this.functions.has(consumer.name)) throw new Error(`stream consumer "${consumer.name}" is declared twice`);
      if (consumer.sendsMail && !props.mail) continue;
      const fn = new CatalogueFunction(this, consumer.name, {
        entry: consumer.entry,
        component: `stream.${consumer.name}`,
        description: consumer.description,
        timeout: Duration.seconds(60),
        logRemovalPolicy: props.logRemovalPolicy,
        environment: { ...props.environment, [ENV.table]: table.tableName, ...(consumer.sendsMail ? props.mail!.environment() : {}) },
        statements: [
          tableStatement(table, [...TABLE_READ, ...TABLE_WRITE]),
          // What the event source mapping reads, on this table's stream only.
          new PolicyStatement({
            actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
            resources: [streamArn],
          }),
          ...(consumer.sendsMail ? [props.mail!.sendStatement()] : []),
        ],
      });
      new EventSourceMapping(this, `${consumer.name}-mapping`, {
        target: fn.function,
        eventSourceArn: streamArn,
        // From the oldest record on creation: nothing written before the mapping existed is missed.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: consumer.batchSize,
        retryAttempts: consumer.retryAttempts,
        reportBatchItemFailures: true,
        filters: [FilterCriteria.filter(filterPattern(consumer.filter))],
      });
      this.functions.set(consumer.name, fn);
    }
  }
}
