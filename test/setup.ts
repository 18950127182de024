// Applies the D1 migrations before the tests of each file: the directory's to DIRECTORY, the
// data schema to each organizer group's database (DB, DB_2) with the group's id range; and
// holds every D1 statement of the suite to D1's production limits (./helpers/d1-guard.ts:
// bound parameters, LIKE patterns, statement length, function arguments), with D1 faults
// injectable by tests (cleared after each test).
import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach } from "vitest";
import { idRangeSql } from "../src/db/id-ranges";
import { dataGroups, groupDatabase } from "../src/lib/data-groups";
import { installD1Guard } from "./helpers/d1-guard";
import { clearD1Faults } from "./helpers/faults";

installD1Guard(env.DB);
afterEach(() => clearD1Faults());

const given = env as unknown as { TEST_MIGRATIONS: D1Migration[]; TEST_DIRECTORY_MIGRATIONS: D1Migration[] };
await applyD1Migrations(env.DIRECTORY, given.TEST_DIRECTORY_MIGRATIONS);
for (const group of dataGroups(env)) {
  const d1 = groupDatabase(env, group);
  await applyD1Migrations(d1, given.TEST_MIGRATIONS);
  const range = idRangeSql(group);
  if (range) await d1.exec(range);
}
