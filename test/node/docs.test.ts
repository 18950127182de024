/**
 * The README and docs/ against what they describe: links that resolve, a README that stays a
 * quickstart, the deploy guide and the configuration table against wrangler.toml, the webhook
 * targets as the local default has them, the typed client's code as the example compiles it;
 * nothing cites a file a clone does not hold; no command shown needs a Node newer than 20;
 * what the walkthroughs leave in the project is git-ignored.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const documents = [
  "README.md",
  ...readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** Fenced code blocks left out: what they hold is not a link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "");
}

const wrangler = read("wrangler.toml");

/** The `[[queues.consumers]]` blocks of wrangler.toml. */
function consumers(): { queue: string; retries: number; deadLetters: string }[] {
  return wrangler
    .split(/^\[\[queues\.consumers\]\]$/m)
    .slice(1)
    .map((block) => ({
      queue: /^queue = "([^"]+)"/m.exec(block)![1]!,
      retries: Number(/^max_retries = (\d+)/m.exec(block)![1]),
      deadLetters: /^dead_letter_queue = "([^"]+)"/m.exec(block)![1]!,
    }));
}

describe("README and docs/", () => {
  it("every relative link resolves, to a heading where it names one", () => {
    const broken: string[] = [];
    for (const doc of documents) {
      for (const [, target] of prose(read(doc)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file, hash] = target!.split("#") as [string, string | undefined];
        const resolved = file === "" ? path.join(root, doc) : path.resolve(path.dirname(path.join(root, doc)), file);
        if (!existsSync(resolved)) {
          broken.push(`${doc}: ${target} (no such file)`);
          continue;
        }
        if (hash === undefined || !statSync(resolved).isFile()) continue;
        const headings = [...prose(readFileSync(resolved, "utf8")).matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
          anchor(m[1]!),
        );
        if (!headings.includes(hash)) broken.push(`${doc}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README is a quickstart: short, and linking every document of docs/", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThan(200);
    const unlisted = documents.filter((d) => d.startsWith("docs/") && !readme.includes(`](${d})`));
    expect(unlisted).toEqual([]);
  });

  it("the deploy guide names every queue of wrangler.toml, with its retries and dead-letter queue", () => {
    const guide = read("docs/deploying.md");
    const queueStep = guide.split("\n").find((l) => /^\s*\| queues /.test(l));
    expect(queueStep, "the deploy steps' row of the queues").toBeDefined();
    const queues = [...wrangler.matchAll(/^(?:queue|dead_letter_queue) = "([^"]+)"/gm)].map((m) => m[1]!);
    expect(new Set(queues).size).toBeGreaterThanOrEqual(8);
    for (const queue of queues) expect(queueStep, queue).toContain(`\`${queue}\``);
    for (const c of consumers()) {
      expect(guide, c.queue).toMatch(
        new RegExp(`^\\| \`${c.queue}\` \\| [^|]+ \\| ${c.retries} \\| \`${c.deadLetters}\` \\|$`, "m"),
      );
    }
  });

  it("the configuration table has a row for every setting of wrangler.toml", () => {
    const vars = wrangler.split(/^\[vars\]$/m)[1]!.split(/^\[/m)[0]!;
    const names = [...vars.matchAll(/^([A-Z][A-Z0-9_]*) = /gm)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(10);
    const table = read("docs/configuration.md");
    for (const name of [...names, "TICKET_SIGNING_KEY_SECRET"]) {
      expect(table, name).toMatch(new RegExp(`^\\| [^|]*\`${name}\``, "m"));
    }
  });

  it("wherever webhook targets are said to be https URLs of public hosts, the local exception is named", () => {
    const unqualified: string[] = [];
    for (const doc of documents) {
      for (const paragraph of read(doc).split(/\n\s*\n/)) {
        if (/https[^.]*public host/is.test(paragraph) && !/loopback/i.test(paragraph)) {
          unqualified.push(`${doc}: ${paragraph.slice(0, 120)}`);
        }
      }
    }
    expect(unqualified).toEqual([]);
  });

  it("the typed client's code in docs/typed-client.md is the compiled example's", () => {
    const blocks = [...read("docs/typed-client.md").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(1);
    expect(read("examples/typed-client/paid-orders.ts")).toContain(blocks[0]!);
  });

  it("nothing points outside the repository: no ../shared/ design files, no 'the spec' in the code", () => {
    const files = (dir: string): string[] =>
      readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(`${dir}/${e.name}`) : /\.(ts|md)$/.test(e.name) ? [`${dir}/${e.name}`] : [],
      );
    const outside: string[] = [];
    for (const file of [
      ...documents,
      ...files("src"),
      ...files("test"),
      ...files("examples/typed-client").filter((f) => !f.includes("node_modules")),
    ]) {
      if (file === "test/node/docs.test.ts") continue;
      const text = read(file);
      if (/\.\.\/shared\/|ARCHITECTURE(\.md| invariant)/.test(text))
        outside.push(`${file}: ../shared/ or ARCHITECTURE`);
      if (file.startsWith("src/") && /\bthe spec\b|\bspec "|\bspec open point|\(spec[ ;]/.test(text))
        outside.push(`${file}: "the spec"`);
    }
    expect(outside).toEqual([]);
  });

  it("every command the docs show runs on Node 20: TypeScript files run through npm scripts (the project's Node), never a bare `node x.ts`", () => {
    const bare: string[] = [];
    for (const doc of documents) {
      for (const [line] of read(doc).matchAll(/^.*\bnode [^\s`]*\.ts\b.*$/gm)) bare.push(`${doc}: ${line}`);
    }
    for (const file of ["examples/quickstart.ts", "examples/typed-client/paid-orders.ts"]) {
      for (const [line] of read(file).matchAll(/^.*\bnode [^\s`]*\.ts\b.*$/gm)) bare.push(`${file}: ${line}`);
    }
    expect(bare).toEqual([]);
  });

  it("docs/open-points.md offers nothing as 'not offered' that a route serves", () => {
    const routes = readdirSync(path.join(root, "src/api"))
      .map((f) => read(`src/api/${f}`))
      .join("\n");
    const served: string[] = [];
    for (const [, list] of read("docs/open-points.md").matchAll(/Not offered(?: \(404 or 405\))?: ([^.]*)\./g)) {
      for (const [, name] of list!.matchAll(/`([a-z_]+\/[a-z_]+)`/g)) {
        if (routes.includes(`/${name}/`)) served.push(name!);
      }
    }
    expect(served).toEqual([]);
  });

  it("what the walkthroughs leave in the project is ignored by git: local states, ticket.pdf, .dev.vars", async () => {
    const { execFileSync } = await import("node:child_process");
    const paths = [".wrangler/state/v3/d1/x.sqlite", "state/v3/d1/x.sqlite", "ticket.pdf", ".dev.vars"];
    const ignored = execFileSync("git", ["check-ignore", "--no-index", ...paths], { cwd: root, encoding: "utf8" });
    expect(ignored.trim().split("\n")).toEqual(paths);
  });
});
