/**
 * Writes larger than one transaction (shared/db/staged.ts) on the real engine — the journal
 * holds what may follow the record: the count decrements of the links it drops (and chunk
 * deletions): a write that dies after its main plan leaves its journal,
 * and the next write of the record finishes it first; journals of writes that never committed
 * are dropped; a batch is applied exactly once even when two writers finish it at once; a
 * deletion that dies after its main plan (no later write will find its record) has left the
 * lists at once (its index delta is in the main plan) and is finished by the relations consumer
 * at the record's REMOVE.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AttributeValue, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/animes/routes.js';
import { animeIndex, animeTitle, type AnimeRecord } from '../../shared/db/animes.js';
import { readHead } from '../../shared/db/index-deltas.js';
import { indexPage } from '../../shared/domain/index-reader.js';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import { handler as relations } from '../../functions/streams/relations.js';
import { lambdaContext } from '../../infra/local/functions.js';
import { getItems } from '../../shared/db/batch.js';
import { commit, createRecord, recordKeyOfKind } from '../../shared/db/records.js';
import { genreEntity, producerEntity, themeEntity } from '../../shared/db/taxonomy.js';
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

/** Whether the anime index lists the anime (its deltas, read as a list function reads them). */
const listed = async (id: string) => (await indexPage(animeIndex, { ordering: 'name', descending: false, limit: 1_000, cursor: null, terms: [], equals: {} })).entries.some((e) => e.id === id);

/** `n` new genres; their `anime_count`s, read now. */
async function genres(n: number): Promise<string[]> {
  const now = new Date().toISOString();
  return Promise.all(Array.from({ length: n }, async () => (await createRecord(genreEntity, { id: newId(), name: `Staged ${newId()}`, description: '', explicit: false, anime_count: 0, manga_count: 0, created_at: now, updated_at: now })).record.id));
}
const counts = async (ids: readonly string[]) => (await getItems(ids.map((id) => recordKeyOfKind('GENRE', id)))).map((g) => (g!.rec as { anime_count: number }).anime_count);

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

/**
 * A write that drops every genre of the anime (and renames it), whose main plan commits while its
 * journal — the dropped links' count decrements, which may follow the record — is never
 * applied (the writer died).
 */
async function interruptedDrop(id: string, name: string) {
  const before = (await loadTitle(animeTitle, id))!;
  const after = { ...before.record, name, genres: [], updated_at: new Date().toISOString() };
  const plan = titleWrite(animeTitle, before, { after, relations: before.relations, links: animes.links!(before.record, after), deltaHead: await readHead('ANIME') });
  expect(plan.rest.items.length).toBeGreaterThan(0);
  await stageJournal(plan.rest, plan.pk, plan.rev, plan.write);
  await commit(plan.main);
  return plan;
}

describe('staged writes', () => {
  it('an interrupted write is finished by the next write of the record, before it reads', async () => {
    const ids = await genres(3);
    const a = await post({ name: `Old ${newId()}`, genre_ids: ids });
    expect(await counts(ids)).toEqual([1, 1, 1]);
    await interruptedDrop(a.id, `New ${newId()}`);
    expect(await journalItems(a.id)).not.toEqual([]);
    // The counts are behind: the decrements wait in the journal.
    expect(await counts(ids)).toEqual([1, 1, 1]);
    const res = await patchName(a.id, `Newer ${newId()}`);
    expect(res.status, res.raw).toBe(200);
    expect(await journalItems(a.id)).toEqual([]);
    expect(await counts(ids)).toEqual([0, 0, 0]);
  });

  it('journals of writes that never committed are dropped; those of later revisions are left', async () => {
    const ids = await genres(2);
    const a = await post({ name: `Drop ${newId()}`, genre_ids: ids });
    const stored = (await loadTitle(animeTitle, a.id))!;
    const after = { ...stored.record, genres: [] };
    const plan = titleWrite(animeTitle, stored, { after, relations: stored.relations, links: animes.links!(stored.record, after) });
    const staged = await stageJournal(plan.rest, plan.pk, plan.rev, plan.write);
    // In flight (revision ahead of the record): left alone.
    expect(await finishJournal(staged, stored.rev, stored.write)).toBe(false);
    expect(await journalItems(a.id)).toHaveLength(staged.length);
    // The record moved on to that revision by another write: dropped.
    expect(await finishJournal(staged, plan.rev, 'another-write')).toBe(false);
    expect(await journalItems(a.id)).toEqual([]);
    expect(await counts(ids)).toEqual([1, 1]);
  });

  it('two writers finishing the same journal apply each batch once', async () => {
    const ids = await genres(3);
    const a = await post({ name: `Twice ${newId()}`, genre_ids: ids });
    const plan = await interruptedDrop(a.id, `Twice ${newId()}`);
    const stored = (await loadTitle(animeTitle, a.id))!;
    expect(stored.write).toBe(plan.write);
    await Promise.all([finishJournal(stored.journal, stored.rev, stored.write), finishJournal(stored.journal, stored.rev, stored.write)]);
    expect(await journalItems(a.id)).toEqual([]);
    expect(await counts(ids)).toEqual([0, 0, 0]);
  });

  it('a deletion that dies after its main plan leaves the lists at once and is finished by the relations consumer at the REMOVE: counts down', async () => {
    // More lost links than a transaction holds with the deletion's main plan: 20 genres, 20 themes, 50 producers (the maxima).
    const now = new Date().toISOString();
    const ids = await genres(20);
    const themes = await Promise.all(Array.from({ length: 20 }, async () => (await createRecord(themeEntity, { id: newId(), name: `Staged ${newId()}`, description: '', explicit: false, anime_count: 0, manga_count: 0, created_at: now, updated_at: now })).record.id));
    const producer = async (type: string) =>
      (await createRecord(producerEntity, { id: newId(), name: `Staged ${newId()}`, name_jpn: '', type, about: '', established: null, image: null, website: null, anime_count: 0, created_at: now, updated_at: now }, { studio_credits: 0, producer_credits: 0, licensor_credits: 0 })).record.id;
    const [studios, networks, licensors] = await Promise.all(([['studio', 10], ['network', 30], ['licensor', 10]] as const).map(([type, n]) => Promise.all(Array.from({ length: n }, () => producer(type)))));
    // With videos and pictures, whose chunks go in the deletion's main plan: more than 100 items with the lost links.
    const a = await post({
      name: `Gone ${newId()}`,
      genre_ids: ids,
      theme_ids: themes,
      studio_ids: studios,
      producer_ids: networks,
      licensor_ids: licensors,
      videos: [{ title: 'PV', url: 'https://v.example/1', kind: 'trailer' }],
      pictures: [{ url: 'https://p.example/1' }],
    });
    expect(await counts(ids)).toEqual(ids.map(() => 1));
    const [stored] = await getItems([recordKeyOfKind('ANIME', a.id)]);
    expect(await listed(a.id)).toBe(true);
    const restore = failJournalBatches();
    try {
      const event = apiEvent('api/genres-create.json', { authorizer: CONTRIBUTOR as never, body: null });
      Object.assign(event, { rawPath: `/api/animes/${a.id}/`, routeKey: 'DELETE /api/animes/{id}/', pathParameters: { id: a.id } });
      event.requestContext.http.method = 'DELETE';
      expect((await invokeApi(remove, event)).status).toBe(503);
    } finally {
      restore();
    }
    // The record is gone, and so is its entry in the lists (its delta is in the main plan); the
    // counts and the journal with its marker are left.
    expect(await getItems([recordKeyOfKind('ANIME', a.id)])).toEqual([null]);
    expect(await listed(a.id)).toBe(false);
    expect(await counts(ids)).toEqual(ids.map(() => 1));
    expect(await journalItems(a.id)).not.toEqual([]);
    expect(await journalItems(a.id, 'W')).toHaveLength(1);

    const removed: DynamoDBStreamEvent = {
      Records: [{ eventName: 'REMOVE', dynamodb: { SequenceNumber: '1', Keys: { pk: { S: `ANIME#${a.id}` }, sk: { S: 'R' } }, OldImage: marshall(stored, { removeUndefinedValues: true }) as Record<string, AttributeValue> } }],
    };
    expect(await relations(removed, lambdaContext('stream.relations', 900_000))).toEqual({ batchItemFailures: [] });
    expect(await counts(ids)).toEqual(ids.map(() => 0));
    expect(await journalItems(a.id)).toEqual([]);
    expect(await journalItems(a.id, 'W')).toEqual([]);
  });
});
