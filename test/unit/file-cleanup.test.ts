/**
 * The cleanup job's removal of stored files (functions/jobs/cleanup.ts runFileCleanup,
 * shared/db/files.ts) with DynamoDB and S3 mocked: the item that queues a file is written in the
 * deletion's transaction; the job deletes the file before its item, leaves the item when either
 * deletion fails (the next run repeats), and reads only what is due, page after page.
 */
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DeleteCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { runFileCleanup } from '../../functions/jobs/cleanup.js';
import { FILE_KEYS, goneFilePlan, keepUploadPlan } from '../../shared/db/files.js';
import { matchesKeyPattern } from '../../shared/db/key-patterns.js';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);

type Row = { pk: string; sk: string; key: string; due_at: string };
let table: Map<string, Row>;
/** What happened, in order: `s3 <key>` and `item <key>` deletions. */
let calls: string[];
/** The next item deletion fails (throttled). */
let failItemDelete: boolean;

const NOW = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000).toISOString();
const queue = (key: string, dueAt = at(-60)) => table.set(`${dueAt}#${key}`, { pk: 'FILE#GONE', sk: `${dueAt}#${key}`, key, due_at: dueAt });

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
    calls.push(`item ${table.get(input.Key.sk)?.key}`);
    table.delete(input.Key.sk);
    return {};
  });
  s3.on(DeleteObjectCommand).callsFake(async (input: Record<string, any>) => {
    calls.push(`s3 ${input.Key}`);
    return {};
  });
});

describe('the items', () => {
  it('a deletion queues its file with a Put in its own transaction; an upload’s Picture deletes its guard', () => {
    const plan = goneFilePlan('pictures/p/AAAAAAAAAAAAAAAAAAAAAA.png', NOW);
    expect(plan.items).toEqual([{ Put: { TableName: 'unit-test-table', Item: { pk: 'FILE#GONE', sk: `${NOW.toISOString()}#pictures/p/AAAAAAAAAAAAAAAAAAAAAA.png`, key: 'pictures/p/AAAAAAAAAAAAAAAAAAAAAA.png', due_at: NOW.toISOString() } } }]);
    expect(keepUploadPlan({ sk: 'x#k' }).items).toEqual([{ Delete: { TableName: 'unit-test-table', Key: { pk: 'FILE#GONE', sk: 'x#k' } } }]);
    expect(matchesKeyPattern('FILE#GONE', FILE_KEYS)).toBe(true);
  });
});

describe('runFileCleanup', () => {
  it('deletes each due file, then its item; files not yet due stay', async () => {
    queue('pictures/p/a.png');
    queue('pictures/p/later.png', at(3600));
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ removed: 1 });
    expect(calls).toEqual(['s3 pictures/p/a.png', 'item pictures/p/a.png']);
    expect([...table.values()].map((r) => r.key)).toEqual(['pictures/p/later.png']);
  });

  it('storage failing: the item stays for the next run, which deletes the file then', async () => {
    queue('pictures/p/a.png');
    s3.on(DeleteObjectCommand).rejectsOnce(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ failed: 1 });
    expect(table.size).toBe(1);
    s3.on(DeleteObjectCommand).resolves({});
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ removed: 1 });
    expect(table.size).toBe(0);
  });

  it('the item’s deletion failing after the file’s: the next run deletes the (missing) file again and the item', async () => {
    queue('pictures/p/a.png');
    failItemDelete = true;
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ failed: 1 });
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ removed: 1 });
    expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(2);
    expect(table.size).toBe(0);
  });

  it('pages through every due file in one run; stops starting pages after the deadline', async () => {
    for (let i = 0; i < 60; i++) queue(`pictures/p/${String(i).padStart(2, '0')}.png`, at(-600 + i));
    expect(await runFileCleanup({ clock: () => NOW })).toEqual({ removed: 60 });
    for (let i = 0; i < 60; i++) queue(`pictures/q/${String(i).padStart(2, '0')}.png`, at(-600 + i));
    expect(await runFileCleanup({ clock: () => NOW, deadline: Date.now() - 1 })).toEqual({ removed: 25 });
  });
});
