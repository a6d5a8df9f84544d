/**
 * The one table of the service (API.md, DESIGN.md §4), described once. The CDK stack and the
 * local runtime both create it from this description. Keys are generic (`pk`, `sk`); every
 * entity module in this folder documents the items it writes (see docs/data-model.md).
 */
export const TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Items with this attribute (epoch seconds) are removed by DynamoDB TTL. */
  ttlAttribute: 'expires_at',
  /** No global secondary index yet: every access pattern is served by base-table items. */
  globalSecondaryIndexes: [] as { name: string; partitionKey: string; sortKey: string }[],
} as const;

/** CreateTable input for the local engine and tests (on-demand, streams with both images). */
export function createTableInput(name: string) {
  const attrs = new Set<string>([TABLE.partitionKey, TABLE.sortKey]);
  for (const g of TABLE.globalSecondaryIndexes) {
    attrs.add(g.partitionKey);
    attrs.add(g.sortKey);
  }
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [...attrs].map((a) => ({ AttributeName: a, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' as const },
    ],
    ...(TABLE.globalSecondaryIndexes.length > 0
      ? {
          GlobalSecondaryIndexes: TABLE.globalSecondaryIndexes.map((g) => ({
            IndexName: g.name,
            KeySchema: [
              { AttributeName: g.partitionKey, KeyType: 'HASH' as const },
              { AttributeName: g.sortKey, KeyType: 'RANGE' as const },
            ],
            Projection: { ProjectionType: 'ALL' as const },
          })),
        }
      : {}),
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' as const },
  };
}
