/**
 * Picture uploads (API.md §4.9 `POST /api/persons/{id}/create-picture/`; docs/decisions.md 69–73):
 * 404 for an unknown record, then the body (400: the image judged by its content, the name),
 * then the cap of 100 pictures (400 `errors.image`). The file is stored before the transaction
 * that appends its Picture, so an upload guard is put first (shared/db/files.ts) and that
 * transaction deletes it: a Picture never written (the record deleted meanwhile, the cap reached
 * by a concurrent upload, an outage) leaves a file the cleanup job removes. The append is a title
 * write (writeTitle: the record's `updated_at`, revision, ETag and index move with it; a
 * concurrent write of the record makes it retry from the read).
 */
import { keepUploadPlan, putUploadGuard } from '../db/files.js';
import { joinPlans, type BaseRecord } from '../db/records.js';
import type { StoredTitle } from '../db/titles.js';
import type { JudgedImage } from '../domain/images.js';
import { pictureRead, type Picture } from '../domain/media.js';
import type { TitleResource } from '../domain/title-resource.js';
import { newId } from '../ids.js';
import { newPictureKey, storePicture } from '../storage/pictures.js';
import type { Operation } from './handler.js';
import { validationError } from '../problem.js';
import { inShapeOrder } from './represent.js';
import { loadForChange, writeTitle } from '../domain/title-writes.js';

/** Pictures a record may have (API.md §4.9, §7.1). */
export const MAX_PICTURES = 100;

const full = () => validationError({ image: [`This record already has ${MAX_PICTURES} pictures.`] });

/** The upload of a picture of a record of `resource` (its `pictures` relation). */
export function uploadPicture<R extends BaseRecord>(resource: TitleResource<R>): Operation {
  return async (req) => {
    const id = (req.params as { id: string }).id;
    let stored: StoredTitle<R> | null = await loadForChange(resource, id);
    const { image, name } = req.body() as { image: JudgedImage; name: string };
    const pictures = () => (stored!.relations.pictures ?? []) as Picture[];
    if (pictures().length >= MAX_PICTURES) throw full();

    const at = new Date().toISOString();
    const file = await storeGuarded(id, image);
    const picture: Picture = { id: newId(), name, url: file.url, width: image.width, height: image.height, created_at: at, updated_at: at, file: file.key };
    const reply = { status: 201, body: inShapeOrder(picture, Object.keys(pictureRead.shape)) };
    await writeTitle(resource, async () => {
      // The first attempt writes what was read above; a retry reads again.
      stored ??= await loadForChange(resource, id);
      const before = stored;
      stored = null;
      if ((before.relations.pictures ?? []).length >= MAX_PICTURES) throw full();
      return {
        before,
        after: { ...before.record, updated_at: at },
        relations: { ...before.relations, pictures: [...(before.relations.pictures ?? []), picture] },
        extra: joinPlans(keepUploadPlan(file.guard), req.idempotent(reply)),
      };
    });
    return reply;
  };
}

/** Puts the guard of a new key, then stores the file under it (503 when storage is unavailable). */
async function storeGuarded(id: string, image: JudgedImage) {
  const key = newPictureKey(id, image);
  const guard = await putUploadGuard(key);
  const file = await storePicture(id, image, key);
  return { ...file, guard };
}
