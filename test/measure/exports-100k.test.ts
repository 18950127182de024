/**
 * Measurement, not a test of behaviour (run on demand: `EXPORT_BENCH=1 npx vitest run --config
 * test/vitest.config.ts test/measure/exports-100k.test.ts`): an event with 100,000 positions
 * exported as positions CSV, as the XLSX workbook and as the JSON document with the default
 * step size; prints the steps, the time per step and in total, and the file sizes.
 */
import type { ExportMessage } from "../../src/lib/queues";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { afterEach, it, vi } from "vitest";
import { db } from "../harness";
import { captureExportMessages, deliver } from "../helpers/exports";
import { shop } from "../helpers/sales";

afterEach(() => vi.restoreAllMocks());

it("exports 100,000 positions", { timeout: 1_800_000 }, async () => {
  const sent = captureExportMessages();
  const s = await shop();
  const ticket = await s.item();
  const ev = await db().all<{ id: number }>(sql`SELECT id FROM events WHERE slug = ${s.eventSlug}`);
  const eventId = ev[0]!.id;
  const t0 = Date.now();
  await db().run(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000)
    INSERT INTO orders (event_id, code, status, testmode, secret, email, locale, sales_channel, datetime, expires, total, comment, checkin_attention, require_approval, invoice_address, last_modified)
    SELECT ${eventId}, printf('B%07d', i), CASE WHEN i % 10 = 0 THEN 'n' ELSE 'p' END, 0, printf('secret%010d', i), printf('buyer%d@example.org', i), 'en', 'web',
           ${t0} + i * 1000, ${t0} + 86400000, 4000, '', 0, 0,
           json_object('company', '', 'name_parts', json_object('full_name', printf('Buyer Nummer %d', i)), 'street', 'Hauptstraße 1', 'zipcode', '10115', 'city', 'Berlin', 'country', 'DE', 'state', '', 'vat_id', '', 'internal_reference', '', 'is_business', 0, 'last_modified', 0),
           ${t0} FROM n`);
  for (const positionid of [1, 2]) {
    await db().run(sql`INSERT INTO order_positions (order_id, event_id, positionid, item_id, price, attendee_name, attendee_name_parts, attendee_email, tax_rate, tax_value, secret, pseudonymization_id, answers, canceled, is_bundled)
      SELECT o.id, ${eventId}, ${positionid}, ${ticket.id}, 2000, printf('Gast %d-%d Müller', o.id, ${positionid}), json_object('full_name', printf('Gast %d-%d Müller', o.id, ${positionid})),
             printf('guest%d-%d@example.org', o.id, ${positionid}), 1900, 319, printf('s%d-%d-xxxxxxxxxxxxxxxxxxxxxxxx', o.id, ${positionid}), printf('P%09d', o.id * 2 + ${positionid}), '[]', 0, 0
      FROM orders o WHERE o.event_id = ${eventId}`);
  }
  await db().run(sql`INSERT INTO order_payments (order_id, local_id, state, amount, provider, created, payment_date, info)
    SELECT id, 1, 'confirmed', 4000, 'manual', ${t0}, ${t0}, '{}' FROM orders WHERE event_id = ${eventId} AND status = 'p'`);
  console.log(`seeded 50,000 orders with 100,000 positions in ${Date.now() - t0} ms`);

  for (const [identifier, body] of [
    ["orderlist", { _format: "positions:default" }],
    ["orderlist", { _format: "xlsx" }],
    ["json", {}],
  ] as const) {
    const res = await s.client.post(`${s.path}/exporters/${identifier}/run/`, body);
    const started = Date.now();
    const steps: number[] = [];
    while (sent.length) {
      const m = sent.shift() as ExportMessage;
      const t = Date.now();
      await deliver(m);
      steps.push(Date.now() - t);
    }
    const total = Date.now() - started;
    const head = await env.FILES.list({ prefix: `exports/${res.body.download.split("/").at(-2)}/` });
    const size = head.objects[0]?.size ?? 0;
    const sorted = [...steps].sort((a, b) => a - b);
    console.log(
      `${identifier} ${JSON.stringify(body)}: ${steps.length} steps, ${total} ms in total, per step min ${sorted[0]} / median ${sorted[Math.floor(steps.length / 2)]} / max ${sorted.at(-1)} ms, file ${(size / 1048576).toFixed(1)} MiB; steps in order: ${steps.join(" ")}`,
    );
  }
});
