/**
 * The browser tests (`npm run test:browser`): kept out of `npm test` (test/vitest.config.ts),
 * since they need Debian's Chromium and start the service themselves. Plain Node, one file
 * after the other in one process, every test of a file in order; the files that start the
 * service alike share one server (global-setup.ts), each with an organizer of its own.
 */
import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..", "..");

export default defineConfig({
  root,
  test: {
    name: "browser",
    root,
    environment: "node",
    include: ["test/browser/**/*.test.ts"],
    // the screenshot directory is emptied once, before the first file; the shared servers
    globalSetup: ["test/browser/global-setup.ts"],
    fileParallelism: false,
    // one process for all files: the servers they share are kept in it (test/bench/shared-services.ts)
    isolate: false,
    // starting the service and Chromium on a busy machine; a flow visits a dozen pages
    testTimeout: 120_000,
    hookTimeout: 240_000,
    reporters: ["verbose"],
  },
});
