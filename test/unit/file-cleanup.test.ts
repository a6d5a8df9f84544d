/**
 * The cleanup job's removal of stored files (functions/jobs/cleanup.ts runFileCleanup,
 * shared/db/files.ts) with DynamoDB mocked and a local S3 endpoint: the item that queues a file is written in the
 * deletion's transaction; the job deletes the file before its item, leaves the item when either
 * deletion fails (the next run repeats), and reads only what is due, page after page.
 */
import { DeleteCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { runFileCleanup } from '../../functions/jobs/cleanup.js';
import { FILE_KEYS, goneFilesPlan, keepUploadPlan } from '../../shared/db/files.js';
import { matchesKeyPattern } from '../../shared/db/key-patterns.js';
import { useS3Endpoint } from '../support/s3-endpoint.js';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = useS3Endpoint();

type Row = { pk: string; sk: string; keys: string[]; due_at: string };
let table: Map<string, Row>;
/** What happened, in order: `s3 <key>` and `item <keys>` deletions. */
let calls: string[];
/** The next item deletion fails (throttled). */
let failItemDelete: boolean;

const NOW = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000).toISOString();
const queue = (keys: string | string[], dueAt = at(-60)) => {
  const sk = `${dueAt}#${String(keys)}`;
  table.set(sk, { pk: 'FILE#GONE', sk, keys: [keys].flat(), due_at: dueAt });
};

beforeEach(() => {
  table = new Map();
  calls = [];
  failItemDelete = false;
  ddb.reset();
  s3.reset();
  ddb.on(QueryCommand).callsFake(async (input: Record<string, any>) => {
    const bound = input.ExpressionAttributeValues[':bound'] as string;
    const start = input.ExclusiveStartKey?.sk as string | undefined;
    const rows = [...table.values()].filter((r) => r.sk <= bound && (start === undefined || r.sk > start)).sort((a, b) => (a.sk < b.sk ? -1 : 1));
    const page = rows.slice(0, input.Limit);
    return { Items: page, ...(rows.length > input.Limit ? { LastEvaluatedKey: { pk: 'FILE#GONE', sk: page.at(-1)!.sk } } : {}) };
  });
  ddb.on(DeleteCommand).callsFake(async (input: Record<string, any>) => {
    if (failItemDelete) {
      failItemDelete = false;
      throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
    }
    calls.push(`item ${String(table.get(input.Key.sk)?.keys)}`);
    table.delete(input.Key.sk);
    return {};
  });
  s3.onRequest = (r) => void (r.method === 'DELETE' && calls.push(`s3 ${r.key}`));
});

describe('the items', () => {
  it('a deletion queues its files with one Put per 100 files in its own transaction (none for no file); an upload’s Picture deletes its guard', () => {
    const plan = goneFilesPlan(['pictures/p/AAAAAAAAAAAAAAAAAAAAAA.png', 'pictures/p/BBBBBBBBBBBBBBBBBBBBBB.webp'], NOW);
    expect(plan.items).toEqual([
      {
        Put: {
          TableName: 'unit-test-table',
          Item: { pk: 'FILE#GONE', sk: expect.stringMatching(new RegExp(`^${NOW.toISOString()}#[A-Za-z0-9_-]{22}$`)), keys: ['pictures/p/AAAAAAAAAAAAAAAAAAAAAA.png', 'pictures/p/BBBBBBBBBBBBBBBBBBBBBB.webp'], due_at: NOW.toISOString() },
        },
      },
    ]);
    expect(goneFilesPlan([]).items).toEqual([]);
    const many = goneFilesPlan(Array.from({ length: 250 }, (_, i) => `pictures/p/${i}.png`), NOW);
    expect(many.items.map((i: any) => i.Put.Item.keys.length)).toEqual([100, 100, 50]);
    expect(keepUploadPlan({ sk: 'x#k' }).items).toEqual([{ Delete: { TableName: 'unit-test-table', Key: { pk: 'FILE#GONE', sk: 'x#k' } } }]);
    expect(matchesKeyPattern('FILE#GONE', FILE_KEYS)).toBe(true);
  });
});

describe('runFileCleanup', () => {
  it('deletes the files of each due item, then the item; items not yet due stay', async () => {
    queue(['pictures/p/a.png', 'pictures/p/b.png']);
    queue('pictures/p/later.png', at(3600));
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ removed: 2 });
    expect(calls.slice(0, 2).sort()).toEqual(['s3 pictures/p/a.png', 's3 pictures/p/b.png']);
    expect(calls[2]).toBe('item pictures/p/a.png,pictures/p/b.png');
    expect([...table.values()].map((r) => r.keys)).toEqual([['pictures/p/later.png']]);
  });

  it('storage failing: the item stays for the next run, which deletes the file then', async () => {
    queue('pictures/p/a.png');
    s3.fail('drop', 3);
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ failed: 1 });
    expect(table.size).toBe(1);
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ removed: 1 });
    expect(table.size).toBe(0);
  });

  it('the item’s deletion failing after the file’s: the next run deletes the (missing) file again and the item', async () => {
    queue('pictures/p/a.png');
    failItemDelete = true;
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ failed: 1 });
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ removed: 1 });
    expect(s3.requests.filter((r) => r.method === 'DELETE')).toHaveLength(2);
    expect(table.size).toBe(0);
  });

  it('pages through every due file in one run; stops starting pages after the deadline', async () => {
    for (let i = 0; i < 60; i++) queue(`pictures/p/${String(i).padStart(2, '0')}.png`, at(-600 + i));
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ removed: 60 });
    for (let i = 0; i < 60; i++) queue(`pictures/q/${String(i).padStart(2, '0')}.png`, at(-600 + i));
    expect(await runFileCleanup({ clock: () => NOW, deadline: Date.now() - 1 })).toEqual({ removed: 25 });
  });
});
