import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/directory/schema.ts",
  out: "./migrations/directory",
});
