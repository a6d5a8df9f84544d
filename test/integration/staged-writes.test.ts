/**
 * Writes larger than one transaction (shared/db/staged.ts) on the real engine: a write that
 * dies after its main plan leaves its journal, and the next write of the record finishes it
 * first; journals of writes that never committed are dropped; a batch is applied exactly once
 * even when two writers finish it at once; a deletion that dies after its main plan (no later
 * write will find its record) is finished by the relations consumer at the record's REMOVE.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AttributeValue, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/animes/routes.js';
import { animeIndex, animeTitle, type AnimeRecord } from '../../shared/db/animes.js';
import { queryIndex } from '../../shared/db/catalogue-index.js';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import { handler as relations } from '../../functions/streams/relations.js';
import { lambdaContext } from '../../infra/local/functions.js';
import { getItems } from '../../shared/db/batch.js';
import { commit, counterKeyOf, createRecord, recordKeyOfKind } from '../../shared/db/records.js';
import { genreEntity } from '../../shared/db/taxonomy.js';
import { finishJournal, stageJournal } from '../../shared/db/staged.js';
import { loadTitle, titleWrite } from '../../shared/db/titles.js';
import { animes } from '../../shared/domain/animes.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { createTitle, deleteTitle, updateTitle } from '../../shared/http/titles.js';
import { newId } from '../../shared/ids.js';
import { apiEvent, invokeApi } from '../support/lambda.js';

const CONTRIBUTOR = { status: 'user', user_id: 'contributor-1', username: 'contributor', role: 'contributor' } as const;
const create = createHandler(routes.create, createTitle(animes), { rateLimits: requestLimits });
const patch = createHandler(routes.patch, updateTitle(animes, 'merge'), { rateLimits: requestLimits });
const remove = createHandler(routes.delete, deleteTitle(animes), { rateLimits: requestLimits });

async function post(body: Record<string, unknown>): Promise<AnimeRecord> {
  const event = apiEvent('api/genres-create.json', { authorizer: CONTRIBUTOR as never, body: JSON.stringify(body) });
  event.rawPath = '/api/animes/';
  event.routeKey = 'POST /api/animes/';
  const res = await invokeApi(create, event);
  expect(res.status, res.raw).toBe(201);
  return res.body as AnimeRecord;
}

async function patchName(id: string, name: string) {
  const event = apiEvent('api/genres-create.json', { authorizer: CONTRIBUTOR as never, body: JSON.stringify({ name }) });
  event.requestContext.http.method = 'PATCH';
  event.rawPath = `/api/animes/${id}/`;
  event.routeKey = 'PATCH /api/animes/{id}/';
  event.pathParameters = { id };
  return invokeApi(patch, event);
}

const find = async (term: string) =>
  (await queryIndex(animeIndex, counterKeyOf(animeTitle.entity), { ordering: 'name', descending: false, limit: 100, cursor: null, terms: [term], equals: {} })).entries.map((e) => e.id);

const journalItems = async (id: string, prefix = 'J#') =>
  (await db().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :j)', ExpressionAttributeValues: { ':pk': `ANIME#${id}`, ':j': prefix }, ConsistentRead: true }))).Items ?? [];

/** Makes every journal batch (a transaction that deletes a journal item) fail as an engine outage would, until the returned function is called. */
function failJournalBatches(): () => void {
  const name = `fail-journal-${Math.random()}`;
  const isJournal = (k: { sk?: unknown } | undefined) => /^J#/.test(typeof k?.sk === 'string' ? k.sk : String((k?.sk as { S?: string } | undefined)?.S));
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const items = ((args.input as { TransactItems?: { Delete?: { Key?: { sk?: unknown } } }[] }).TransactItems ?? []);
      if (String(context.commandName).startsWith('TransactWrite') && items.some((t) => isJournal(t.Delete?.Key))) {
        throw Object.assign(new Error('injected engine failure'), { name: 'InternalServerError', $fault: 'server' });
      }
      return next(args);
    },
    { step: 'initialize', name, priority: 'high' },
  );
  return () => void db().middlewareStack.remove(name);
}

/** A rename whose main plan commits while its journal batches are never applied (the writer died). */
async function interruptedRename(id: string, name: string) {
  const before = (await loadTitle(animeTitle, id))!;
  const after = { ...before.record, name, updated_at: new Date().toISOString() };
  const plan = titleWrite(animeTitle, before, { after, relations: before.relations, links: [] });
  await stageJournal(plan.rest, plan.pk, plan.rev, plan.write);
  await commit(plan.main);
  return plan;
}

describe('staged writes', () => {
  it('an interrupted write is finished by the next write of the record, before it reads', async () => {
    const word = `zz${newId().slice(0, 6).toLowerCase().replace(/[^a-z]/g, 'q')}`;
    const a = await post({ name: `Old ${word}` });
    await interruptedRename(a.id, `New ${word}x`);
    expect(await journalItems(a.id)).not.toEqual([]);
    // The index is behind: the new name's words are not found yet.
    expect(await find(`${word}x`)).toEqual([]);
    const res = await patchName(a.id, `Newer ${word}y`);
    expect(res.status, res.raw).toBe(200);
    expect(await journalItems(a.id)).toEqual([]);
    expect(await find(`${word}y`)).toEqual([a.id]);
    expect(await find(`${word}x`)).toEqual([]);
    expect(await find('old')).not.toContain(a.id);
  });

  it('journals of writes that never committed are dropped; those of later revisions are left', async () => {
    const a = await post({ name: `Drop ${newId()}` });
    const stored = (await loadTitle(animeTitle, a.id))!;
    const plan = titleWrite(animeTitle, stored, { after: { ...stored.record, name: `Never ${newId()}` }, relations: stored.relations, links: [] });
    const staged = await stageJournal(plan.rest, plan.pk, plan.rev, plan.write);
    // In flight (revision ahead of the record): left alone.
    expect(await finishJournal(staged, stored.rev, stored.write)).toBe(false);
    expect(await journalItems(a.id)).toHaveLength(staged.length);
    // The record moved on to that revision by another write: dropped.
    expect(await finishJournal(staged, plan.rev, 'another-write')).toBe(false);
    expect(await journalItems(a.id)).toEqual([]);
  });

  it('two writers finishing the same journal apply each batch once', async () => {
    const word = `yy${newId().slice(0, 6).toLowerCase().replace(/[^a-z]/g, 'q')}`;
    const a = await post({ name: `Twice ${word}` });
    const plan = await interruptedRename(a.id, `Twice ${word}z`);
    const stored = (await loadTitle(animeTitle, a.id))!;
    expect(stored.write).toBe(plan.write);
    await Promise.all([finishJournal(stored.journal, stored.rev, stored.write), finishJournal(stored.journal, stored.rev, stored.write)]);
    expect(await journalItems(a.id)).toEqual([]);
    expect(await find(`${word}z`)).toEqual([a.id]);
  });

  it('a deletion that dies after its main plan is finished by the relations consumer at the REMOVE: index items gone, counts down', async () => {
    const now = new Date().toISOString();
    const genre = await createRecord(genreEntity, { id: newId(), name: `Staged ${newId()}`, description: '', anime_count: 0, manga_count: 0, created_at: now, updated_at: now });
    const word = `ww${newId().slice(0, 6).toLowerCase().replace(/[^a-z]/g, 'q')}`;
    // More index items than a transaction holds: every kanji of the Japanese name starts a word.
    const name_jpn = Array.from({ length: 60 }, (_, i) => String.fromCodePoint(0x4e00 + i * 13)).join('');
    const a = await post({ name: `Gone ${word}`, name_jpn, genre_ids: [genre.record.id] });
    const count = async () => ((await getItems([recordKeyOfKind('GENRE', genre.record.id)]))[0]!.rec as { anime_count: number }).anime_count;
    expect(await count()).toBe(1);
    const [stored] = await getItems([recordKeyOfKind('ANIME', a.id)]);
    const restore = failJournalBatches();
    try {
      const event = apiEvent('api/genres-create.json', { authorizer: CONTRIBUTOR as never, body: null });
      Object.assign(event, { rawPath: `/api/animes/${a.id}/`, routeKey: 'DELETE /api/animes/{id}/', pathParameters: { id: a.id } });
      event.requestContext.http.method = 'DELETE';
      expect((await invokeApi(remove, event)).status).toBe(503);
    } finally {
      restore();
    }
    // The record is gone; its index items, the genre's count and the journal with its marker are left.
    expect(await getItems([recordKeyOfKind('ANIME', a.id)])).toEqual([null]);
    expect(await find(word)).toEqual([a.id]);
    expect(await count()).toBe(1);
    expect(await journalItems(a.id)).not.toEqual([]);
    expect(await journalItems(a.id, 'W')).toHaveLength(1);

    const removed: DynamoDBStreamEvent = {
      Records: [{ eventName: 'REMOVE', dynamodb: { SequenceNumber: '1', Keys: { pk: { S: `ANIME#${a.id}` }, sk: { S: 'R' } }, OldImage: marshall(stored, { removeUndefinedValues: true }) as Record<string, AttributeValue> } }],
    };
    expect(await relations(removed, lambdaContext('stream.relations', 900_000))).toEqual({ batchItemFailures: [] });
    expect(await find(word)).toEqual([]);
    expect(await count()).toBe(0);
    expect(await journalItems(a.id)).toEqual([]);
    expect(await journalItems(a.id, 'W')).toEqual([]);
  });
});
