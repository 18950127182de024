/**
 * Tests find their code: every route module `src/api/<name>.ts` (it creates the Hono app its
 * routes are registered on) has `test/api/<name>.test.ts`, and every other module of src/api is
 * a helper of a family, named `<family>-<part>.ts` after a route module `<family>.ts`, whose
 * tests are `test/api/<family>*.test.ts`. Checked on the source, and on examples of both kinds.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..", "..");

/** A module that creates a Hono app, or takes `Hono` from hono to register routes on one. */
function registersRoutes(source: string): boolean {
  return (
    /\bnew Hono\b/.test(source) || /import\s+(?:type\s+)?\{[^}]*\bHono\b[^}]*\}\s+from\s+["']hono["']/.test(source)
  );
}

/** What breaks the rule in the tree at `dir`: one line per module of `src/api`. */
function problems(dir: string): string[] {
  const api = path.join(dir, "src", "api");
  const tests = readdirSync(path.join(dir, "test", "api")).filter((f) => f.endsWith(".test.ts"));
  const modules = readdirSync(api)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => f.slice(0, -".ts".length))
    .sort();
  const routeModules = new Set(modules.filter((m) => registersRoutes(readFileSync(path.join(api, `${m}.ts`), "utf8"))));
  const found: string[] = [];
  for (const m of modules) {
    if (routeModules.has(m)) {
      if (!tests.includes(`${m}.test.ts`)) found.push(`src/api/${m}.ts registers routes: no test/api/${m}.test.ts`);
      continue;
    }
    // the longest `<family>-` prefix that names a route module
    const parts = m.split("-");
    const family = parts
      .slice(1)
      .map((_, i) => parts.slice(0, parts.length - 1 - i).join("-"))
      .find((p) => routeModules.has(p));
    if (family === undefined) {
      found.push(`src/api/${m}.ts registers no routes: its name is not <family>-<part>.ts of a route module`);
    } else if (!tests.some((t) => t.startsWith(family))) {
      found.push(`src/api/${m}.ts is a helper of ${family}: no test/api/${family}*.test.ts`);
    }
  }
  return found;
}

describe("every module of src/api has its tests where its name says", () => {
  it("the source: a test file per route module, a family name and its tests per helper", () => {
    expect(problems(root)).toEqual([]);
  });

  describe("examples", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "test-files-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(path.join(dir, "src", "api"), { recursive: true });
    mkdirSync(path.join(dir, "test", "api"), { recursive: true });
    const routes = 'import { Hono } from "hono";\nexport const r = new Hono();\nr.get("/x", (c) => c.text("x"));\n';
    const helper = 'import { z } from "zod";\nexport const s = z.string();\n';
    const files: Record<string, string> = {
      "src/api/orders.ts": routes,
      "test/api/orders.test.ts": "",
      "src/api/orders-serializers.ts": helper,
      "src/api/order-items.ts": routes.replace(
        'import { Hono } from "hono";\n',
        'import { Hono, type Context } from "hono";\n',
      ),
      "test/api/order-items.test.ts": "",
      "src/api/checkin.ts": routes,
      "src/api/checkin-expand.ts": helper,
      "src/api/sales-common.ts": helper,
      "src/api/register.ts":
        'import type { Hono } from "hono";\nexport const add = (app: Hono) => app.get("/y", (c) => c.text("y"));\n',
    };
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);

    it("finds a route module without its test file, a helper named after no route module, a helper of a family without tests", () => {
      expect(problems(dir)).toEqual([
        "src/api/checkin.ts registers routes: no test/api/checkin.test.ts",
        "src/api/checkin-expand.ts is a helper of checkin: no test/api/checkin*.test.ts",
        "src/api/register.ts registers routes: no test/api/register.test.ts",
        "src/api/sales-common.ts registers no routes: its name is not <family>-<part>.ts of a route module",
      ]);
    });

    it("passes a route module with its test file and a helper of a tested family", () => {
      writeFileSync(path.join(dir, "test", "api", "checkin-redeem.test.ts"), "");
      expect(problems(dir)).not.toContain(
        "src/api/checkin-expand.ts is a helper of checkin: no test/api/checkin*.test.ts",
      );
      writeFileSync(path.join(dir, "test", "api", "checkin.test.ts"), "");
      writeFileSync(path.join(dir, "test", "api", "register.test.ts"), "");
      rmSync(path.join(dir, "src", "api", "sales-common.ts"));
      writeFileSync(path.join(dir, "src", "api", "orders-position-parts.ts"), helper);
      expect(problems(dir)).toEqual([]);
    });
  });
});
