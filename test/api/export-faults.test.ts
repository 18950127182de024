/**
 * Exports survive faults (issue 12, item 3): D1 failing as an export starts (refused, or the
 * answer lost), R2 failing for a step, and D1 losing the answer of a step's commit. Each time
 * the client gets a retryable answer or its export, and the export ends as one file with every
 * row once. (Redelivered messages and a step failing for good: test/api/exporters.test.ts.)
 */
import type { ExportMessage } from "../../src/lib/queues";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { exportJobs } from "../../src/db/schema";
import { D1_UNAVAILABLE } from "../../src/services/faults";
import { runHousekeeping } from "../../src/jobs/housekeeping";
import { db, HARNESS_GROUP } from "../harness";
import { injectD1Fault } from "../helpers/faults";
import { captureExportMessages, deliver, drain, exportEnv, keepMessagesOf } from "../helpers/exports";
import { type Shop, shop } from "../helpers/sales";

let sent: ExportMessage[];
beforeEach(() => {
  sent = captureExportMessages();
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const SMALL_STEPS = exportEnv({ EXPORT_STEP_ROWS: "2" });
const JOB_INSERT = /^\s*INSERT INTO export_jobs/;

/** An event with five paid one-ticket orders. */
async function sold(): Promise<Shop> {
  const s = await shop();
  const ticket = await s.item({ name: { en: "Ticket" }, default_price: "20.00" });
  await s.quota({ size: 100, items: [ticket.id] });
  for (let i = 0; i < 5; i++) {
    const res = await s.client.post(`${s.path}/orders/`, {
      email: `buyer${i}@example.org`,
      status: "p",
      payment_provider: "manual",
      positions: [{ item: ticket.id }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  return s;
}

const run = (s: Shop) => s.client.post(`${s.path}/exporters/orderlist/run/`, { _format: "orders:default" });
const jobsOf = async (s: Shop) => {
  const event = (await db().query.events.findFirst({ where: (e, { eq: is }) => is(e.slug, s.eventSlug) }))!;
  return db().select().from(exportJobs).where(eq(exportJobs.eventId, event.id));
};

async function lines(s: Shop, download: string): Promise<string[]> {
  const { exports } = await import("cloudflare:workers");
  const res = await exports.default.fetch(
    new Request(download, { headers: { Authorization: s.client.authorization! } }),
  );
  expect(res.status).toBe(200);
  return (await res.text()).trim().split("\r\n");
}

describe("export faults", () => {
  it("starting: D1 refuses the job → 503, no job, no message; the answer lost → 202 with the job, once", async () => {
    const s = await sold();
    injectD1Fault(JOB_INSERT, "fail");
    const refused = await run(s);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body).toEqual({ detail: D1_UNAVAILABLE });
    expect(await jobsOf(s)).toEqual([]);
    expect(sent).toEqual([]);

    injectD1Fault(JOB_INSERT, "lost");
    const lost = await run(s);
    expect(lost.status, JSON.stringify(lost.body)).toBe(202);
    const jobs = await jobsOf(s);
    expect(jobs.map((j) => j.id)).toEqual([lost.body.download.split("/").at(-2)]);
    expect(sent).toEqual([{ kind: "export", exportId: jobs[0]!.id, step: 0, group: HARNESS_GROUP }]);
    await drain(sent);
    expect(await lines(s, lost.body.download)).toHaveLength(6);
  });

  it("R2 failing for one step: the message is retried and the export ends as one file with every order once", async () => {
    const s = await sold();
    const res = await run(s);
    const first = sent.shift()!;
    await deliver(first, SMALL_STEPS);
    // the second step's write to R2 fails once
    const put = env.FILES.put.bind(env.FILES);
    const spy = vi.spyOn(env.FILES, "put").mockRejectedValueOnce(new Error("R2 is down"));
    const createMultipart = vi.spyOn(env.FILES, "createMultipartUpload");
    const second = sent.shift()!;
    const failed = await deliver(second, SMALL_STEPS);
    expect(failed.retryMessages).toHaveLength(1);
    expect(spy.mock.calls.length + createMultipart.mock.calls.length).toBeGreaterThan(0);
    spy.mockImplementation(put);
    expect((await s.client.get(res.body.download)).status).toBe(409);
    // the retried delivery runs the step again
    expect((await deliver(second, SMALL_STEPS, 2)).explicitAcks).toHaveLength(1);
    await drain(sent, SMALL_STEPS);
    const rows = await lines(s, res.body.download);
    expect(rows).toHaveLength(6);
    expect(new Set(rows).size).toBe(6);
  });

  it("D1 losing the answer of a step's commit: the retried message finds the step done; the cron sends the next step; one file", async () => {
    const s = await sold();
    const res = await run(s);
    const first = sent.shift()!;
    injectD1Fault(/^update "export_jobs" set .*"cursor" = \?/, "lost");
    const lost = await deliver(first, SMALL_STEPS);
    expect(lost.retryMessages).toHaveLength(1);
    // the step was committed, its next message not sent
    expect(sent).toEqual([]);
    expect((await deliver(first, SMALL_STEPS, 2)).explicitAcks).toHaveLength(1);
    expect(sent).toEqual([]);
    // the cron finds the export stopped and sends the next step again
    vi.useFakeTimers({ now: Date.now() + 11 * 60_000, toFake: ["Date"] });
    await runHousekeeping(env as never, Date.now());
    vi.useRealTimers();
    keepMessagesOf(sent, first.exportId);
    expect(sent).toEqual([{ kind: "export", exportId: first.exportId, step: 1, group: HARNESS_GROUP }]);
    await drain(sent, SMALL_STEPS);
    const rows = await lines(s, res.body.download);
    expect(rows).toHaveLength(6);
    expect(new Set(rows).size).toBe(6);
  });
});
