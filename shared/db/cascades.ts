/**
 * Continuations of work too large for one invocation of the relations consumer (a deleted title
 * on 100,000 lists, an account with 10,000 list items): the consumer does what it can in its
 * time, then writes the cascade's item; the item's stream record brings the consumer back to it,
 * until the work is done and the item deleted. Every step is idempotent, so a repeated or late
 * record does nothing twice.
 *
 *   cascade   pk = CASCADE#<work>#<id>   sk = R   { at, cursor? }   where the work stopped
 */
import { send, tableName } from './client.js';

export const CASCADE_KEYS = 'CASCADE#*';
export const CASCADE_PREFIX = 'CASCADE#';

const key = (work: string, id: string) => ({ pk: `${CASCADE_PREFIX}${work}#${id}`, sk: 'R' });

/** The work and its subject of a cascade item's key, or null for another key. */
export function cascadeOf(pk: string): { work: string; id: string } | null {
  if (!pk.startsWith(CASCADE_PREFIX)) return null;
  const [, work, id, ...rest] = pk.split('#');
  return work && id && rest.length === 0 ? { work, id } : null;
}

/** Asks for the consumer to come back to the work, from `cursor` (each write is a new stream record). */
export async function continueLater(work: string, id: string, cursor?: string): Promise<void> {
  await send((c) => new c.PutCommand({ TableName: tableName(), Item: { ...key(work, id), at: new Date().toISOString(), ...(cursor === undefined ? {} : { cursor }) } }));
}

export async function cascadeDone(work: string, id: string): Promise<void> {
  await send((c) => new c.DeleteCommand({ TableName: tableName(), Key: key(work, id) }));
}
