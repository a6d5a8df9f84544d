/**
 * Scheduled jobs (API.md §5.5, DESIGN.md §5): one declaration per job. The CDK app creates one
 * function and one EventBridge rule for each entry; the local scheduler (infra/local/scheduler.ts)
 * runs the same modules.
 * `cron(…)` times are UTC.
 */
import { FEED_WRITES } from '../../shared/db/feed.js';
import { FILE_KEYS } from '../../shared/db/files.js';
import { grant, grants, type KeyGrants } from '../../shared/db/key-patterns.js';
import { DELIVERY_KEYS, DUE_KEYS } from '../../shared/db/outbox.js';
import { RANKINGS_JOB_KEYS } from '../../shared/db/rankings.js';
import { RECOMMENDATION_KEYS } from '../../shared/db/recommendations.js';
import { SOURCE_KEYS } from '../../shared/db/sources.js';
import { titleKeys } from '../../shared/db/titles.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { PENDING_KEYS } from '../../shared/db/users.js';
import { animeTitle } from '../../shared/db/animes.js';
import { mangaTitle } from '../../shared/db/mangas.js';
import { characterTitle } from '../../shared/db/characters.js';
import { personTitle } from '../../shared/db/persons.js';
import { ACCOUNT_DELETION } from '../../shared/domain/accounts.js';
import { TITLE_ITEMS } from '../../shared/domain/title-resource.js';
import { COMPACTION_KEYS } from '../../shared/domain/index-compaction.js';
import { RANKINGS_INDEX_KEYS } from '../../shared/domain/rankings.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { JOURNALED_ANSWERS } from '../../shared/db/idempotency.js';

export interface JobDecl {
  /** Unique, `[a-z0-9-]+`: names the function and the rule. */
  name: string;
  /** The job's module, relative to the repository root; it exports `handler`. */
  entry: string;
  /** An EventBridge schedule expression: `rate(1 hour)` or `cron(0 3 * * ? *)` (UTC). */
  schedule: string;
  description?: string;
  /**
   * How often the local scheduler runs the job, in seconds (default: the period of a `rate(…)`
   * schedule; a `cron(…)` job needs this). LOCAL_JOB_PERIOD_SECONDS overrides it for every job.
   */
  localPeriodSeconds?: number;
  /** The job sends e-mail (needs the sender settings and SES permission). */
  sendsMail?: boolean;
  /** The job deletes stored picture files (needs the bucket's name and s3:DeleteObject under `pictures/`, nothing else of the bucket). */
  deletesFiles?: boolean;
  /**
   * The job uses the in-memory index's objects (shared/storage/index-objects.ts): `read` loads
   * snapshots (s3:GetObject under `index/`), `compact` also writes and deletes them (the
   * compactor); either gets the index bucket's name (infra/aws/index-storage.ts).
   */
  index?: 'read' | 'compact';
  /** What the job does to the table (as RouteDecl.keys: per partition-key pattern, the actions); its role may do nothing else. */
  keys: KeyGrants;
  /** The function's timeout in minutes (default 5; Lambda allows 15) and memory in MB (default 1024). */
  timeoutMinutes?: number;
  memoryMB?: number;
}

/**
 * What writing imported titles does (shared/domain/catalogue-import.ts: the API's write path for
 * each title, the titles read in batches first): the animes' own items, as an anime write does
 * them, and the records a contributor may have linked to an imported title, read to check them
 * when the title is written again (the import links none, so it changes no count of theirs). The
 * tombstones are not read: only a write's response (the detail) reads them.
 */
const { anime } = TITLE_ITEMS;
const IMPORTED_TITLE_WRITES = grants(
  grant(anime.own, 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'),
  grant([...anime.counted, ...anime.referenced], 'BatchGetItem'),
  // Each write puts its change-feed change (shared/db/feed.ts).
  FEED_WRITES,
  // Finishing a journal an anime's creation left may put its stored answer.
  JOURNALED_ANSWERS,
);

export const JOBS: readonly JobDecl[] = [
  {
    name: 'index-compaction',
    entry: 'functions/jobs/index-compaction.ts',
    schedule: 'rate(10 minutes)',
    description: "Folds each kind's index deltas into its next snapshot (between the stream trigger's compactions)",
    localPeriodSeconds: 60,
    index: 'compact',
    keys: COMPACTION_KEYS,
  },
  {
    name: 'outbox',
    entry: 'functions/jobs/outbox.ts',
    schedule: 'rate(1 minute)',
    description: 'Delivers due e-mails of the outbox: retries with backoff, and any the mailer missed',
    // Locally every few seconds, so a retry is sent soon after it becomes due.
    localPeriodSeconds: 5,
    sendsMail: true,
    // What the mailer does, and the due entries read.
    keys: grants(DELIVERY_KEYS, grant(DUE_KEYS, 'Query')),
  },
  {
    name: 'cleanup',
    entry: 'functions/jobs/cleanup.ts',
    schedule: 'cron(0 3 * * ? *)',
    description: 'Deletes accounts never activated within 30 days of their registration, and the stored files of deleted pictures',
    // Locally every hour: a local store rarely lives 30 days, but a long-running one is kept tidy.
    localPeriodSeconds: 3600,
    deletesFiles: true,
    // Reads the pending entries and deletes each account as an account deletion does, without
    // e-mail; reads the files due for removal and deletes their items.
    // Account deletions read the news index (articles by the account).
    index: 'read',
    keys: grants(grant(PENDING_KEYS, 'Query'), ACCOUNT_DELETION, grant(FILE_KEYS, 'Query', 'DeleteItem')),
  },
  {
    name: 'season-refresh',
    entry: 'functions/jobs/season-refresh.ts',
    schedule: 'cron(0 4 * * ? *)',
    description: 'Imports the current and upcoming seasons from the catalogue source (bangumi-data): new titles, changed dates and broadcasts',
    // Locally daily as well. The first import of a store is the whole catalogue: `npm start` does
    // it on its first start, `npm run import-catalogue -- --stage S` on AWS (docs/decisions.md I7).
    localPeriodSeconds: 86_400,
    // The titles (a new one moves the random-pick slots: GetItem of the counter and a slot), and
    // the links from the source's items to them (read in batches, put when new).
    keys: grants(IMPORTED_TITLE_WRITES, grant(anime.own, 'GetItem'), grant(SOURCE_KEYS, 'BatchGetItem', 'PutItem')),
  },
  {
    name: 'airing-status',
    entry: 'functions/jobs/airing-status.ts',
    schedule: 'rate(1 hour)',
    description: 'Moves imported titles from upcoming to airing to finished as their dates pass',
    // Reads the anime index (the upcoming and airing animes) and the records that may move;
    // writes as a title write (never a creation or deletion: no slots).
    index: 'read',
    keys: grants(IMPORTED_TITLE_WRITES, indexReads('ANIME')),
  },
  {
    name: 'rankings',
    entry: 'functions/jobs/rankings.ts',
    schedule: 'rate(10 minutes)',
    description: 'Computes rank and popularity of animes and mangas, favorites and members of characters, favorites of persons, and the top lists',
    timeoutMinutes: 15,
    // Reads the titles (slots, records, chunks, who lists them) and the characters' and persons'
    // vectors (their indexes: pointer, deltas, the vectors object); writes their numbers as a
    // title write does without its index delta (no linked record changes), the titles'
    // positions, its lease, state and top lists (the changed entries put and deleted with
    // BatchWriteItem, 25 per call); publishes the numbers of the four kinds as a compaction with
    // a patch does (their pointers, deltas and objects: decision O13). No tombstones, no
    // accounts, no linked taxonomy records.
    index: 'compact',
    keys: grants(
      grant([titleKeys(animeTitle), titleKeys(mangaTitle), titleKeys(characterTitle), titleKeys(personTitle)], 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'),
      // Finishing a journal a write left may put its stored answer or its change-feed change.
      JOURNALED_ANSWERS,
      FEED_WRITES,
      RANKINGS_INDEX_KEYS,
      RANKINGS_JOB_KEYS,
    ),
  },
  {
    name: 'recommendations',
    entry: 'functions/jobs/recommendations.ts',
    schedule: 'rate(1 hour)',
    description: 'Per-title recommendations of animes and mangas from the users\' high list items (API.md §5.4)',
    // ~2 minutes at 1,000,000 list items (docs/recommendations-at-scale.md); the lease outlasts the timeout.
    timeoutMinutes: 15,
    memoryMB: 2048,
    // Writes only its own items (its lease with UpdateItem, the lists put, and deleted when a
    // completion superseded them or their title is gone; the stored lists read to compare); reads the slots (every title) and who lists each title high (Query), the
    // titles' records (BatchGetItem; `ANIME#*` names them: a key pattern cannot tell a record
    // from the title's other items, so those are read-only) and the tombstones.
    keys: grants(
      grant(RECOMMENDATION_KEYS, 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'),
      grant([titleKeys(animeTitle), titleKeys(mangaTitle)], 'BatchGetItem', 'Query'),
      TOMBSTONE_READS,
    ),
  },
];
