/**
 * Uploaded pictures (person pictures, API.md §4.9): a private bucket, reached only through the
 * upload function (which gets s3:PutObject on it when it exists). No public access, TLS only,
 * S3-managed encryption. The dev stage empties and deletes it with the stack; other stages
 * keep it.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { acknowledge, REASONS } from './nag.js';

export interface PictureStorageProps {
  keepData: boolean;
}

export class PictureStorage extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: PictureStorageProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      removalPolicy: props.keepData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      autoDeleteObjects: !props.keepData,
    });
    acknowledge(this.bucket, 'AwsSolutions-S1', REASONS.pictureBucketAccessLogs);
  }
}
