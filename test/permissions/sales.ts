import { expect } from "vitest";
import {
  cartPosition,
  create,
  id,
  invoice,
  invoicingWorld,
  paidOrder,
  pendingOrder,
  quotaBody,
  renderedTickets,
  saleableItem,
  stripePaidOrder,
  stripeWebhookDelivery,
  type SetupWorld,
  voucherBody,
} from "./fixtures";
import type { MatrixRow, RowSetup } from "./types";

const ev = "/api/v1/organizers/:organizer/events/:event";

const quota = async (w: SetupWorld): Promise<RowSetup> => ({
  params: { id: id(await create(w, `${w.ev}/quotas`, quotaBody())) },
});
const voucher = async (w: SetupWorld): Promise<RowSetup> => ({
  params: { id: id(await create(w, `${w.ev}/vouchers`, voucherBody())) },
});
const cart = async (w: SetupWorld): Promise<RowSetup> => ({ params: { id: id(await cartPosition(w)) } });
/** A pending order with its open payment (local id 1). */
const order = async (w: SetupWorld): Promise<RowSetup> => ({
  params: { code: (await pendingOrder(w)).code, local: "1" },
});
/** A pending order waiting for approval. */
const awaitingApproval = async (w: SetupWorld): Promise<RowSetup> => {
  const it = await saleableItem(w);
  const o = await create(w, `${w.ev}/orders`, { require_approval: true, positions: [{ item: it.id }] });
  return { params: { code: o.code } };
};
/** A paid order. */
const paid = async (w: SetupWorld): Promise<RowSetup> => ({ params: { code: (await paidOrder(w)).code } });
/** A canceled order (its capacity free again). */
const canceledOrder = async (w: SetupWorld): Promise<RowSetup> => {
  const o = await pendingOrder(w);
  expect((await w.admin.post(`${w.ev}/orders/${o.code}/mark_canceled/`, { send_email: false })).status).toBe(200);
  return { params: { code: o.code } };
};
/** A pending order in test mode. */
const testModeOrder = async (w: SetupWorld): Promise<RowSetup> => {
  const it = await saleableItem(w);
  const o = await create(w, `${w.ev}/orders`, { testmode: true, positions: [{ item: it.id }] });
  return { params: { code: o.code } };
};
/** A refund recorded by hand (pretix's `POST .../refunds/` body). */
const refundBody = (state: string) => ({ state, source: "admin", amount: "1.00", provider: "manual" });
/** A pending order with a refund recorded in `state` (local id 1). */
const refundIn =
  (state: string) =>
  async (w: SetupWorld): Promise<RowSetup> => {
    const o = await pendingOrder(w);
    const res = await w.admin.post(`${w.ev}/orders/${o.code}/refunds/`, refundBody(state));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { params: { code: o.code, local: "1" } };
  };
/** A ticket (the position of a pending order). */
const ticket = async (w: SetupWorld): Promise<RowSetup> => ({
  params: { id: String((await pendingOrder(w)).positions[0].id) },
});
const cartBody = async (w: SetupWorld) => ({ item: (await saleableItem(w)).id, price: "1.00" });
/** A paid order whose tickets (all of them, or one position's) are rendered. */
const ticketsOf = async (w: SetupWorld): Promise<RowSetup> => {
  const o = await paidOrder(w);
  await renderedTickets(o, null);
  return { params: { code: o.code, output: "pdf" } };
};
const positionTicket = async (w: SetupWorld): Promise<RowSetup> => {
  const o = await paidOrder(w);
  await renderedTickets(o, o.positions[0].id);
  return { params: { id: String(o.positions[0].id), output: "pdf" } };
};
/** An invoice on its own event (invoice_generate "True"); `rendered`: with its PDF. */
const invoiceOf =
  (rendered = false) =>
  async (w: SetupWorld): Promise<RowSetup> => {
    const inv = await invoice(w, rendered);
    return { event: inv.event, params: { number: inv.number } };
  };

export const rows: MatrixRow[] = [
  { route: `GET ${ev}/quotas`, permission: null, setup: quota },
  { route: `POST ${ev}/quotas`, permission: "can_change_items", setup: async () => ({ body: quotaBody() }) },
  { route: `GET ${ev}/quotas/:id`, permission: null, setup: quota },
  {
    route: `PUT ${ev}/quotas/:id`,
    permission: "can_change_items",
    setup: async (w) => ({ ...(await quota(w)), body: quotaBody() }),
  },
  {
    route: `PATCH ${ev}/quotas/:id`,
    permission: "can_change_items",
    setup: async (w) => ({ ...(await quota(w)), body: { size: 20 } }),
  },
  { route: `DELETE ${ev}/quotas/:id`, permission: "can_change_items", setup: quota },
  { route: `DELETE ${ev}/quota/:id`, permission: "can_change_items", setup: quota },
  { route: `GET ${ev}/quotas/:id/availability`, permission: null, setup: quota },
  { route: `GET ${ev}/vouchers`, permission: "can_view_vouchers", setup: voucher },
  { route: `POST ${ev}/vouchers`, permission: "can_change_vouchers", setup: async () => ({ body: voucherBody() }) },
  {
    route: `POST ${ev}/vouchers/batch_create`,
    permission: "can_change_vouchers",
    body: [],
    setup: async () => ({ body: [voucherBody(), voucherBody()] }),
  },
  { route: `GET ${ev}/vouchers/:id`, permission: "can_view_vouchers", setup: voucher },
  {
    route: `PUT ${ev}/vouchers/:id`,
    permission: "can_change_vouchers",
    setup: async (w) => ({ ...(await voucher(w)), body: voucherBody() }),
  },
  {
    route: `PATCH ${ev}/vouchers/:id`,
    permission: "can_change_vouchers",
    setup: async (w) => ({ ...(await voucher(w)), body: { max_usages: 3 } }),
  },
  { route: `DELETE ${ev}/vouchers/:id`, permission: "can_change_vouchers", setup: voucher },
  { route: `GET ${ev}/cartpositions`, permission: "can_view_orders", setup: cart },
  {
    route: `POST ${ev}/cartpositions`,
    permission: "can_change_orders",
    setup: async (w) => ({ body: await cartBody(w) }),
  },
  {
    route: `POST ${ev}/cartpositions/bulk_create`,
    permission: "can_change_orders",
    body: [],
    setup: async (w) => ({ body: [await cartBody(w)] }),
    status: 200,
  },
  { route: `GET ${ev}/cartpositions/:id`, permission: "can_view_orders", setup: cart },
  { route: `DELETE ${ev}/cartpositions/:id`, permission: "can_change_orders", setup: cart },
  { route: `GET ${ev}/orders`, permission: "can_view_orders", setup: order },
  {
    route: `POST ${ev}/orders`,
    permission: "can_change_orders",
    setup: async (w) => ({ body: { positions: [{ item: (await saleableItem(w)).id }] } }),
  },
  { route: `GET ${ev}/orders/:code`, permission: "can_view_orders", setup: order },
  { route: `GET ${ev}/orders/:code/payments`, permission: "can_view_orders", setup: order },
  { route: `GET ${ev}/orders/:code/payments/:local`, permission: "can_view_orders", setup: order },
  {
    route: `POST ${ev}/orders/:code/payments/:local/confirm`,
    permission: "can_change_orders",
    setup: order,
    status: 200,
  },
  {
    route: `POST ${ev}/orders/:code/payments`,
    permission: "can_change_orders",
    setup: async (w) => ({ ...(await order(w)), body: { state: "pending", amount: "1.00", provider: "cash" } }),
  },
  {
    route: `POST ${ev}/orders/:code/payments/:local/cancel`,
    permission: "can_change_orders",
    setup: order,
    status: 200,
  },
  {
    route: `POST ${ev}/orders/:code/mark_paid`,
    permission: "can_change_orders",
    setup: async (w) => ({ ...(await order(w)), body: { send_email: false } }),
    status: 200,
  },
  {
    route: `POST ${ev}/orders/:code/mark_canceled`,
    permission: "can_change_orders",
    setup: async (w) => ({ ...(await order(w)), body: { send_email: false } }),
    status: 200,
  },
  { route: `POST ${ev}/orders/:code/mark_expired`, permission: "can_change_orders", setup: order, status: 200 },
  {
    route: `POST ${ev}/orders/:code/create_invoice`,
    permission: "can_change_orders",
    setup: async (w) => {
      const { w: own, order: o } = await invoicingWorld(w, "admin");
      return { event: own.eventSlug, params: { code: o.code } };
    },
    status: 200,
  },
  {
    route: `GET ${ev}/orders/:code/download/:output`,
    permission: "can_view_orders",
    params: { output: "pdf" },
    setup: ticketsOf,
  },
  {
    route: `GET ${ev}/orderpositions/:id/download/:output`,
    permission: "can_view_orders",
    params: { output: "pdf" },
    setup: positionTicket,
  },
  { route: `GET ${ev}/invoices`, permission: "can_view_orders", setup: invoiceOf() },
  { route: `GET ${ev}/invoices/:number`, permission: "can_view_orders", setup: invoiceOf() },
  { route: `GET ${ev}/invoices/:number/download`, permission: "can_view_orders", setup: invoiceOf(true) },
  { route: `POST ${ev}/invoices/:number/reissue`, permission: "can_change_orders", setup: invoiceOf(), status: 200 },
  { route: `POST ${ev}/invoices/:number/regenerate`, permission: "can_change_orders", setup: invoiceOf(), status: 200 },
  { route: `POST ${ev}/orders/:code/regenerate_secrets`, permission: "can_change_orders", setup: order, status: 200 },
  // order state operations and edits (pretix orders.rst; src/api/order-actions.ts)
  { route: `POST ${ev}/orders/:code/approve`, permission: "can_change_orders", setup: awaitingApproval, status: 200 },
  { route: `POST ${ev}/orders/:code/deny`, permission: "can_change_orders", setup: awaitingApproval, status: 200 },
  {
    route: `POST ${ev}/orders/:code/extend`,
    permission: "can_change_orders",
    setup: async (w) => ({ ...(await order(w)), body: { expires: "2035-01-01" } }),
    status: 200,
  },
  { route: `POST ${ev}/orders/:code/reactivate`, permission: "can_change_orders", setup: canceledOrder, status: 200 },
  { route: `POST ${ev}/orders/:code/mark_pending`, permission: "can_change_orders", setup: paid, status: 200 },
  { route: `POST ${ev}/orders/:code/mark_refunded`, permission: "can_change_orders", setup: paid, status: 200 },
  { route: `POST ${ev}/orders/:code/resend_link`, permission: "can_change_orders", setup: order, status: 204 },
  {
    route: `PATCH ${ev}/orders/:code`,
    permission: "can_change_orders",
    setup: async (w) => ({ ...(await order(w)), body: { comment: "Checked." } }),
    status: 200,
  },
  { route: `DELETE ${ev}/orders/:code`, permission: "can_change_orders", setup: testModeOrder, status: 204 },
  // refunds (pretix orders.rst): an order's refunds, the refund of a card payment
  { route: `GET ${ev}/orders/:code/refunds`, permission: "can_view_orders", setup: order },
  {
    route: `GET ${ev}/orders/:code/refunds/:local`,
    permission: "can_view_orders",
    setup: async (w) => {
      const o = await stripePaidOrder(w);
      const res = await w.admin.post(`${w.ev}/orders/${o.code}/payments/1/refund/`, { amount: "1.00" });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { params: { code: o.code, local: "1" } };
    },
  },
  {
    route: `POST ${ev}/orders/:code/refunds`,
    permission: "can_change_orders",
    setup: async (w) => ({ ...(await order(w)), body: refundBody("created") }),
  },
  {
    route: `POST ${ev}/orders/:code/refunds/:local/done`,
    permission: "can_change_orders",
    setup: refundIn("transit"),
    status: 200,
  },
  {
    route: `POST ${ev}/orders/:code/refunds/:local/process`,
    permission: "can_change_orders",
    setup: refundIn("external"),
    status: 200,
  },
  {
    route: `POST ${ev}/orders/:code/refunds/:local/cancel`,
    permission: "can_change_orders",
    setup: refundIn("created"),
    status: 200,
  },
  {
    route: `POST ${ev}/orders/:code/payments/:local/refund`,
    permission: "can_change_orders",
    setup: async (w) => ({ params: { code: (await stripePaidOrder(w)).code, local: "1" }, body: { amount: "1.00" } }),
    status: 200,
  },
  // Stripe's webhooks: no credentials, the signature is the proof
  {
    route: "POST /api/v1/organizers/:organizer/stripe/webhook",
    permission: null,
    auth: "none",
    device: "allow",
    status: 200,
    setup: async (w) => ({ raw: await stripeWebhookDelivery(w) }),
  },
  // the transactions ledger (pretix transactions.rst): the event's, one by id, the organizer's
  { route: `GET ${ev}/transactions`, permission: "can_view_orders", setup: order },
  {
    route: `GET ${ev}/transactions/:id`,
    permission: "can_view_orders",
    setup: async (w) => {
      const o = await pendingOrder(w);
      const list = await w.admin.get(`${w.ev}/transactions/?order=${o.code}`);
      expect(list.body.count, JSON.stringify(list.body)).toBeGreaterThan(0);
      return { params: { id: String(list.body.results[0].id) } };
    },
  },
  {
    // any credential of the organizer; without can_view_orders an empty list (pretix test_organizer_list)
    route: "GET /api/v1/organizers/:organizer/transactions",
    permission: "can_view_orders",
    setup: order,
    refusal: () => ({ status: 200, body: { count: 0, next: null, previous: null, results: [] } }),
  },
  // the organizer's orders and order positions (pretix orders.rst): any credential of the
  // organizer; without can_view_orders an empty list (pretix test_orderposition_list_limited_read)
  {
    route: "GET /api/v1/organizers/:organizer/orders",
    permission: "can_view_orders",
    setup: order,
    refusal: () => ({ status: 200, body: { count: 0, next: null, previous: null, results: [] } }),
  },
  {
    route: "GET /api/v1/organizers/:organizer/orderpositions",
    permission: "can_view_orders",
    setup: order,
    refusal: () => ({ status: 200, body: { count: 0, next: null, previous: null, results: [] } }),
  },
  {
    // pretix: a position of an event the credential may not see orders of is not found
    route: "GET /api/v1/organizers/:organizer/orderpositions/:id",
    permission: "can_view_orders",
    setup: ticket,
    refusal: () => ({ status: 404, body: { detail: "Not found." } }),
  },
  // order positions (pretix orders.rst): the event's list, a ticket, its re-issue, its blocks
  { route: `GET ${ev}/orderpositions`, permission: "can_view_orders", setup: ticket },
  // an order's contents changed (pretix orders.rst "Changing order contents"), one ticket canceled
  {
    route: `POST ${ev}/orders/:code/change`,
    permission: "can_change_orders",
    setup: async (w) => {
      const o = await pendingOrder(w);
      return {
        params: { code: o.code },
        body: { patch_positions: [{ position: o.positions[0].id, body: { price: "1.00" } }] },
      };
    },
    status: 200,
  },
  {
    route: `DELETE ${ev}/orderpositions/:id`,
    permission: "can_change_orders",
    setup: async (w) => {
      const it = await saleableItem(w);
      const o = await create(w, `${w.ev}/orders`, { positions: [{ item: it.id }, { item: it.id }] });
      return { params: { id: String(o.positions[1].id) } };
    },
  },
  {
    route: `PATCH ${ev}/orderpositions/:id`,
    permission: "can_change_orders",
    setup: async (w) => ({ ...(await ticket(w)), body: { attendee_name: "Max Mustermann" } }),
  },
  // order positions (pretix orders.rst): a ticket, its re-issue, its blocks
  { route: `GET ${ev}/orderpositions/:id`, permission: "can_view_orders", setup: ticket },
  {
    route: `POST ${ev}/orderpositions/:id/regenerate_secrets`,
    permission: "can_change_orders",
    setup: ticket,
    status: 200,
  },
  {
    route: `POST ${ev}/orderpositions/:id/add_block`,
    permission: "can_change_orders",
    body: { name: "admin" },
    setup: async (w) => ({ ...(await ticket(w)), body: { name: "admin" } }),
    status: 200,
  },
  {
    route: `POST ${ev}/orderpositions/:id/remove_block`,
    permission: "can_change_orders",
    body: { name: "admin" },
    setup: async (w) => ({ ...(await ticket(w)), body: { name: "admin" } }),
    status: 200,
  },
];
