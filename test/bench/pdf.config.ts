// `npm run bench:pdf`: PDF rendering timings under Node (test/bench/pdf.bench.ts); not part of `npm test`.
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: path.resolve(import.meta.dirname, "..", ".."),
    environment: "node",
    include: ["test/bench/pdf.bench.ts"],
    testTimeout: 600_000,
    execArgv: ["--expose-gc"],
  },
});
