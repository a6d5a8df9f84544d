/**
 * The in-memory index's objects (issue 19; shared/storage/index-objects.ts): a private bucket
 * (no public access, TLS only, S3-managed encryption, owner enforced, not versioned: a version of
 * a snapshot is a new key, written once) with no distribution — only the functions read it.
 * A lifecycle rule aborts multipart uploads left incomplete after a day (the module puts each
 * object whole, so there should be none; a stray one would be billed forever). The dev stage
 * empties and deletes the bucket with the stack; other stages keep it.
 *
 * Who may do what, on `index/*` only (indexStatements):
 * - `read`: s3:GetObject — a route whose declaration `uses: ['index-read']` (infra/aws/access.ts),
 *   a job declared with `index: 'read'` (functions/jobs/registry.ts);
 * - `compact`: s3:GetObject, s3:PutObject, s3:DeleteObject — the compactor (a job declared with
 *   `index: 'compact'`).
 * Both get s3:ListBucket on the bucket itself, without which S3 answers a GET of a missing key with
 * 403 AccessDenied instead of 404 NoSuchKey (getIndexObject's null; docs/decisions.md, "The index
 * bucket" S3), and INDEX_BUCKET in their environment. No other function has any permission on
 * the bucket.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import { Bucket, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { privateBucketProps } from './storage.js';
import { Construct } from 'constructs';
import { INDEX_PREFIX } from '../../shared/storage/index-objects.js';
import { acknowledge, REASONS } from './nag.js';

export interface IndexStorageProps {
  keepData: boolean;
}

export class IndexStorage extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: IndexStorageProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      ...privateBucketProps(props.keepData),
      lifecycleRules: [{ id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    });
    acknowledge(this.bucket, 'AwsSolutions-S1', REASONS.indexBucketAccessLogs);
  }

  /**
   * How a role in the bucket's own stack names its ARN (cdk-nag's `<LogicalId.Arn>`); roles in
   * nested stacks get it as the parameter INDEX_BUCKET_ARN_PARAMETER instead.
   */
  get arnInStack(): { nagName: string } {
    const logicalId = Stack.of(this.bucket).resolve((this.bucket.node.defaultChild as CfnBucket).logicalId) as string;
    return { nagName: `${logicalId}.Arn` };
  }
}

/** The parameter of a nested stack that holds the index bucket's ARN. */
export const INDEX_BUCKET_ARN_PARAMETER = 'IndexBucketArn';

/** What a function does with the index's objects: reads them (list functions), or also writes and deletes them (the compactor). */
export type IndexAccess = 'read' | 'compact';

export type IndexObjectAction = 's3:GetObject' | 's3:PutObject' | 's3:DeleteObject';

/** The object actions of each access. */
export const INDEX_ACTIONS: Readonly<Record<IndexAccess, readonly IndexObjectAction[]>> = {
  read: ['s3:GetObject'],
  compact: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
};

/** The actions on the objects under `index/`, given the bucket's ARN as the role's stack sees it. */
export function indexObjectsStatement(actions: readonly IndexObjectAction[], bucketArn: string): PolicyStatement {
  return new PolicyStatement({ actions: [...actions], resources: [`${bucketArn}/${INDEX_PREFIX}*`] });
}

/**
 * Listing the bucket, which holds nothing but index objects: only so that S3 answers a GET of a
 * missing key with 404 rather than 403 (docs/decisions.md, "The index bucket" J3). Whoever may
 * get every index object learns nothing more from their keys.
 */
export function indexBucketListStatement(bucketArn: string): PolicyStatement {
  return new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucketArn] });
}

/** Everything a function with this access gets on the bucket. */
export function indexStatements(access: IndexAccess, bucketArn: string): PolicyStatement[] {
  return [indexObjectsStatement(INDEX_ACTIONS[access], bucketArn), indexBucketListStatement(bucketArn)];
}

/**
 * The acknowledgement of the one wildcard of those statements (every key under `index/`: a
 * version of a kind is a new key), on the role that has it only; `nagName` is how cdk-nag names
 * the bucket's ARN in that role's template.
 */
export function acknowledgeIndexObjects(role: IRole, nagName: string): void {
  acknowledge(role, `AwsSolutions-IAM5[Resource::<${nagName}>/${INDEX_PREFIX}*]`, REASONS.indexObjects);
}
