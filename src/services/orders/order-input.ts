/**
 * The body of order creation (docs/api.md; pretix docs orders.rst for the fields docs/api.md
 * leaves open, docs/open-points.md row 28) and the checks pretix makes of it outside its serializers' fields:
 * position ids and add-ons, the invoice address.
 */
import { z } from "zod";
import type { FeeInsert } from "../../db/order-writes";
import type { InvoiceAddress } from "../../db/schema/index";
import { isCountryCode } from "../../lib/countries";
import type { FieldErrors } from "../../lib/failure";
import { withScheme } from "../../rules/person-names";
import { tax, type TaxRule } from "../../rules/pricing";
import { dateTime, email, money } from "../../rules/fields";
import { positionFields } from "./positions";

/** pretix's PRETIX_MAX_ORDER_SIZE. */
const MAX_ORDER_SIZE = 500;

const FEE_TYPES = ["payment", "shipping", "service", "cancellation", "insurance", "late", "other", "giftcard"] as const;

const orderPositionInput = z.object({
  ...positionFields,
  positionid: z.number().int().min(1).optional(),
  addon_to: z.number().int().min(1).nullable().optional(),
  /** Any text (pretix: a unique string of up to 255 characters), as tickets printed elsewhere carry it. */
  secret: z.string().trim().min(1).max(255).optional(),
  /** The ticket's validity window as given; either one set replaces the product's (pretix orders.rst). */
  valid_from: dateTime().nullable().optional(),
  valid_until: dateTime().nullable().optional(),
  /** The start a buyer chose, for products with `validity_dynamic_start_choice`. */
  requested_valid_from: dateTime().nullable().optional(),
});

export const invoiceAddressInput = z.object({
  is_business: z.boolean().optional(),
  company: z.string().max(255).optional(),
  name: z.string().max(255).optional(),
  name_parts: z.record(z.string().max(50), z.string().max(255)).optional(),
  street: z.string().max(255).optional(),
  zipcode: z.string().max(30).optional(),
  city: z.string().max(255).optional(),
  country: z.string().max(2).optional(),
  state: z.string().max(255).optional(),
  internal_reference: z.string().max(255).optional(),
  vat_id: z.string().max(255).optional(),
  vat_id_validated: z.boolean().optional(),
});

/** The body of order creation (docs/api.md; pretix docs orders.rst for the fields docs/api.md leaves open). */
/** An order fee as sent (pretix orders.rst): at order creation and in an order change's `create_fees`. */
export const feeInput = z.object({
  fee_type: z.enum(FEE_TYPES),
  value: money(),
  description: z.string().max(255).optional(),
  internal_type: z.string().max(255).optional(),
  tax_rule: z.number().int().nullable().optional(),
});

export type FeeInput = z.output<typeof feeInput>;

/** The row of a fee as sent: its value is gross, taxed by its rule (order creation and an order change's `create_fees`). */
export function feeInsert(f: FeeInput, rule: TaxRule | null, currency: string): FeeInsert {
  const t = tax(f.value, rule, currency, true);
  return {
    feeType: f.fee_type,
    value: t.gross,
    description: f.description ?? "",
    internalType: f.internal_type ?? "",
    taxRate: t.taxRate,
    taxValue: t.taxValue,
    taxRuleId: t.taxRuleId,
    canceled: false,
  };
}

export const orderInput = z.object({
  code: z
    .string()
    .regex(/^[A-Z0-9]*$/, { message: "This order code contains invalid characters." })
    .min(5)
    .max(16)
    .optional(),
  status: z.enum(["n", "p"]).optional(),
  testmode: z.boolean().optional(),
  email: email().nullable().optional(),
  phone: z.string().max(50).nullable().optional(),
  locale: z.string().max(20).optional(),
  sales_channel: z.string().optional(),
  payment_provider: z.string().nullable().optional(),
  payment_info: z.record(z.string(), z.unknown()).optional(),
  payment_date: dateTime().nullable().optional(),
  send_mail: z.boolean().nullable().optional(),
  send_email: z.boolean().nullable().optional(),
  expires: dateTime().optional(),
  simulate: z.boolean().optional(),
  consume_carts: z.array(z.string().max(255)).max(100).optional(),
  force: z.boolean().optional(),
  comment: z.string().max(10000).optional(),
  checkin_attention: z.boolean().optional(),
  /** pretix: the order waits for `approve` or `deny`; when left out, as any of its products requires (services/orders/order-create.ts). */
  require_approval: z.boolean().optional(),
  customer: z.string().max(100).nullable().optional(),
  invoice_address: invoiceAddressInput.nullable().optional(),
  positions: z
    .array(orderPositionInput)
    .min(1, { message: "An order cannot be empty." })
    .max(MAX_ORDER_SIZE, { message: `Orders cannot have more than ${MAX_ORDER_SIZE} positions.` }),
  fees: z.array(feeInput).max(100).optional(),
});
export type OrderInput = z.output<typeof orderInput>;

/**
 * positionid / addon_to as pretix checks them, each error on its position: ids on all positions
 * or none, 1..n in order, and an add-on right after its base (or the base's other add-ons).
 * Returns each position's base (its index) or null, and each position's errors.
 */
export function checkPositionIds(positions: OrderInput["positions"]): {
  addonTo: (number | null)[];
  errors: Record<string, string[]>[];
} {
  const addonTo: (number | null)[] = positions.map(() => null);
  const errors: Record<string, string[]>[] = positions.map(() => ({}));
  if (!positions.some((p) => p.positionid !== undefined)) {
    if (positions.some((p) => p.addon_to != null))
      for (const e of errors)
        e.positionid = ["If you set addon_to on any position, you need to specify position IDs manually."];
    return { addonTo, errors };
  }
  if (positions.some((p) => p.positionid === undefined)) {
    positions.forEach((p, i) => {
      if (p.positionid === undefined)
        errors[i]!.positionid = ["If you set position IDs manually, you need to do so for all positions."];
    });
    return { addonTo, errors };
  }
  let lastBase: number | null = null;
  let lastId = 0;
  positions.forEach((p, i) => {
    const id = p.positionid!;
    if (id !== lastId + 1) errors[i]!.positionid = ["Position IDs need to be consecutive."];
    if (p.addon_to != null) {
      if (p.addon_to !== lastBase)
        errors[i]!.addon_to = [
          "If you set addon_to, you need to make sure that the referenced position ID exists and is transmitted directly before its add-ons.",
        ];
      else addonTo[i] = p.addon_to - 1;
    } else lastBase = id;
    lastId = id;
  });
  return { addonTo, errors };
}

/**
 * The invoice address's errors, field by field (null: none). `vat_id_validated` is refused when
 * true: the service applies no reverse charge (the order input of docs/api.md has no validated VAT ID),
 * so an order that pretix would price net is not silently priced gross.
 */
export function invoiceAddressErrors(ia: OrderInput["invoice_address"]): FieldErrors | null {
  if (!ia) return null;
  const errors: Record<string, string[]> = {};
  if (ia.country && !isCountryCode(ia.country)) errors.country = ["Enter a valid country code."];
  if (ia.name && ia.name_parts && Object.keys(ia.name_parts).length)
    errors.name = ["Do not specify name if you specified name_parts."];
  if (ia.vat_id_validated)
    errors.vat_id_validated = [
      "This service does not apply reverse charge and takes no validated VAT ID: leave vat_id_validated out.",
    ];
  return Object.keys(errors).length ? errors : null;
}

/** The stored invoice address of the input (pretix's shape: name parts, or a legacy name). */
export function invoiceAddressOf(ia: OrderInput["invoice_address"], now: number): InvoiceAddress | null {
  return ia
    ? {
        is_business: ia.is_business ?? false,
        company: ia.company ?? "",
        name_parts:
          ia.name_parts && Object.keys(ia.name_parts).length
            ? withScheme(ia.name_parts)
            : ia.name
              ? { _legacy: ia.name }
              : {},
        street: ia.street ?? "",
        zipcode: ia.zipcode ?? "",
        city: ia.city ?? "",
        country: (ia.country ?? "").toUpperCase(),
        state: ia.state ?? "",
        internal_reference: ia.internal_reference ?? "",
        vat_id: ia.vat_id ?? "",
        last_modified: now,
      }
    : null;
}
