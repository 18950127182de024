/**
 * Cart positions (docs/api.md; experimental there). The routes parse, scope, call the
 * cart services (services/orders/carts.ts: the event object decides on quota, seats and vouchers) and
 * serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import { type CartRowRecord, findCartPosition, listCartPositions } from "../services/orders/order-reads";
import {
  cartInput,
  type CartInput,
  type CartRecord,
  createCartPosition,
  createCartPositions,
  deleteCartPosition,
} from "../services/orders/carts";
import { Failure, notFound, validationError } from "../lib/failure";
import { buildName } from "../rules/person-names";
import { setPageGenerated } from "../http/conditional";
import { type AppEnv, eventContext, saleCaller } from "../http/context";
import { errorResponse, QUEUE_ANSWERS } from "../http/errors";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { dateTime, id, money, object } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { issuesToFieldErrors, jsonBody, pathId } from "../http/validation";
import { toIso } from "../lib/datetime";
import { formatMoney } from "../lib/money";
import { answerResponse, seatResponse, serializeAnswer, serializeSeat } from "./orders-position-parts";

/** A cart position (docs/api.md), with its add-ons and bundled positions nested. */
export const cartPositionResponse = z
  .object({
    id: id(),
    cart_id: z.string(),
    datetime: dateTime(),
    expires: dateTime(),
    item: id(),
    variation: id().nullable(),
    price: money(),
    attendee_name: z.string().nullable(),
    attendee_name_parts: z.record(z.string(), z.string()),
    attendee_email: z.string().nullable(),
    voucher: id().nullable(),
    addon_to: id().nullable(),
    is_bundled: z.boolean(),
    subevent: id().nullable(),
    includes_tax: z.boolean(),
    sales_channel: z.string(),
    seat: seatResponse.nullable(),
    answers: z.array(answerResponse),
    get addons(): z.ZodArray<typeof cartPositionResponse> {
      return z.array(cartPositionResponse);
    },
    get bundled(): z.ZodArray<typeof cartPositionResponse> {
      return z.array(cartPositionResponse);
    },
  })
  .meta({ id: "CartPosition" });
export type CartPositionResponse = z.infer<typeof cartPositionResponse>;

/** The answer of bulk_create: one result per input, in order. */
export const cartBulkResponse = z.object({
  results: z.array(
    z.object({ success: z.boolean(), errors: object().nullable(), data: cartPositionResponse.nullable() }),
  ),
});

/** A position; `children` may hold the children of other positions too (a list page's). */
export function serializeCartPosition(c: CartRowRecord, children: CartRowRecord[] = []): CartPositionResponse {
  const mine = children.filter((x) => x.addonTo === c.id);
  return {
    id: c.id,
    cart_id: c.cartId,
    datetime: toIso(c.datetime)!,
    expires: toIso(c.expires)!,
    item: c.itemId,
    variation: c.variationId,
    price: formatMoney(c.price),
    attendee_name: buildName(c.attendeeNameParts),
    attendee_name_parts: c.attendeeNameParts,
    attendee_email: c.attendeeEmail,
    voucher: c.voucherId,
    addon_to: c.addonTo,
    is_bundled: c.isBundled,
    subevent: c.subeventId,
    includes_tax: c.includesTax,
    sales_channel: c.salesChannel,
    seat: serializeSeat(c.seat, c.seatId, c.seatName),
    answers: c.answers.map(serializeAnswer),
    addons: mine.filter((x) => !x.isBundled).map((x) => serializeCartPosition(x)),
    bundled: mine.filter((x) => x.isBundled).map((x) => serializeCartPosition(x)),
  };
}

const serializeCart = (r: CartRecord) => serializeCartPosition(r.position, r.children);

export const cartRoutes = new Hono<AppEnv>();
const doc = apiDocs("Cart positions");
const base = "/organizers/:organizer/events/:event/cartpositions";
const read = eventScope("can_view_orders");
const write = eventScope("can_change_orders");

cartRoutes.get(base, read, doc.list(cartPositionResponse, { summary: "List cart positions" }), async (c) => {
  const req = listRequest(c);
  setPageGenerated(c, Date.now());
  const page = await listCartPositions(eventContext(c), req);
  return respondPage(c, req, page, (r) => serializeCartPosition(r, page.children));
});

cartRoutes.get(`${base}/:id`, read, doc.ok(cartPositionResponse, { summary: "Cart position detail" }), async (c) => {
  const found = await findCartPosition(eventContext(c), pathId(c, "id"));
  if (!found) throw notFound();
  return c.json(serializeCart(found));
});

cartRoutes.post(
  base,
  write,
  doc.created(cartPositionResponse, {
    summary: "Create a cart position",
    failures: ["unavailable"],
    answers: QUEUE_ANSWERS,
  }),
  jsonBody(cartInput),
  async (c) =>
    c.json(serializeCart(await createCartPosition(eventContext(c), c.req.valid("json"), saleCaller(c))), 201),
);

cartRoutes.post(
  `${base}/bulk_create`,
  write,
  doc.ok(cartBulkResponse, {
    summary: "Create several cart positions",
    description:
      "Each entry succeeds or fails on its own: one result per entry, in order. Behind an on-sale queue the request as a whole needs an admission (403 otherwise, nothing created).",
    failures: ["unavailable"],
    answers: QUEUE_ANSWERS,
  }),
  jsonBody(z.array(z.unknown()).max(1000), { describeAs: z.array(cartInput).max(1000) }),
  async (c) => {
    // Each entry is validated on its own: one bad entry does not fail the others.
    const entries = c.req.valid("json").map((entry): CartInput | Failure => {
      const parsed = cartInput.safeParse(entry);
      return parsed.success ? parsed.data : validationError(issuesToFieldErrors(parsed.error.issues));
    });
    const valid = entries.filter((e): e is CartInput => !(e instanceof Failure));
    const created = valid.length ? await createCartPositions(eventContext(c), valid, saleCaller(c)) : [];
    let v = 0;
    const results = entries.map((e) => {
      const r = e instanceof Failure ? e : created[v++]!;
      return r instanceof Failure
        ? { success: false, errors: errorResponse(r).body as Record<string, unknown>, data: null }
        : { success: true, errors: null, data: serializeCart(r) };
    });
    return c.json({ results } satisfies z.infer<typeof cartBulkResponse>, 200);
  },
);

cartRoutes.delete(
  `${base}/:id`,
  write,
  doc.noContent({ summary: "Delete a cart position", failures: ["unavailable"] }),
  async (c) => {
    await deleteCartPosition(eventContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);
