/**
 * An export file built in R2 step by step: each step appends bytes. R2's multipart upload takes
 * parts of one fixed size (at least 5 MiB) except the last, so bytes that do not fill a part
 * wait in a small object of their own until the next step tops them up. Everything a later
 * step needs is in the JSON state; every write of a step has a name fixed by the step's
 * number (part numbers, the waiting object's key), so a step that runs again after a crash
 * overwrites what it wrote before.
 */
import { concatBytes } from "../../lib/zip";

export type UploadState = {
  key: string;
  uploadId: string | null;
  parts: R2UploadedPart[];
  /** Bytes written but not yet in a part. */
  pending: { key: string; size: number }[];
  /** Bytes of the file so far. */
  size: number;
};

export function newUpload(key: string): UploadState {
  return { key, uploadId: null, parts: [], pending: [], size: 0 };
}

/**
 * Appends `data`; with `final` the file is completed. Returns the new state and the keys of
 * waiting objects that the new state no longer needs (delete them once the state is saved).
 */
export async function appendToUpload(
  bucket: R2Bucket,
  state: UploadState,
  data: Uint8Array,
  opts: { step: number; final: boolean; partBytes: number; contentType: string; filename: string },
): Promise<{ state: UploadState; obsolete: string[] }> {
  const up: UploadState = {
    ...state,
    parts: [...state.parts],
    pending: [...state.pending],
    size: state.size + data.length,
  };
  const pendingKey = `${state.key}.pending-${opts.step}`;
  const waiting = up.pending.reduce((n, p) => n + p.size, 0);
  if (!opts.final && waiting + data.length < opts.partBytes) {
    if (data.length > 0) {
      await bucket.put(pendingKey, data);
      up.pending.push({ key: pendingKey, size: data.length });
    }
    return { state: up, obsolete: [] };
  }
  const pieces: Uint8Array[] = [];
  for (const p of up.pending) {
    const object = await bucket.get(p.key);
    if (!object) throw new Error(`export upload: waiting bytes ${p.key} are missing`);
    pieces.push(new Uint8Array(await object.arrayBuffer()));
  }
  pieces.push(data);
  const buffer = concatBytes(pieces);
  const obsolete = up.pending.map((p) => p.key);
  up.pending = [];
  const httpMetadata = { contentType: opts.contentType, contentDisposition: `attachment; filename="${opts.filename}"` };
  if (opts.final && up.uploadId === null) {
    // the whole file fits into one part: a plain object
    await bucket.put(up.key, buffer, { httpMetadata });
    return { state: up, obsolete };
  }
  if (up.uploadId === null) up.uploadId = (await bucket.createMultipartUpload(up.key, { httpMetadata })).uploadId;
  const upload = bucket.resumeMultipartUpload(up.key, up.uploadId);
  let offset = 0;
  while (buffer.length - offset >= opts.partBytes) {
    up.parts.push(await upload.uploadPart(up.parts.length + 1, buffer.subarray(offset, offset + opts.partBytes)));
    offset += opts.partBytes;
  }
  const rest = buffer.subarray(offset);
  if (opts.final) {
    if (rest.length > 0 || up.parts.length === 0) up.parts.push(await upload.uploadPart(up.parts.length + 1, rest));
    await upload.complete(up.parts);
  } else if (rest.length > 0) {
    await bucket.put(pendingKey, rest);
    up.pending.push({ key: pendingKey, size: rest.length });
  }
  return { state: up, obsolete: obsolete.filter((k) => k !== pendingKey) };
}

/** Removes everything an export left in R2 below `prefix` (its file, waiting bytes, an unfinished upload). */
export async function discardUpload(bucket: R2Bucket, prefix: string, state: UploadState | null): Promise<void> {
  if (state?.uploadId) {
    try {
      await bucket.resumeMultipartUpload(state.key, state.uploadId).abort();
    } catch {
      // completed or aborted already
    }
  }
  for (;;) {
    const listed = await bucket.list({ prefix, limit: 1000 });
    if (listed.objects.length) await bucket.delete(listed.objects.map((o) => o.key));
    if (!listed.truncated) break;
  }
}
