/**
 * Moving an organizer between organizer groups (src/db/organizer-move/): its data made through the
 * API moves from group 2 to 1 and back and answers the same; the source keeps none of it; an
 * interruption in every step, then a rerun, ends in the same state; writes while frozen are refused.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ID_RANGE } from "../../src/lib/data-groups";
import { isIndexShadow, MOVED_TABLES, NOT_MOVED, whereOf } from "../../src/db/organizer-move/registry.ts";
import { type Executor, MoveRefused, moveOrganizer } from "../../src/db/organizer-move/steps.ts";
import { forgetOrganizerRoute } from "../../src/services/organizers/organizer-groups";
import { groupD1, type Json } from "../harness";
import { venue } from "../helpers/checkin";

type Call = { binding: string; statements: string[] };

/** The tests' executor: each call one D1 batch on the binding; `fail` throws at the k-th call (1-based). */
function executor(fail?: { at: number; after: boolean }): Executor & { calls: Call[] } {
  const calls: Call[] = [];
  const run: Executor = async (binding, statements) => {
    calls.push({ binding, statements });
    const d1 = (env as unknown as Record<string, D1Database>)[binding]!;
    const interrupted = fail && calls.length === fail.at;
    if (interrupted && !fail.after) throw new Error(`interrupted before call ${fail.at}`);
    const results = await d1.batch(statements.map((s) => d1.prepare(s)));
    if (interrupted) throw new Error(`interrupted after call ${fail.at}`);
    return results.map((r) => (r.results ?? []) as Record<string, unknown>[]);
  };
  return Object.assign(run, { calls });
}

const move = (slug: string, to: number, execute: Executor, log?: (line: string) => void) =>
  moveOrganizer({ slug, to, groups: [1, 2], execute, waitSeconds: 0, log });

/** The organizer's rows per table in a group (tables with none left out). */
async function rowsIn(group: number, organizerId: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const rule of MOVED_TABLES) {
    if (rule.kind === "shared") continue;
    const row = await groupD1(group)
      .prepare(`SELECT count(*) AS n FROM ${rule.table} WHERE ${whereOf(rule, organizerId)}`)
      .first<{ n: number }>();
    if (row!.n) counts[rule.table] = row!.n;
  }
  return counts;
}

async function directoryRow(id: number) {
  return env.DIRECTORY.prepare("SELECT data_group, moving_to FROM directory_organizers WHERE id = ?")
    .bind(id)
    .first<{ data_group: number; moving_to: number | null }>();
}

/** An organizer with events, items, quotas, orders, check-ins, vouchers, a device, a webhook. */
async function organizerWithData() {
  const v = await venue({ group: 1 });
  await v.list();
  await v.sell();
  const scanned = await v.sell();
  const lists = (await v.client.get(`${v.path}/checkinlists/`)).body.results;
  expect((await v.redeem({ secret: scanned.secret, lists: [lists[0].id] })).body.status).toBe("ok");
  expect((await v.client.post(`${v.path}/vouchers/`, { code: "MOVE-ME", max_usages: 2 })).status).toBe(201);
  const hook = await v.client.post(`/api/v1/organizers/${v.orgSlug}/webhooks/`, {
    target_url: "https://hooks.example.com/in",
    action_types: ["pretix.event.order.placed"],
    all_events: true,
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  return v;
}

/** What the API answers about the organizer (same ids, same bodies). */
async function seen(v: Awaited<ReturnType<typeof venue>>): Promise<Json[]> {
  forgetOrganizerRoute(v.org.id);
  const paths = [
    `/api/v1/organizers/${v.orgSlug}/events/`,
    `${v.path}/orders/`,
    `${v.path}/checkinlists/`,
    `${v.path}/vouchers/`,
    `${v.path}/items/`,
    `${v.path}/quotas/`,
    `/api/v1/organizers/${v.orgSlug}/webhooks/`,
  ];
  const out: Json[] = [];
  for (const p of paths) {
    const r = await v.client.get(p);
    expect(r.status, p).toBe(200);
    out.push(r.body);
  }
  return out;
}

describe("moving an organizer to another group", () => {
  it("every table of a migrated data database is either moved or said to hold no organizer's rows", async () => {
    const { results } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{
      name: string;
    }>();
    const moved = new Set(MOVED_TABLES.map((r) => r.table));
    const unknown = results.map((r) => r.name).filter((n) => !moved.has(n) && !(n in NOT_MOVED) && !isIndexShadow(n));
    expect(unknown).toEqual([]);
    const names = new Set(results.map((r) => r.name));
    expect([...moved].filter((t) => !names.has(t))).toEqual([]);
    expect(moved.size).toBe(MOVED_TABLES.length);
  });

  it("moves from group 1 to group 2 and back: the API answers the same, the source keeps nothing, new rows get the new group's ids", async () => {
    const v = await organizerWithData();
    const before = await seen(v);
    const rows = await rowsIn(1, v.org.id);
    expect(rows.orders).toBe(2);
    expect(rows.checkins).toBe(1);

    const steps: string[] = [];
    await move(v.orgSlug, 2, executor(), (l) => steps.push(l.split(":")[0]!));
    expect(steps).toEqual(["freeze", "copy", "copied", "verify", "verified", "switch", "delete", "done"]);
    expect(await directoryRow(v.org.id)).toEqual({ data_group: 2, moving_to: null });
    expect(await seen(v)).toEqual(before);
    expect(await rowsIn(2, v.org.id)).toEqual(rows);
    expect(await rowsIn(1, v.org.id)).toEqual({});

    // back to group 1, then a new order there takes an id of group 1's range and can be scanned
    await move(v.orgSlug, 1, executor());
    expect(await directoryRow(v.org.id)).toEqual({ data_group: 1, moving_to: null });
    expect(await seen(v)).toEqual(before);
    expect(await rowsIn(1, v.org.id)).toEqual(rows);
    expect(await rowsIn(2, v.org.id)).toEqual({});
    const sold = await v.sell();
    expect(sold.id).toBeLessThanOrEqual(ID_RANGE);
    const lists = (await v.client.get(`${v.path}/checkinlists/`)).body.results;
    expect((await v.redeem({ secret: sold.secret, lists: [lists[0].id] })).body.status).toBe("ok");

    // to group 2 again: its new order takes an id of group 2's range
    await move(v.orgSlug, 2, executor());
    const after = await seen(v);
    expect((await rowsIn(2, v.org.id)).orders).toBe(3);
    const next = await v.sell();
    expect(next.id).toBeGreaterThan(ID_RANGE);

    // rows with ids of group 2's range cannot go to group 1 (SQLite would go on above them there):
    // refused before anything changes
    await expect(move(v.orgSlug, 1, executor())).rejects.toThrow("has rows with ids above group 1's range (");
    expect(await directoryRow(v.org.id)).toEqual({ data_group: 2, moving_to: null });
    expect(await rowsIn(1, v.org.id)).toEqual({});
    expect((await seen(v))[1].count).toBe(after[1].count + 1);

    // there already, or no such group: refused
    await expect(move(v.orgSlug, 2, executor())).rejects.toThrow(MoveRefused);
    await expect(move(v.orgSlug, 3, executor())).rejects.toThrow("not an organizer group");
  });

  it("an interruption in each step, then a rerun: the same end state, nothing lost or doubled; writes while frozen answer 503", async () => {
    const v = await organizerWithData();
    const before = await seen(v);
    const rows = await rowsIn(1, v.org.id);

    // a clean move shows where each step's calls start
    const probe = executor();
    const starts: Record<string, number> = {};
    await move(v.orgSlug, 2, probe, (l) => {
      starts[l.split(":")[0]!] ??= probe.calls.length + 1;
    });
    const total = probe.calls.length;
    await move(v.orgSlug, 1, executor());
    const points = [
      starts.freeze!, // the freeze's update
      starts.copy!, // the target's cleanup
      Math.floor((starts.copy! + starts.verify!) / 2), // halfway through the copy
      starts.verify! + 1, // verifying: the target's rows
      starts.switch!, // the switch's update
      starts.delete!, // the source's first deletes
      total, // the last delete
    ];
    let here = 1;
    for (const [i, at] of points.entries()) {
      const to = here === 1 ? 2 : 1;
      const failing = executor({ at, after: i % 2 === 1 });
      await expect(move(v.orgSlug, to, failing), `interrupted at call ${at}`).rejects.toThrow(/interrupted/);
      if (i === 2) {
        // frozen: writes refused and nothing changes, reads go on
        forgetOrganizerRoute(v.org.id);
        const refused = await v.client.post(`${v.path}/orders/`, {
          email: "late@example.com",
          positions: [{ item: (await v.client.get(`${v.path}/items/`)).body.results[0].id }],
        });
        expect(refused.status).toBe(503);
        expect(refused.headers.get("retry-after")).toBe("1");
        expect((await v.client.get(`${v.path}/orders/`)).body.count).toBe(2);
      }
      await move(v.orgSlug, to, executor());
      here = to;
      expect(await directoryRow(v.org.id), `interrupted at call ${at}`).toEqual({ data_group: to, moving_to: null });
      expect(await rowsIn(to, v.org.id), `interrupted at call ${at}`).toEqual(rows);
      expect(await rowsIn(to === 1 ? 2 : 1, v.org.id), `interrupted at call ${at}`).toEqual({});
      expect(await seen(v)).toEqual(before);
    }
  });

  it("a copy that lost rows fails its verify: no switch, the organizer stays in its group; a rerun completes it", async () => {
    const v = await organizerWithData();
    const rows = await rowsIn(1, v.org.id);
    const plain = executor();
    // the target never receives the organizer's check-ins
    const lossy: Executor = async (binding, statements) => {
      const kept = binding === "DB_2" ? statements.filter((s) => !s.startsWith('INSERT INTO "checkins"')) : statements;
      return kept.length ? plain(binding, kept) : [];
    };
    await expect(move(v.orgSlug, 2, lossy)).rejects.toThrow(
      "verify: checkins differs between DB (1 rows) and DB_2 (0 rows)",
    );
    expect(await directoryRow(v.org.id)).toEqual({ data_group: 1, moving_to: 2 });
    expect(await rowsIn(1, v.org.id)).toEqual(rows);
    await move(v.orgSlug, 2, executor());
    expect(await directoryRow(v.org.id)).toEqual({ data_group: 2, moving_to: null });
    expect(await rowsIn(2, v.org.id)).toEqual(rows);
  });

  it("a copy that changed a value with the same row count fails its verify: no switch; a rerun completes it", async () => {
    const v = await organizerWithData();
    const rows = await rowsIn(1, v.org.id);
    const plain = executor();
    // the target receives every row, one voucher's code changed on the way
    const altering: Executor = async (binding, statements) => {
      const sent =
        binding === "DB_2"
          ? statements.map((s) => (s.startsWith('INSERT INTO "vouchers"') ? s.replace("'MOVE-ME'", "'MOVE-MX'") : s))
          : statements;
      return plain(binding, sent);
    };
    await expect(move(v.orgSlug, 2, altering)).rejects.toThrow(
      "verify: vouchers differs between DB (1 rows) and DB_2 (1 rows)",
    );
    expect(await directoryRow(v.org.id)).toEqual({ data_group: 1, moving_to: 2 });
    expect(await rowsIn(1, v.org.id)).toEqual(rows);
    expect((await v.client.get(`${v.path}/vouchers/?code=MOVE-ME`)).body.count).toBe(1);
    await move(v.orgSlug, 2, executor());
    expect(await directoryRow(v.org.id)).toEqual({ data_group: 2, moving_to: null });
    expect(await rowsIn(2, v.org.id)).toEqual(rows);
  });

  it("a user of the same email under another id in the target: refused before the freeze, nothing changed", async () => {
    const v = await venue({ group: 1 });
    const email = `clash-${v.org.id}@example.com`;
    const [user] = (
      await groupD1(1)
        .prepare("INSERT INTO users (email, created_at) VALUES (?, 0) RETURNING id")
        .bind(email)
        .all<{ id: number }>()
    ).results;
    await groupD1(1)
      .prepare("INSERT INTO team_members (team_id, user_id) VALUES (?, ?)")
      .bind(v.org.teamId, user!.id)
      .run();
    await groupD1(2).prepare("INSERT INTO users (email, created_at) VALUES (?, 0)").bind(email).run();
    await expect(move(v.orgSlug, 2, executor())).rejects.toThrow(`the user ${email} (id ${user!.id}) is user id`);
    expect(await directoryRow(v.org.id)).toEqual({ data_group: 1, moving_to: null });
    expect(await rowsIn(2, v.org.id)).toEqual({});
  });
});
