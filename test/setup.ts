// Applies the D1 migrations before the tests of each file (isolated storage per file), and
// holds every D1 statement of the suite to D1's production limits (./helpers/d1-guard.ts:
// bound parameters, LIKE patterns, statement length, function arguments), with D1 faults
// injectable by tests (cleared after each test).
import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach } from "vitest";
import { installD1Guard } from "./helpers/d1-guard";
import { clearD1Faults } from "./helpers/faults";

installD1Guard(env.DB);
afterEach(() => clearD1Faults());

await applyD1Migrations(env.DB, (env as unknown as { TEST_MIGRATIONS: D1Migration[] }).TEST_MIGRATIONS);
