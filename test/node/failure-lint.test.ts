/**
 * Errors leave routes, pages and the HTTP plumbing one way: as a thrown coded Failure, answered
 * by the error boundary from the one table of src/http/errors.ts. The lint rules of test/lint/*.grit
 * (Biome plugins that .biome.jsonc applies to src/api, src/pages and src/http) find the other
 * ways; this runs them with the tests, on the source and on examples of what they must and must
 * not find.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..", "..");
const biome = path.join(root, "node_modules", ".bin", "biome");

type Finding = { path: string; line: number; message: string };

/** The plugins' findings of `biome lint` over `targets`, run in `cwd` with the configuration found there. */
function findings(cwd: string, targets: string[]): Finding[] {
  const run = spawnSync(biome, ["lint", "--reporter=json", "--max-diagnostics=none", ...targets], {
    cwd,
    encoding: "utf8",
  });
  if (!run.stdout.trim()) throw new Error(`biome lint gave no report: ${run.stderr}`);
  const report = JSON.parse(run.stdout) as {
    diagnostics: { category: string; message: string; location: { path: string; start: { line: number } } }[];
  };
  return report.diagnostics
    .filter((d) => d.category === "plugin")
    .map((d) => ({ path: d.location.path, line: d.location.start.line, message: d.message }));
}

describe("errors leave by a coded Failure (test/lint/*.grit)", () => {
  it("the source: no route, page or HTTP plumbing answers an error another way", () => {
    const found = findings(root, ["src/api", "src/pages", "src/http"]);
    expect(found.map((f) => `${f.path}:${f.line}: ${f.message}`)).toEqual([]);
  });

  describe("examples", () => {
    // a project of its own: the repository's configuration (with vcs off, as there is no git
    // repository there) and its lint rules, and one file per example
    const dir = mkdtempSync(path.join(tmpdir(), "failure-lint-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      path.join(dir, "biome.json"),
      JSON.stringify({ extends: [path.join(root, ".biome.jsonc")], vcs: { enabled: false } }),
    );
    mkdirSync(path.join(dir, "test"));
    symlinkSync(path.join(root, "test", "lint"), path.join(dir, "test", "lint"));

    const wrap = (body: string) => `export async function handler(c: Ctx, r: Scan) {\n${body}\n}\n`;
    const found: Record<string, string> = {
      "an error answered with c.json": `return c.json({ detail: "No event found." }, 404);`,
      "a status chosen between success and error": `return c.json(body, r.status === "ok" ? 201 : 400);`,
      "an error answered with c.json and headers": `return c.json(body, 409, { "Retry-After": "1" });`,
      "hono's HTTPException": `throw new HTTPException(400, { message: "Bad request." });`,
      "a catch that turns anything into 403": `try { await resolve(); } catch (e) { if (isDatabaseFault(e)) throw e; throw forbidden("No."); }`,
      "a catch that checks isFailure without a code": `try { await pay(); } catch (e) { if (isFailure(e)) return "busy"; throw e; }`,
      "a catch without a binding that answers": `try { await load(); } catch { return send(c, page, 404); }`,
      "a catch that answers a response": `try { await load(); } catch (e) { log(e); return c.body(null, 404); }`,
    };
    const notFound: Record<string, string> = {
      "success answers": `if (r) return c.json(body, 201);\nreturn c.json(body);`,
      "a catch that checks the failure's code": `try { await resolve(); } catch (e) { if (isFailure(e, "invalid")) throw forbidden("No."); throw e; }`,
      "a catch that cleans up and rethrows": `try { await next(); } catch (e) { await release(); throw e; }`,
      "a catch that falls back to a value": `try { return decodeURIComponent(s); } catch { return s; }`,
      "a catch that answers the one failure it means": `try { await pdf(); } catch (e) { if (!isFailure(e, "not_ready")) throw e; return send(c, page, 409); }`,
    };
    const cases: { file: string; folder: string; name: string; expectFound: boolean }[] = [];
    for (const [folder, examples, expectFound] of [
      ["src/api", found, true],
      ["src/pages", found, true],
      ["src/http", found, true],
      ["src/api", notFound, false],
      // outside the folders the rules hold (the error boundary in src/app.ts answers with c.json)
      ["src", { "the error boundary's own answer": `return c.json({ detail: "Not found." }, 404);` }, false],
    ] as const) {
      mkdirSync(path.join(dir, folder), { recursive: true });
      for (const [name, code] of Object.entries(examples)) {
        const file = `${folder}/example-${cases.length + 1}.ts`;
        writeFileSync(path.join(dir, file), wrap(code));
        cases.push({ file, folder, name, expectFound });
      }
    }
    const all = findings(dir, ["src"]);

    for (const { file, folder, name, expectFound } of cases) {
      it(`${expectFound ? "finds" : "leaves"} in ${folder}: ${name}`, () => {
        expect(all.some((f) => f.path === file)).toBe(expectFound);
      });
    }
  });
});
