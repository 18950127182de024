/**
 * The event object that cannot serve in time (EVENT_OBJECT_TIMEOUT_MS = 400 in this project):
 * voucher changes answer 409, selling answers 503; nothing is changed.
 */
import { describe, expect, it } from "vitest";
import { db } from "../harness";
import { breakObjectWrites } from "../helpers/faults";
import { shop } from "../helpers/sales";

describe("an event object that cannot serve in time", () => {
  for (const mode of ["fail", "hang"] as const) {
    it(`answers 409 for voucher changes when its writes ${mode}`, async () => {
      const s = await shop();
      const ticket = await s.item();
      const quota = await s.quota({ size: 10, items: [ticket.id] });
      const eventId = (await db().query.events.findFirst({ where: (e, { eq }) => eq(e.slug, s.eventSlug) }))!.id;
      await s.client.get(`${s.path}/quotas/`, { headers: {} });
      expect((await s.client.get(`${s.path}/quotas/${quota.id}/availability/`)).status).toBe(200);
      await breakObjectWrites(eventId, mode);
      const res = await s.client.post(`${s.path}/vouchers/`, {
        code: `BUSY${mode.toUpperCase()}1`,
        item: ticket.id,
        block_quota: true,
      });
      expect(res.status).toBe(409);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(res.body.detail).toMatch(/busy/);
      expect((await s.client.get(`${s.path}/vouchers/`)).body.count).toBe(0);
      const order = await s.client.post(`${s.path}/orders/`, { positions: [{ item: ticket.id }] });
      expect(order.status).toBe(503);
    });
  }
});
