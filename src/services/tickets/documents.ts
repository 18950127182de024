/**
 * Documents rendered in the background: invoice PDFs and ticket PDFs are rendered by the
 * documents queue's consumer (src/jobs/documents.ts) and stored in R2; a download answers 409
 * until the file is there (pretix's behaviour: "the file is not yet ready and will now be
 * prepared"). Messages are delivered at least once; rendering is idempotent (a file has one
 * key, written whole). The fonts come from R2 (src/lib/pdf/fonts.ts, `npm run fonts`).
 */
import type { Env } from "../../lib/env";
import { fontObjectKey, type FontFace } from "../../lib/pdf/fonts";
import { Failure } from "../../lib/failure";

/** How long a download client should wait before asking again (seconds). */
export const RETRY_AFTER_SECONDS = 2;

/** The file is being rendered: 409 with Retry-After. */
export function notReady(what: string): Failure {
  return new Failure("not_ready", `The ${what} is not yet ready and will now be prepared. Retry after a few seconds.`, {
    params: { retryAfter: RETRY_AFTER_SECONDS },
  });
}

/** The fonts are not in R2: a deployment problem (`unavailable`), named as such. */
export function fontsMissing(face: FontFace): Failure {
  return new Failure(
    "unavailable",
    `The PDF fonts are not installed in the file storage (${fontObjectKey(face)} is missing; run "npm run fonts").`,
  );
}

// Loaded font files per bucket, kept for the isolate's lifetime: a document loads only the faces its text needs.
const fontCache = new WeakMap<R2Bucket, Map<FontFace, Promise<Uint8Array>>>();

/** Loads a face from R2 (once per isolate). */
export function loadFont(env: Env, face: FontFace): Promise<Uint8Array> {
  let faces = fontCache.get(env.FILES);
  if (!faces) fontCache.set(env.FILES, (faces = new Map()));
  let f = faces.get(face);
  if (!f) {
    f = (async () => {
      const object = await env.FILES.get(fontObjectKey(face));
      if (!object) throw fontsMissing(face);
      return new Uint8Array(await object.arrayBuffer());
    })();
    f.catch(() => faces.delete(face));
    faces.set(face, f);
  }
  return f;
}
