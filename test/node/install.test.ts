/**
 * `npm run setup` (the README's first command): npm install run on the project's own Node, the
 * `node` devDependency's version, so that a newcomer on Node 20 sees no EBADENGINE warning
 * (docs/running.md says why npm checks engines against the Node that runs npm). Checked: the
 * script names that version; npm on that Node resolves the lockfile's tree with no engine warning.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "./server.ts";

const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** A command with the project's node_modules/.bin first on PATH (where the npm scripts run). */
function run(file: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  const PATH = [path.join(root, "node_modules", ".bin"), process.env.PATH].join(path.delimiter);
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: { ...process.env, PATH }, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

describe("npm run setup", () => {
  it("runs npm install on the node devDependency's version, and no .npmrc setting hides warnings", () => {
    expect(pkg.scripts.setup).toBe(`npx --yes --package node@${pkg.devDependencies.node} --call 'npm install'`);
    const npmrc = readFileSync(path.join(root, ".npmrc"), "utf8");
    expect(npmrc).not.toMatch(/^\s*(loglevel|force|engine-strict\s*=\s*true)\b/m);
    expect(readFileSync(path.join(root, ".nvmrc"), "utf8").trim()).toBe(pkg.devDependencies.node!.split(".")[0]);
  });

  it("npm on that Node resolves the project's dependency tree without an engine warning", async () => {
    const node = await run("node", ["--version"], root);
    expect(node.out.trim()).toBe(`v${pkg.devDependencies.node}`);
    const dir = mkdtempSync(path.join(tmpdir(), "ticketing-install-"));
    try {
      for (const file of ["package.json", "package-lock.json", ".npmrc", "examples/typed-client/package.json"]) {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        copyFileSync(path.join(root, file), path.join(dir, file));
      }
      const install = await run("npm", ["install", "--package-lock-only", "--ignore-scripts", "--offline"], dir);
      expect(install.code, install.out).toBe(0);
      expect(install.out).not.toContain("EBADENGINE");
      expect(install.out).not.toMatch(/npm warn/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
