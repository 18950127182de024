/**
 * The Worker's `queue` and `scheduled` entry points (src/index.ts), driven as the platform
 * drives them, through the test pool's helpers: messages and cron runs arrive at least once,
 * so a message delivered twice and a cron firing twice change nothing the second time.
 */
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { mailOutbox } from "../../src/db/schema";
import entry from "../../src/index";
import type { Env } from "../../src/lib/env";
import type { QueueMessage } from "../../src/lib/queues";
import { db, HARNESS_GROUP, seedOrganizer } from "../harness";
import { shop } from "../helpers/sales";

/** The Worker as the platform sees it: every entry point called with (input, env, ctx). */
const worker: Required<Pick<ExportedHandler<Env, QueueMessage>, "queue" | "scheduled">> = entry;

type Line = Record<string, unknown>;

/** Every log line written while the test runs (each one object: src/lib/log.ts). */
function captureLogs(): Line[] {
  const lines: Line[] = [];
  for (const method of ["log", "info", "warn", "error"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      expect(args).toHaveLength(1);
      lines.push(args[0] as Line);
    });
  }
  return lines;
}

afterEach(() => {
  vi.restoreAllMocks();
});

async function queuedMail(organizerId: number) {
  const [row] = await db()
    .insert(mailOutbox)
    .values({
      organizerId,
      kind: "team_invite",
      toAddress: "colleague@example.org",
      subject: "Join us",
      textBody: "Hello",
      createdAt: Date.now(),
    })
    .returning();
  return row!;
}

async function deliver(messages: { id: string; body: QueueMessage; attempts?: number }[]) {
  const batch = createMessageBatch<QueueMessage>(
    "ticketing-mail",
    messages.map((m) => ({
      id: m.id,
      timestamp: new Date(),
      attempts: m.attempts ?? 1,
      body: { group: HARNESS_GROUP, ...m.body },
    })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

describe("queue entry point", () => {
  it("a mail message delivered twice sends the mail once; both deliveries are acknowledged", async () => {
    const org = await seedOrganizer();
    const mail = await queuedMail(org.id);
    const lines = captureLogs();

    const first = await deliver([{ id: "m-1", body: { kind: "mail", mailId: mail.id } }]);
    expect(first.explicitAcks).toEqual(["m-1"]);
    expect(first.retryMessages).toEqual([]);
    const [sent] = await db().select().from(mailOutbox).where(eq(mailOutbox.id, mail.id));
    expect(sent).toMatchObject({ state: "sent", attempts: 0, lastError: null });
    expect(sent!.sentAt).toEqual(expect.any(Number));

    const again = await deliver([{ id: "m-1", body: { kind: "mail", mailId: mail.id }, attempts: 2 }]);
    expect(again.explicitAcks).toEqual(["m-1"]);
    expect(again.retryMessages).toEqual([]);
    const [after] = await db().select().from(mailOutbox).where(eq(mailOutbox.id, mail.id));
    expect(after).toEqual(sent); // not sent again: same state, same time

    // the local transport's line, once, with the queue it came from; one summary line per batch
    const kept = lines.filter((l) => l.message === "mail kept in the outbox (local transport)");
    expect(kept).toEqual([
      {
        level: "info",
        message: "mail kept in the outbox (local transport)",
        queue: "ticketing-mail",
        mail_id: mail.id,
        mail_kind: "team_invite",
        to: "colleague@example.org",
        subject: "Join us",
      },
    ]);
    // (other test files' objects may hand mails to the queue meanwhile: their batches are theirs)
    const batches = lines.filter((l) => l.message === "queue batch handled");
    expect(batches.length).toBeGreaterThanOrEqual(2);
    expect(batches[0]).toEqual({
      level: "info",
      message: "queue batch handled",
      queue: "ticketing-mail",
      messages: 1,
      duration_ms: expect.any(Number),
    });
  });

  it("acknowledges each message of a batch on its own; an unknown kind is dropped and logged, nothing retried", async () => {
    const org = await seedOrganizer();
    const a = await queuedMail(org.id);
    const b = await queuedMail(org.id);
    const lines = captureLogs();
    const result = await deliver([
      { id: "a", body: { kind: "mail", mailId: a.id } },
      { id: "x", body: { kind: "bogus" } as unknown as QueueMessage },
      { id: "b", body: { kind: "mail", mailId: b.id } },
      { id: "gone", body: { kind: "mail", mailId: 987654321 } },
    ]);
    expect(result.explicitAcks.sort()).toEqual(["a", "b", "gone", "x"]);
    expect(result.retryMessages).toEqual([]);
    const states = await db()
      .select({ id: mailOutbox.id, state: mailOutbox.state })
      .from(mailOutbox)
      .where(eq(mailOutbox.organizerId, org.id));
    expect(states.map((s) => s.state)).toEqual(["sent", "sent"]);
    expect(lines.filter((l) => l.level === "error")).toEqual([
      {
        level: "error",
        message: "queue message of unknown kind dropped",
        queue: "ticketing-mail",
        message_id: "x",
        body: { group: HARNESS_GROUP, kind: "bogus" },
      },
    ]);
  });
});

describe("scheduled entry point", () => {
  async function fire(scheduledTime: number) {
    const controller = createScheduledController({ scheduledTime, cron: "*/15 * * * *" });
    const ctx = createExecutionContext();
    await worker.scheduled(controller, env, ctx);
    await waitOnExecutionContext(ctx);
  }

  it("a cron firing twice expires an overdue order once: the second run changes nothing", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 2, items: [ticket.id] });
    const overdue = (
      await s.client.post(`${s.path}/orders/`, { payment_provider: "manual", positions: [{ item: ticket.id }] })
    ).body;
    const paid = (
      await s.client.post(`${s.path}/orders/`, {
        status: "p",
        payment_provider: "manual",
        positions: [{ item: ticket.id }],
      })
    ).body;
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toMatchObject({
      available_number: 0,
      pending_orders: 1,
      paid_orders: 1,
    });
    const lines = captureLogs();
    const when = Date.parse(overdue.expires) + 60_000;

    await fire(when);
    const expired = (await s.client.get(`${s.path}/orders/${overdue.code}/`)).body;
    expect(expired.status).toBe("e");
    expect((await s.client.get(`${s.path}/orders/${paid.code}/`)).body.status).toBe("p");
    const availability = (await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body;
    expect(availability).toMatchObject({ available_number: 1, pending_orders: 0, paid_orders: 1 });
    const mails = await db().select().from(mailOutbox);

    await fire(when + 15 * 60_000);
    expect((await s.client.get(`${s.path}/orders/${overdue.code}/`)).body).toEqual(expired);
    expect((await s.client.get(`${s.path}/quotas/${q.id}/availability/`)).body).toEqual(availability);
    expect(await db().select().from(mailOutbox)).toEqual(mails);

    const runs = lines.filter((l) => l.message === "cron run done");
    expect(runs).toEqual([
      {
        level: "info",
        message: "cron run done",
        cron: "*/15 * * * *",
        scheduled_time: new Date(when).toISOString(),
        duration_ms: expect.any(Number),
      },
      {
        level: "info",
        message: "cron run done",
        cron: "*/15 * * * *",
        scheduled_time: new Date(when + 15 * 60_000).toISOString(),
        duration_ms: expect.any(Number),
      },
    ]);
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
  });
});
