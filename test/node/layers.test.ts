/**
 * The layers of src/ (docs/architecture.md): dependency-cruiser with the project's
 * .dependency-cruiser.cjs, run on the source (no violation) and on small trees that break each
 * kind of rule (each must be found).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..", "..");
const depcruise = path.join(root, "node_modules", ".bin", "depcruise");
const config = path.join(root, ".dependency-cruiser.cjs");

/**
 * The names of the rules dependency-cruiser reports for `src` under `cwd`, and the exit status of
 * the run `npm run lint` makes (its default reporter fails the run on a violation).
 */
function cruise(cwd: string): { status: number | null; rules: string[] } {
  const lint = spawnSync(depcruise, ["src", "--config", config], { cwd, encoding: "utf8" });
  const run = spawnSync(depcruise, ["src", "--config", config, "--output-type", "json"], {
    cwd,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (!run.stdout.trim()) throw new Error(`dependency-cruiser gave no report: ${run.stderr}`);
  const report = JSON.parse(run.stdout) as { summary: { violations: { rule: { name: string } }[] } };
  return { status: lint.status, rules: report.summary.violations.map((v) => v.rule.name).sort() };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A tree of files (path → source) in a temporary folder. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "layers-"));
  dirs.push(dir);
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "es2022" } }));
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), source);
  }
  return dir;
}

describe("the layers of src/ (dependency-cruiser)", () => {
  it("the source keeps them", () => {
    expect(cruise(root)).toEqual({ status: 0, rules: [] });
  });

  it("an import upwards is found, also of a type only", () => {
    const dir = tree({
      "src/db/rows.ts": "export type Row = { id: number };\n",
      "src/lib/log.ts": 'import type { Row } from "../db/rows";\nexport const first = (r: Row) => r.id;\n',
      "src/services/orders.ts": "export const createOrder = () => 1;\n",
      "src/rules/pricing.ts": 'import { createOrder } from "../services/orders";\nexport const price = createOrder;\n',
    });
    const found = cruise(dir);
    expect(found.status).not.toBe(0);
    expect(found.rules).toEqual(["lib-imports-down", "rules-imports-down"]);
  });

  it("the entry folders do not import each other, and nothing imports the app", () => {
    const dir = tree({
      "src/app.ts": "export const app = 1;\n",
      "src/api/orders.ts": "export const routes = 1;\n",
      "src/pages/order.ts": 'import { routes } from "../api/orders";\nexport const page = routes;\n',
      "src/jobs/mail.ts": 'import { app } from "../app";\nexport const job = app;\n',
    });
    expect(cruise(dir).rules).toEqual(["jobs-imports-down", "pages-imports-down"]);
  });

  it("a route or page that reaches db/ is found, also for a type only; through a service it is not", () => {
    const dir = tree({
      "src/db/rows.ts": "export type Row = { id: number };\nexport const findRow = () => ({ id: 1 });\n",
      "src/services/reads.ts": 'export { findRow, type Row } from "../db/rows";\n',
      "src/api/rows.ts": 'import type { Row } from "../db/rows";\nexport const show = (r: Row) => r.id;\n',
      "src/pages/row.ts": 'import { findRow } from "../db/rows";\nexport const page = findRow;\n',
      "src/api/ok.ts":
        'import { findRow, type Row } from "../services/reads";\nexport const ok = (r: Row) => findRow().id + r.id;\n',
    });
    const found = cruise(dir);
    expect(found.status).not.toBe(0);
    expect(found.rules).toEqual(["routes-through-services", "routes-through-services"]);
  });

  it("drizzle outside db/ is found, also a type only", () => {
    const dir = tree({
      "node_modules/drizzle-orm/package.json": JSON.stringify({
        name: "drizzle-orm",
        main: "index.js",
        types: "index.d.ts",
      }),
      "node_modules/drizzle-orm/index.js": "export const eq = () => 1;\n",
      "node_modules/drizzle-orm/index.d.ts":
        "export declare const eq: () => number;\nexport type SQL = { sql: string };\n",
      "src/db/rows.ts": 'import { eq } from "drizzle-orm";\nexport const where = eq;\n',
      "src/services/rows.ts": 'import type { SQL } from "drizzle-orm";\nexport type Where = SQL;\n',
      "src/objects/rows.ts": 'import { eq } from "drizzle-orm";\nexport const byId = eq;\n',
    });
    const found = cruise(dir);
    expect(found.status).not.toBe(0);
    expect(found.rules).toEqual(["sql-stays-in-db", "sql-stays-in-db"]);
  });

  it("a circle is found, also inside one layer", () => {
    const dir = tree({
      "src/services/a.ts": 'import type { B } from "./b";\nexport type A = { b: B };\n',
      "src/services/b.ts": 'import type { A } from "./a";\nexport type B = { a: A };\n',
    });
    const found = cruise(dir);
    expect(found.status).not.toBe(0);
    expect(found.rules).toEqual(["no-circular"]);
  });
});

describe("one job per file (Biome)", () => {
  const biome = path.join(root, "node_modules", ".bin", "biome");

  /** The lint rules Biome reports over `src` under `cwd`, with the project's configuration. */
  function rules(cwd: string): string[] {
    const run = spawnSync(biome, ["lint", "--reporter=json", "--max-diagnostics=none", "src"], {
      cwd,
      encoding: "utf8",
    });
    if (!run.stdout.trim()) throw new Error(`biome lint gave no report: ${run.stderr}`);
    const report = JSON.parse(run.stdout) as { diagnostics: { category: string }[] };
    return report.diagnostics.map((d) => d.category);
  }

  it("a source file over 600 lines is refused, one of 1 line is not", () => {
    const long = `${Array.from({ length: 601 }, (_, i) => `export const v${i} = ${i};`).join("\n")}\n`;
    const dir = tree({
      "biome.json": JSON.stringify({ extends: [path.join(root, ".biome.jsonc")], vcs: { enabled: false } }),
      "src/lib/long.ts": long,
      "src/lib/short.ts": "export const v = 1;\n",
    });
    // the configuration's lint plugins, where it names them
    mkdirSync(path.join(dir, "test"));
    symlinkSync(path.join(root, "test", "lint"), path.join(dir, "test", "lint"));
    expect(rules(dir)).toEqual(["lint/style/noExcessiveLinesPerFile"]);
  });
});
