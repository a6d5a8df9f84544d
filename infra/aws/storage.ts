/**
 * Uploaded pictures (person pictures, API.md §4.9): a private bucket (no public access, TLS only,
 * S3-managed encryption) and its public read path, a CloudFront distribution of its own that
 * reads the bucket through Origin Access Control (the bucket policy lets only this distribution
 * get objects) and serves them over HTTPS only, GET and HEAD, cached as the objects say
 * (shared/storage/pictures.ts: one day; keys are never reused), with `X-Content-Type-Options:
 * nosniff` among the managed security headers. Its URL is the pictures' base URL.
 *
 * Not the API's edge distribution (edge.ts): that one exists only with `-c edge=true`, caches
 * nothing, and its AWS WAF rules count every request against the API's anonymous limit, which
 * a page of pictures would exhaust (docs/decisions.md 70).
 *
 * Who may write: only functions whose route declares `uses: ['picture-storage']` get
 * s3:PutObject under `pictures/`; the cleanup job gets s3:DeleteObject there (pictureObjectsStatement).
 * No function gets read, list or any other action on the bucket. The dev stage empties and
 * deletes the bucket with the stack; other stages keep it.
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AllowedMethods, CachePolicy, Distribution, HttpVersion, ResponseHeadersPolicy, ViewerProtocolPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type BucketProps, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { PICTURES_PREFIX } from '../../shared/storage/pictures.js';
import { acknowledge, REASONS } from './nag.js';

export interface PictureStorageProps {
  keepData: boolean;
  stage: string;
}

/**
 * A private bucket's properties (the pictures' and the index's): no public access, TLS only,
 * S3-managed encryption, owner enforced, not versioned (keys are never reused); kept on stages
 * that keep data, emptied and deleted with the stack otherwise.
 */
export function privateBucketProps(keepData: boolean): BucketProps {
  return {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    versioned: false,
    removalPolicy: keepData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    autoDeleteObjects: !keepData,
  };
}

export class PictureStorage extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: PictureStorageProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', privateBucketProps(props.keepData));
    acknowledge(this.bucket, 'AwsSolutions-S1', REASONS.pictureBucketAccessLogs);

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `catalogue-api-${props.stage}: uploaded pictures (read-only)`,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED_FOR_UNCOMPRESSED_OBJECTS,
        responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
        compress: false,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
    });
    acknowledge(this.distribution, 'AwsSolutions-CFR1', REASONS.picturesGeoRestriction);
    acknowledge(this.distribution, 'AwsSolutions-CFR2', REASONS.picturesWaf);
    acknowledge(this.distribution, 'AwsSolutions-CFR3', REASONS.picturesAccessLogs);
    acknowledge(this.distribution, 'AwsSolutions-CFR4', REASONS.picturesDefaultCertificate);
  }

  /** `https://<distribution domain>`: PICTURES_BASE_URL. */
  get baseUrl(): string {
    return `https://${this.distribution.distributionDomainName}`;
  }

  /**
   * How a role in the bucket's own stack names its ARN (cdk-nag's `<LogicalId.Arn>`); roles in
   * nested stacks get it as the parameter PICTURES_BUCKET_ARN_PARAMETER instead.
   */
  get arnInStack(): { nagName: string } {
    const logicalId = Stack.of(this.bucket).resolve((this.bucket.node.defaultChild as CfnBucket).logicalId) as string;
    return { nagName: `${logicalId}.Arn` };
  }
}

/** The parameter of a nested stack that holds the pictures bucket's ARN. */
export const PICTURES_BUCKET_ARN_PARAMETER = 'PicturesBucketArn';

/**
 * A function's access to picture files: the one action (s3:PutObject for the upload route,
 * s3:DeleteObject for the cleanup job) on the objects under `pictures/`, given the bucket's ARN
 * as the role's stack sees it.
 */
export function pictureObjectsStatement(action: 's3:PutObject' | 's3:DeleteObject', bucketArn: string): PolicyStatement {
  return new PolicyStatement({ actions: [action], resources: [`${bucketArn}/${PICTURES_PREFIX}*`] });
}

/**
 * The acknowledgement of the one wildcard of that statement (every key under `pictures/`: each
 * upload gets a new key), on the role that has it only; `nagName` is how cdk-nag names the
 * bucket's ARN in that role's template.
 */
export function acknowledgePictureObjects(role: IRole, nagName: string): void {
  acknowledge(role, `AwsSolutions-IAM5[Resource::<${nagName}>/${PICTURES_PREFIX}*]`, REASONS.pictureObjects);
}
