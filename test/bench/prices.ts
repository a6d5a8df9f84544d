/**
 * The AWS prices the cost model of the bench uses (`cost` section, issue 9 §5): US East (N.
 * Virginia), on-demand, public list prices without free tier, as published on the services' pricing
 * pages (https://aws.amazon.com/<service>/pricing/) on the date below. They are inputs: change them
 * here (or per region) and the report follows.
 */
export const PRICES = {
  date: '2025-11-01',
  region: 'us-east-1',
  /** API Gateway HTTP API: per million requests (first 300 million a month), metered per 512 KB. */
  httpApiPerMillion: 1.0,
  /** Lambda, arm64: per GB-second of duration (init included since 2025-08-01), per million requests. */
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  /** DynamoDB on-demand (after the November 2024 reduction): per million read / write request units. */
  dynamoPerMillionRru: 0.125,
  dynamoPerMillionWru: 0.625,
  /** DynamoDB storage and continuous backups (PITR), per GB-month. */
  dynamoStorageGbMonth: 0.25,
  dynamoPitrGbMonth: 0.2,
  /** CloudWatch Logs ingestion (standard class), per GB. */
  logsIngestPerGb: 0.5,
  /** Data transfer out to the internet, first 10 TB a month, per GB. */
  transferOutPerGb: 0.09,
  /** SES: per 1,000 e-mails. */
  sesPer1000: 0.1,
  /**
   * S3 Standard: PUT (and COPY, POST, LIST) per 1,000 requests, GET (and SELECT and the rest) per
   * 1,000 requests, storage per GB-month. DELETE requests are free, and so is the transfer to a
   * function in the same region.
   */
  s3PutPer1000: 0.005,
  s3GetPer1000: 0.0004,
  s3StorageGbMonth: 0.023,
  /** Secrets Manager: per secret-month and per 10,000 API calls. */
  secretMonth: 0.4,
  secretsPer10000Calls: 0.05,
} as const;

/**
 * Lambda gives a function CPU in proportion to its memory: one full vCPU at 1,769 MB (AWS Lambda
 * documentation, "Configuring Lambda function memory"). A single-threaded Node.js handler gains
 * nothing above it.
 */
export const LAMBDA_FULL_VCPU_MB = 1769;
/** The memory sizes the model chooses from (MB). */
export const LAMBDA_MEMORY_STEPS = [128, 192, 256, 384, 512, 768, 1024, 1536, 1769, 2048] as const;
