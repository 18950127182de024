/**
 * Fixed statements (src/db/fixed.ts): built once per isolate, each use binding only its values,
 * they read and write exactly what drizzle's own builders do: columns' encodings, NULLs, lists,
 * in a batch beside other statements and awaited alone.
 */
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { fixed, inList, listValue, p, rowInsert } from "../../src/db/fixed";
import { devices, webhooks } from "../../src/db/schema";
import { db, seedOrganizer, unique } from "../harness";

const insertWebhook = rowInsert(webhooks);

async function hook(organizerId: number, row: Partial<typeof webhooks.$inferInsert> = {}) {
  const [r] = await db()
    .insert(webhooks)
    .values({ organizerId, targetUrl: "https://example.org/a", actionTypes: ["x"], secret: "s", createdAt: 1, ...row })
    .returning();
  return r!;
}

describe("fixed statements", () => {
  it("build their text once and answer each use's own values, as drizzle's builder would", async () => {
    const org = await seedOrganizer();
    const a = await hook(org.id, { targetUrl: "https://example.org/a", enabled: false });
    const b = await hook(org.id, { targetUrl: "https://example.org/b" });
    let builds = 0;
    const byId = fixed((d) => {
      builds++;
      return d
        .select()
        .from(webhooks)
        .where(eq(webhooks.id, p("id")));
    });
    const [rowA] = await byId.bind(db(), { id: a.id });
    const [rowB] = await byId.bind(db(), { id: b.id });
    expect(builds).toBe(1);
    expect(rowA).toEqual(a);
    expect(rowB).toEqual(b);
    expect(rowA!.enabled).toBe(false);
    expect(rowB!.actionTypes).toEqual(["x"]);
  });

  it("bind a list as one value: any length, the empty list matches nothing", async () => {
    const org = await seedOrganizer();
    const ids = [(await hook(org.id)).id, (await hook(org.id)).id, (await hook(org.id)).id];
    const some = fixed((d) => d.select({ id: webhooks.id }).from(webhooks).where(inList(webhooks.id, "ids")));
    const found = async (list: number[]) =>
      (await some.bind(db(), { ids: listValue(list) })).map((r) => r.id).sort((x, y) => x - y);
    expect(await found(ids)).toEqual(ids);
    expect(await found([ids[1]!, ids[1]!, -5])).toEqual([ids[1]]);
    expect(await found([])).toEqual([]);
  });

  it("run in one batch with drizzle's own statements, each answering its own rows", async () => {
    const org = await seedOrganizer();
    const a = await hook(org.id);
    const byId = fixed((d) =>
      d
        .select({ id: webhooks.id })
        .from(webhooks)
        .where(eq(webhooks.id, p("id"))),
    );
    const [fixedRows, ownRows] = await db().batch([
      byId.bind(db(), { id: a.id }),
      db().select({ n: sql<number>`count(*)` }).from(webhooks).where(eq(webhooks.organizerId, org.id)),
    ]);
    expect(fixedRows).toEqual([{ id: a.id }]);
    expect(ownRows).toEqual([{ n: 1 }]);
  });

  it("fail loudly when a value is missing, and never bind SQL as a value", async () => {
    const byId = fixed((d) =>
      d
        .select()
        .from(webhooks)
        .where(eq(webhooks.id, p("id"))),
    );
    expect(() => byId.bind(db(), {})).toThrow(/No value for placeholder "id"/);
    const org = await seedOrganizer();
    expect(() =>
      insertWebhook(db(), {
        organizerId: org.id,
        targetUrl: sql`'x'` as unknown as string,
        actionTypes: [],
        secret: "s",
        createdAt: 1,
      }),
    ).toThrow(/targetUrl is SQL/);
  });
});

describe("rowInsert", () => {
  it("writes each column as drizzle encodes it: booleans, JSON, and NULL as NULL (not JSON null)", async () => {
    const org = await seedOrganizer();
    const base = { organizerId: org.id, targetUrl: "https://example.org/r", secret: "s", createdAt: 7 };
    await insertWebhook(db(), { ...base, enabled: false, actionTypes: ["a", "b"], comment: null });
    await insertWebhook(db(), { ...base, enabled: true, actionTypes: [], comment: "with a comment" });
    // a third shape: comment left out (undefined), enabled left to its default
    await insertWebhook(db(), { ...base, actionTypes: ["c"], comment: undefined });
    const rows = await db()
      .select({
        enabled: webhooks.enabled,
        actionTypes: webhooks.actionTypes,
        comment: webhooks.comment,
        commentType: sql<string>`typeof(${webhooks.comment})`,
        actionsText: sql<string>`${webhooks.actionTypes}`,
      })
      .from(webhooks)
      .where(eq(webhooks.organizerId, org.id))
      .orderBy(webhooks.id);
    expect(rows).toEqual([
      { enabled: false, actionTypes: ["a", "b"], comment: null, commentType: "null", actionsText: '["a","b"]' },
      { enabled: true, actionTypes: [], comment: "with a comment", commentType: "text", actionsText: "[]" },
      { enabled: true, actionTypes: ["c"], comment: null, commentType: "null", actionsText: '["c"]' },
    ]);
  });

  it("writes a JSON column's null as SQL NULL and its value as JSON", async () => {
    const org = await seedOrganizer();
    const insertDevice = rowInsert(devices);
    const device = (n: number, info: Record<string, unknown> | null) =>
      insertDevice(db(), {
        organizerId: org.id,
        deviceId: n,
        uniqueSerial: unique("serial"),
        name: `Gate ${n}`,
        info,
        createdAt: 1,
        initializationToken: unique("init"),
      });
    await device(1, null);
    await device(2, { os: "x" });
    const rows = await db()
      .select({ info: devices.info, infoType: sql<string>`typeof(${devices.info})` })
      .from(devices)
      .where(eq(devices.organizerId, org.id))
      .orderBy(devices.deviceId);
    expect(rows).toEqual([
      { info: null, infoType: "null" },
      { info: { os: "x" }, infoType: "text" },
    ]);
  });
});
