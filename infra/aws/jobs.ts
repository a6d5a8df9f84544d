/**
 * Scheduled jobs (DESIGN.md §5): one function and one EventBridge rule per declaration of
 * functions/jobs/registry.ts. Jobs refresh derived data, so they may read and write the items
 * their declaration names (`keys`).
 * A job that sends e-mail (the outbox) is created only when the stage has a sender; a job that
 * deletes stored files (the cleanup) may delete picture files and nothing else of the bucket; a
 * job declared with `index` may read (or, `compact`, also write and delete) the index's objects.
 * Each job has a failure alarm, as each stream consumer has (streams.ts): an error of its function
 * (a run that threw — e.g. a season refresh or airing status run that left titles unwritten —
 * or timed out; API.md §5.5: the previous results stay in place).
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import type { JobDecl } from '../../functions/jobs/registry.js';
import type { MailIdentity } from './email.js';
import { acknowledgeIndexObjects, indexStatements, type IndexStorage } from './index-storage.js';
import { acknowledgePictureObjects, pictureObjectsStatement, type PictureStorage } from './storage.js';
import { CatalogueFunction, ENV, tableStatements } from './function.js';

export interface ScheduledJobsProps {
  jobs: readonly JobDecl[];
  table: ITable;
  environment: Record<string, string>;
  logRemovalPolicy: RemovalPolicy;
  /** The stage's sender; jobs that send e-mail are left out without one. */
  mail?: MailIdentity;
  /** The pictures bucket, for jobs that delete stored files (only the bucket's name and s3:DeleteObject). */
  pictures: PictureStorage;
  /** The index bucket, for jobs declared with `index` (its name and the actions of index-storage.ts indexStatements). */
  index: IndexStorage;
}

export class ScheduledJobs extends Construct {
  readonly functions = new Map<string, CatalogueFunction>();
  /** Each job's failure alarm, by name. */
  readonly alarms = new Map<string, Alarm>();

  constructor(scope: Construct, id: string, props: ScheduledJobsProps) {
    super(scope, id);
    for (const job of props.jobs) {
      if (!/^[a-z0-9-]+$/.test(job.name)) throw new Error(`job name "${job.name}" must match [a-z0-9-]+`);
      if (this.functions.has(job.name)) throw new Error(`job "${job.name}" is declared twice`);
      if (job.sendsMail && !props.mail) continue;
      const fn = new CatalogueFunction(this, job.name, {
        entry: job.entry,
        component: `job.${job.name}`,
        description: job.description ?? `Scheduled job ${job.name} (${job.schedule})`,
        timeout: Duration.minutes(job.timeoutMinutes ?? 5),
        ...(job.memoryMB === undefined ? {} : { memorySize: job.memoryMB }),
        logRemovalPolicy: props.logRemovalPolicy,
        environment: {
          ...props.environment,
          [ENV.table]: props.table.tableName,
          ...(job.sendsMail ? props.mail!.environment() : {}),
          ...(job.deletesFiles ? { [ENV.picturesBucket]: props.pictures.bucket.bucketName } : {}),
          ...(job.index ? { [ENV.indexBucket]: props.index.bucket.bucketName } : {}),
        },
        statements: [
          ...tableStatements(props.table, job.keys),
          ...(job.sendsMail ? props.mail!.statements() : []),
          ...(job.deletesFiles ? [pictureObjectsStatement('s3:DeleteObject', props.pictures.bucket.bucketArn)] : []),
          ...(job.index ? indexStatements(job.index, props.index.bucket.bucketArn) : []),
        ],
      });
      if (job.deletesFiles) acknowledgePictureObjects(fn.role, props.pictures.arnInStack.nagName);
      if (job.index) acknowledgeIndexObjects(fn.role, props.index.arnInStack.nagName);
      new Rule(this, `${job.name}-schedule`, {
        description: `Runs the ${job.name} job`,
        schedule: Schedule.expression(job.schedule),
        targets: [new LambdaFunction(fn.function, { retryAttempts: 2 })],
      });
      this.alarms.set(
        job.name,
        new Alarm(this, `${job.name}-errors`, {
          alarmDescription: `A run of the ${job.name} job failed`,
          metric: fn.function.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
      this.functions.set(job.name, fn);
    }
  }
}
