/**
 * `npm run fonts [-- --remote] [--persist-to DIR]`: copies the PDF fonts (TTF files of the
 * @expo-google-fonts Noto packages, devDependencies) into the R2 bucket `FILES` under
 * `fonts/`, where invoice and ticket rendering loads them (src/lib/pdf/fonts.ts). Locally
 * (the default; `npm start` runs it) into the local bucket, skipped when that state already has
 * these fonts; `--remote` into the deployed bucket.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { FONT_FACES, FONT_PREFIX } from "../lib/pdf/fonts.ts";
import { projectRoot, runWrangler, takeFlag, takeOption } from "./wrangler.ts";

const BUCKET = "ticketing-files";

function fontFiles() {
  return Object.values(FONT_FACES).map((f) => {
    const file = path.join(projectRoot, "node_modules", f.pkg, f.dir, f.file);
    const version = (
      JSON.parse(readFileSync(path.join(projectRoot, "node_modules", f.pkg, "package.json"), "utf8")) as {
        version: string;
      }
    ).version;
    return { key: `${FONT_PREFIX}${f.file}`, file, version };
  });
}

/**
 * The local bucket is written through Miniflare (wrangler's own local runtime, as wrangler's
 * `r2 object put --local` does) in one process, into the state directory `wrangler dev`
 * persists to (`<state>/v3`): one start instead of a wrangler process per file.
 */
async function putLocally(stateDir: string, files: { key: string; file: string }[]): Promise<void> {
  const require = createRequire(path.join(projectRoot, "package.json"));
  const { Miniflare, convertV4MiniflareOptions } = (await import(
    pathToFileURL(require.resolve("miniflare")).href
  )) as typeof import("miniflare");
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: "export default { fetch() { return new Response(null, { status: 404 }); } };",
      resourcePersistencePath: path.join(stateDir, "v3"),
      r2Buckets: { FILES: BUCKET },
    }),
  );
  try {
    const bucket = await mf.getR2Bucket("FILES");
    for (const f of files) await bucket.put(f.key, readFileSync(f.file), { httpMetadata: { contentType: "font/ttf" } });
  } finally {
    await mf.dispose();
  }
}

/** Puts the fonts into the bucket; returns how many were written (0 when the local state has them). */
export async function seedFonts(target: { remote: boolean; persistTo?: string }): Promise<number> {
  const files = fontFiles();
  const missing = files.filter((f) => !existsSync(f.file));
  if (missing.length) throw new Error(`font files missing (run npm install): ${missing.map((f) => f.file).join(", ")}`);
  const stamp = JSON.stringify(files.map((f) => [f.key, f.version]));
  const stateDir = path.resolve(projectRoot, target.persistTo ?? ".wrangler/state");
  const marker = path.join(stateDir, "fonts-seeded.json");
  if (!target.remote && existsSync(marker) && readFileSync(marker, "utf8") === stamp) return 0;
  if (target.remote) {
    for (const f of files) {
      const result = await runWrangler([
        "r2",
        "object",
        "put",
        `${BUCKET}/${f.key}`,
        "--file",
        f.file,
        "--content-type",
        "font/ttf",
        "--remote",
      ]);
      if (result.code !== 0) {
        process.stderr.write(result.stdout + result.stderr);
        throw new Error(`putting ${f.key} into the bucket failed`);
      }
    }
  } else {
    await putLocally(stateDir, files);
  }
  if (!target.remote) {
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(marker, stamp);
  }
  return files.length;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const remote = takeFlag(args, "--remote");
  const persistTo = takeOption(args, "--persist-to");
  try {
    const n = await seedFonts({ remote, persistTo });
    process.stderr.write(
      n
        ? `PDF fonts put into the ${remote ? "deployed" : "local"} bucket (${n} files).\n`
        : "PDF fonts are already in the local bucket.\n",
    );
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
