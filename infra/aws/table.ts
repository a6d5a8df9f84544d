/**
 * The one table (DESIGN.md §4), built from its description in shared/db/table.ts, the same one
 * the local runtime creates: keys, TTL attribute and global secondary indexes are never
 * written here. On-demand, point-in-time recovery, streams with both images (stream consumers),
 * and, on every stage that keeps data, deletion protection and RETAIN.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE } from '../../shared/db/table.js';

export interface CatalogueTableProps {
  keepData: boolean;
}

export class CatalogueTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: CatalogueTableProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
      timeToLiveAttribute: TABLE.ttlAttribute,
      deletionProtection: props.keepData,
      removalPolicy: props.keepData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    for (const index of TABLE.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
  }
}
