/**
 * Files: the upload endpoint stores raw bodies in R2 under `uploads/<uuid>` and answers
 * `file:<uuid>`. File fields (item `picture`, ticket layout `background`, ...) take such an
 * id; `resolveFileField` checks that the caller uploaded it within 24 hours and copies it to
 * its permanent place under `media/`, from where GET /media/... serves it.
 */
import { findUpload, insertUpload, UPLOAD_VALIDITY_MS } from "../db/files";
import { readConfig } from "../lib/env";
import { z } from "zod";
import type { AppContext } from "./context";
import { apiDocs } from "./openapi";
import { badRequest, Failure, fieldError, notFound } from "../lib/failure";
import { log } from "../lib/log";

export const FILE_STORE_UNAVAILABLE = "The file store could not be reached; nothing was stored. Retry in a moment.";

/** An R2 call; its failure is a retryable 503 (an object it may have left behind is never referenced). */
async function fileStore<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    log.error("R2 failed", { error: e });
    // biome-ignore lint/plugin: `call` is one R2 call, which fails only as the file store fails: retryable
    throw new Failure("unavailable", FILE_STORE_UNAVAILABLE);
  }
}

/** Reads the filename from `Content-Disposition: attachment; filename=...`. */
export function parseContentDisposition(header: string | undefined): string | null {
  if (!header) return null;
  const parts = header.split(";").map((p) => p.trim());
  if (parts[0]?.toLowerCase() !== "attachment") return null;
  let filename: string | null = null;
  for (const p of parts.slice(1)) {
    const eq = p.indexOf("=");
    if (eq < 0) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    let value = p.slice(eq + 1).trim();
    if (key === "filename*") {
      const m = /^([\w-]+)'[^']*'(.*)$/.exec(value);
      if (m) {
        try {
          return sanitizeFilename(decodeURIComponent(m[2]!));
        } catch {
          return null;
        }
      }
    } else if (key === "filename") {
      if (value.startsWith('"') && value.endsWith('"') && value.length >= 2)
        value = value.slice(1, -1).replace(/\\(.)/g, "$1");
      filename = value;
    }
  }
  return filename ? sanitizeFilename(filename) : null;
}

function sanitizeFilename(name: string): string | null {
  const base = name
    .split(/[\\/]/)
    .pop()!
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips control characters from a file name
    .replace(/[\u0000-\u001f"]/g, "")
    .trim();
  return base === "" || base === "." || base === ".." ? null : base.slice(0, 200);
}

/** The upload's answer: the id to put into file fields. */
export const uploadResponse = z.object({
  id: z
    .string()
    .regex(/^file:[0-9a-f-]{36}$/)
    .meta({ description: "`file:<uuid>`, usable in file fields for 24 hours by the same credential" }),
});

export const uploadDoc = apiDocs("Files").created(uploadResponse, {
  summary: "Upload a file",
  description:
    "The raw file as the body, with its `Content-Type` and `Content-Disposition: attachment; filename=<name>`.",
  rawBody: {
    required: true,
    content: { "*/*": { schema: { type: "string", contentMediaType: "application/octet-stream" } } },
  },
});

/** POST /api/v1/upload */
export async function handleUpload(c: AppContext): Promise<Response> {
  const contentType = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!contentType) throw badRequest("A Content-Type header with the file's type is required.");
  const filename = parseContentDisposition(c.req.header("Content-Disposition"));
  if (!filename) throw badRequest('A header "Content-Disposition: attachment; filename=<name>" is required.');
  const { maxBytes, allowedTypes } = readConfig(c.env).upload;
  if (allowedTypes && !allowedTypes.includes(contentType)) {
    throw badRequest(`Files of type "${contentType}" are not accepted. Accepted types: ${allowedTypes.join(", ")}.`);
  }
  const declared = c.req.header("Content-Length");
  if (maxBytes !== null && declared !== undefined && Number(declared) > maxBytes) {
    throw badRequest(`The file is too large (at most ${maxBytes} bytes).`);
  }
  const body = await c.req.arrayBuffer();
  if (maxBytes !== null && body.byteLength > maxBytes)
    throw badRequest(`The file is too large (at most ${maxBytes} bytes).`);
  if (body.byteLength === 0) throw badRequest("The file is empty.");
  const id = crypto.randomUUID();
  await fileStore(() => c.env.FILES.put(`uploads/${id}`, body, { httpMetadata: { contentType } }));
  await insertUpload(c.var.db, {
    id,
    owner: c.var.principal.identity,
    filename,
    contentType,
    size: body.byteLength,
    createdAt: Date.now(),
  });
  return c.json({ id: `file:${id}` } satisfies z.infer<typeof uploadResponse>, 201);
}

/**
 * Turns a `file:<id>` value of `field` into a permanently stored file and returns its key
 * (serialize it with mediaUrl). 400 with a field error when the id is unknown, expired,
 * uploaded by another credential, or of a type the field does not take.
 */
export async function resolveFileField(
  c: AppContext,
  field: string,
  ref: string,
  opts: { allowedTypes?: string[]; scope: string },
): Promise<string> {
  const m = /^file:([0-9a-f-]{36})$/.exec(ref);
  if (!m) throw fieldError(field, "Expected a file ID from the upload endpoint (file:<id>).");
  const upload = await findUpload(c.var.db, m[1]!);
  if (!upload || upload.owner !== c.var.principal.identity) {
    throw fieldError(field, "The submitted file ID was not found.");
  }
  if (upload.createdAt < Date.now() - UPLOAD_VALIDITY_MS) throw fieldError(field, "The submitted file ID has expired.");
  if (opts.allowedTypes && !opts.allowedTypes.includes(upload.contentType)) {
    throw fieldError(
      field,
      `Files of type "${upload.contentType}" are not accepted here (${opts.allowedTypes.join(", ")}).`,
    );
  }
  const object = await fileStore(() => c.env.FILES.get(`uploads/${upload.id}`));
  if (!object) throw fieldError(field, "The submitted file ID has expired.");
  const key = `${opts.scope}/${upload.id}/${upload.filename}`;
  await fileStore(() =>
    c.env.FILES.put(`media/${key}`, object.body, { httpMetadata: { contentType: upload.contentType } }),
  );
  return key;
}

/** GET /media/<key>: public, unguessable URLs of stored files. */
export async function serveMedia(c: AppContext): Promise<Response> {
  const key = decodeURIComponent(c.req.path.replace(/^\/media\//, ""));
  const object = key ? await fileStore(() => c.env.FILES.get(`media/${key}`)) : null;
  if (!object) throw notFound();
  const headers = new Headers();
  object.writeHttpMetadata(headers);
  headers.set("ETag", object.httpEtag);
  headers.set("Cache-Control", "public, max-age=86400");
  return new Response(object.body, { headers });
}
