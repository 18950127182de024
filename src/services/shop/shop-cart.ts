/**
 * The hosted shop's cart (docs/customer-pages.md "The shop"): what a visitor chose becomes cart
 * positions held by the event object through the sale's own `createCartPositions`, each priced
 * by the sale's pricing (never by the form), after the shop's rules (rules/shop.ts). All or
 * nothing: when any position is refused, those held for the same request are released.
 */
import { cartRowsOf, type CartRowRecord } from "../../db/carts";
import { randomString } from "../../lib/crypto";
import { Failure, isFailure } from "../../lib/failure";
import { withEventObject } from "../../objects/client";
import { addonCountRefusal, bundleBasePrice, quantityRefusal } from "../../rules/shop";
import type { EventContext } from "../context";
import { type CartInput, createCartPositions } from "../orders/carts";
import { voucherMisfit } from "../orders/positions";
import { passSaleGate, type SaleCaller } from "../waiting-room/gate";
import type { ShopCatalog, ShopChoice, ShopProduct } from "./shop-catalog";

/** A chosen product (or variation) and how many; `addons`: what each of them gets. */
export type ShopLine = {
  itemId: number;
  variationId: number | null;
  count: number;
  addons: { itemId: number; variationId: number | null; count: number }[];
};

/**
 * Why the shop refused: messages by field key (`item_<id>`, `voucher`, `cart`), and the status
 * that fits. A message is a code the page words (`quantity_max:4`: code and parameter), or
 * `text:` and the sale's own message.
 */
export type ShopRefusal = { status: 400 | 409; messages: Record<string, string[]> };

/** The suffix of the shop's cart ids (the API's end in "@api"). */
export const SHOP_CART_SUFFIX = "@shop";

export const newShopCartId = () => `${randomString(40)}${SHOP_CART_SUFFIX}`;

/** Who buys through the shop: no credential, the admission the visitor carries. */
export const shopCaller = (admission: string | null): SaleCaller => ({ kind: "token", teamId: null, admission });

/** A cart position with its add-ons and bundled positions, unexpired. */
export type ShopCartEntry = { position: CartRowRecord; children: CartRowRecord[] };

/** The unexpired positions of a shop cart, base positions with their children. */
export async function readShopCart(ctx: EventContext, cartId: string | null): Promise<ShopCartEntry[]> {
  if (cartId === null) return [];
  const rows = (await cartRowsOf(ctx.db, ctx.event.id, cartId)).filter((r) => r.expires > ctx.now);
  return rows
    .filter((r) => r.addonTo === null)
    .map((position) => ({ position, children: rows.filter((r) => r.addonTo === position.id) }));
}

/** When the cart's holds end: the earliest expiry of its positions (null: empty). */
export function cartExpiry(entries: ShopCartEntry[]): number | null {
  const all = entries.flatMap((e) => [e.position, ...e.children]).map((r) => r.expires);
  return all.length ? Math.min(...all) : null;
}

/**
 * Whether the visitor may enter the shop of the date now: null, or the queue that requires an
 * admission (no token, or one that is not valid for the queue).
 */
export async function shopQueueRequired(
  ctx: EventContext,
  catalog: ShopCatalog,
  admission: string | null,
): Promise<number | null> {
  try {
    await passSaleGate(
      ctx,
      catalog.sales.queues,
      [{ subeventId: catalog.subeventId, channel: "web" }],
      shopCaller(admission),
    );
    return null;
  } catch (e) {
    if (isFailure(e, "queue_required")) return (e.body as { queue: number }).queue;
    throw e;
  }
}

type Checked = { inputs: CartInput[]; refusal: ShopRefusal | null };

const add = (r: ShopRefusal, key: string, message: string) => {
  r.messages[key] = [...(r.messages[key] ?? []), message];
};

function choiceOf(product: ShopProduct | undefined, variationId: number | null): ShopChoice | undefined {
  return product?.choices.find((c) => c.variationId === variationId);
}

/** The voucher code a choice is bought with: the visit's, where it fits the product (its price says so). */
function voucherOf(catalog: ShopCatalog, itemId: number, variationId: number | null): string | null {
  const v = catalog.voucher;
  if (!v?.row) return null;
  const misfit = voucherMisfit(v.row, { itemId, variationId, subeventId: catalog.subeventId, seat: null });
  return misfit === null ? v.code : null;
}

/** The add-ons of one line, checked against the product's add-on rules; their cart inputs. */
function addonInputs(catalog: ShopCatalog, product: ShopProduct, line: ShopLine, refusal: ShopRefusal) {
  const key = `item_${product.id}`;
  const out: NonNullable<CartInput["addons"]> = [];
  for (const group of product.addons) {
    const chosen = line.addons.filter((a) => group.products.some((p) => p.id === a.itemId));
    const count = chosen.reduce((s, a) => s + a.count, 0);
    const refused = addonCountRefusal(group, count);
    if (refused) add(refusal, key, `addon_${refused.kind}:${refused.limit}`);
    for (const a of chosen) {
      const choice = choiceOf(
        group.products.find((p) => p.id === a.itemId),
        a.variationId,
      );
      if (!choice || (a.count > 1 && !group.multiAllowed)) {
        add(refusal, key, "addon_invalid");
        continue;
      }
      for (let i = 0; i < a.count; i++)
        out.push({
          item: a.itemId,
          variation: a.variationId,
          price: choice.price.gross,
          voucher: voucherOf(catalog, a.itemId, a.variationId),
          subevent: catalog.subeventId,
        });
    }
  }
  if (line.addons.some((a) => !product.addons.some((g) => g.products.some((p) => p.id === a.itemId))))
    add(refusal, key, "addon_invalid");
  return out;
}

/** The bundled positions of a product: each with its designated price. */
function bundledInputs(catalog: ShopCatalog, itemId: number): NonNullable<CartInput["bundled"]> {
  const rows = catalog.bundleRows.filter((b) => b.itemId === itemId);
  return rows.flatMap((b) =>
    Array.from({ length: b.count }, () => ({
      item: b.bundledItemId,
      variation: b.bundledVariationId,
      price: b.designatedPrice,
      subevent: catalog.subeventId,
    })),
  );
}

/** The shop's checks of a request, and its positions as the sale's cart inputs. */
function checkLines(catalog: ShopCatalog, lines: ShopLine[], held: ShopCartEntry[], cartId: string): Checked {
  const refusal: ShopRefusal = { status: 400, messages: {} };
  const inputs: CartInput[] = [];
  if (catalog.window !== "open") add(refusal, "cart", `window_${catalog.window}`);
  if (catalog.voucher && !catalog.voucher.row) add(refusal, "voucher", "voucher_unknown");
  const top = new Set(catalog.sections.flatMap((s) => s.products.map((p) => p.id)));
  const maxItems = Number(catalog.settings.max_items_per_order ?? 10);
  const heldCount = (itemId: number) => held.filter((e) => e.position.itemId === itemId).length;
  for (const line of lines.filter((l) => l.count > 0)) {
    const key = `item_${line.itemId}`;
    const product = top.has(line.itemId) ? catalog.products.get(line.itemId) : undefined;
    const choice = choiceOf(product, line.variationId);
    if (!product || !choice) {
      add(refusal, "cart", "unknown_product");
      continue;
    }
    if (product.seated) {
      add(refusal, key, "seated");
      continue;
    }
    const sameItem = lines.filter((l) => l.itemId === line.itemId).reduce((s, l) => s + l.count, 0);
    const q = quantityRefusal({ itemId: line.itemId, adding: sameItem, held: heldCount(line.itemId), limits: product });
    if (q) add(refusal, key, `quantity_${q.kind}:${q.limit}`);
    const addons = addonInputs(catalog, product, line, refusal);
    const bundled = bundledInputs(catalog, line.itemId);
    const price = bundleBasePrice(
      choice.price.gross,
      catalog.bundleRows.filter((b) => b.itemId === line.itemId),
    );
    for (let i = 0; i < line.count; i++)
      inputs.push({
        item: line.itemId,
        variation: line.variationId,
        subevent: catalog.subeventId,
        price,
        voucher: voucherOf(catalog, line.itemId, line.variationId),
        cart_id: cartId,
        sales_channel: "web",
        includes_tax: true,
        addons,
        bundled,
      });
  }
  const total = inputs.length + held.length;
  if (inputs.length === 0 && Object.keys(refusal.messages).length === 0) add(refusal, "cart", "nothing_chosen");
  else if (total > maxItems) add(refusal, "cart", `too_many:${maxItems}`);
  if (catalog.voucher?.row && inputs.length && inputs.every((i) => i.voucher === null))
    add(refusal, "voucher", "voucher_misfit");
  return { inputs, refusal: Object.keys(refusal.messages).length ? refusal : null };
}

/** The messages of a refused position (its field errors, or the refusal's body). */
function messagesOf(f: Failure): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(f.fields ?? f.body);
  return out.length ? [...new Set(out)] : [f.message];
}

/** Releases held positions (a request that was refused in part holds nothing). */
async function release(ctx: EventContext, holdKeys: string[]): Promise<void> {
  if (holdKeys.length)
    await withEventObject<string[]>(ctx.env, ctx.event.id, (s, call) => s.deleteCarts(call, holdKeys));
}

/**
 * Adds the visitor's choice to the cart `cartId` (a new one when null): the shop's checks, then
 * the event object holds all positions or, refusing any, none. A queue without a valid
 * admission throws `queue_required`, as the API's cart does.
 */
export async function addToShopCart(
  ctx: EventContext,
  catalog: ShopCatalog,
  req: { cartId: string | null; admission: string | null; lines: ShopLine[] },
): Promise<{ cartId: string } | ShopRefusal> {
  const cartId = req.cartId ?? newShopCartId();
  const held = await readShopCart(ctx, req.cartId);
  const { inputs, refusal } = checkLines(catalog, req.lines, held, cartId);
  if (refusal) return refusal;
  const results = await createCartPositions(ctx, inputs, shopCaller(req.admission));
  const refused = results.filter((r): r is Failure => r instanceof Failure);
  if (refused.length === 0) return { cartId };
  await release(
    ctx,
    results.flatMap((r) => (r instanceof Failure ? [] : [r.position.holdKey, ...r.children.map((c) => c.holdKey)])),
  );
  const out: ShopRefusal = { status: 409, messages: {} };
  results.forEach((r, i) => {
    if (r instanceof Failure) for (const m of messagesOf(r)) add(out, `item_${inputs[i]!.item}`, `text:${m}`);
  });
  return out;
}

/** Removes a position (with its add-ons and bundled positions) from the shop cart; false when it is not there. */
export async function removeFromShopCart(ctx: EventContext, cartId: string, positionId: number): Promise<boolean> {
  const rows = await cartRowsOf(ctx.db, ctx.event.id, cartId);
  const own = rows.find((r) => r.id === positionId && r.addonTo === null);
  if (!own) return false;
  await release(ctx, [own.holdKey, ...rows.filter((r) => r.addonTo === own.id).map((r) => r.holdKey)]);
  return true;
}
