/**
 * File headers are a few lines: what the file holds and why it exists. Design goes to docs/,
 * history to commit messages, figures to docs/scaling.md; this fails when a header of src/ grows past the limit.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..", "..");

/** The most lines a header may take, its opening and closing lines included: two to six lines of text. */
const LIMIT = 8;

/** Every TypeScript source file under `dir`, declaration files left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** The number of lines of the block comment that opens `text`, or 0 when it opens with something else. */
function headerLines(text: string): number {
  const header = /^\s*\/\*[\s\S]*?\*\//.exec(text);
  return header ? header[0].trim().split("\n").length : 0;
}

describe("file headers", () => {
  it("counts the lines of the opening block comment only", () => {
    expect(headerLines("/**\n * One.\n * Two.\n */\nimport x from 'y';\n/** not a header */\n")).toBe(4);
    expect(headerLines("import x from 'y';\n/**\n * a\n */\n")).toBe(0);
    expect(headerLines("/** One line. */\nexport {};\n")).toBe(1);
  });

  it(`no source file under src/ opens with a header longer than ${LIMIT} lines`, () => {
    const long = sources(path.join(root, "src"))
      .map((file) => ({ file: path.relative(root, file), lines: headerLines(readFileSync(file, "utf8")) }))
      .filter((h) => h.lines > LIMIT)
      .map((h) => `${h.file}: ${h.lines} lines`);
    expect(long).toEqual([]);
  });
});
