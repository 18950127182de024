import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..");

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(root, "migrations"));
  return {
    root,
    test: {
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: path.join(root, "wrangler.toml") },
              miniflare: {
                bindings: { TEST_MIGRATIONS: migrations },
              },
            }),
          ],
          test: {
            name: "workers",
            root,
            include: ["test/api/**/*.test.ts", "test/unit/**/*.test.ts"],
            setupFiles: ["test/setup.ts"],
          },
        },
        {
          test: {
            name: "node",
            root,
            environment: "node",
            include: ["test/node/**/*.test.ts"],
            testTimeout: 180_000,
            hookTimeout: 180_000,
          },
        },
      ],
    },
  };
});
