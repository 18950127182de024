/**
 * The body of an order change (pretix docs orders.rst "Changing order contents"): positions to
 * patch, cancel or create (add-ons by `addon_to`), fees to create, patch or cancel, taxes to
 * recalculate, and whether a mail goes out and the invoice is reissued.
 */
import { z } from "zod";
import { dateTime, email, money } from "../../rules/fields";
import { answerInput } from "./positions";
import { feeInput } from "./order-input";

const attendeeFields = {
  attendee_name: z.string().max(255).nullable().optional(),
  attendee_name_parts: z.record(z.string().max(50), z.string().max(255)).optional(),
  attendee_email: email().nullable().optional(),
};

/** What `patch_positions[].body` may change (pretix's change serializer of a position). */
export const positionPatchBody = z.object({
  item: z.number().int().optional(),
  variation: z.number().int().nullable().optional(),
  subevent: z.number().int().nullable().optional(),
  seat: z.string().trim().min(1).max(190).nullable().optional(),
  price: money().optional(),
  tax_rule: z.number().int().nullable().optional(),
  valid_from: dateTime().nullable().optional(),
  valid_until: dateTime().nullable().optional(),
  /** All of the position's answers (pretix: given, they replace the answers it has). */
  answers: z.array(answerInput).max(200).optional(),
  ...attendeeFields,
});
export type PositionPatchBody = z.output<typeof positionPatchBody>;

/** A new position (`addon_to`: the number of the order's position it is an add-on to). */
export const positionCreateBody = z.object({
  item: z.number().int(),
  variation: z.number().int().nullable().optional(),
  subevent: z.number().int().nullable().optional(),
  seat: z.string().trim().min(1).max(190).nullable().optional(),
  price: money().nullable().optional(),
  addon_to: z.number().int().nullable().optional(),
  answers: z.array(answerInput).max(200).optional(),
  valid_from: dateTime().nullable().optional(),
  valid_until: dateTime().nullable().optional(),
  ...attendeeFields,
});
export type PositionCreateBody = z.output<typeof positionCreateBody>;

const positionRef = z.object({ position: z.number().int() });
const feeRef = z.object({ fee: z.number().int() });

export const orderChangeInput = z.object({
  patch_positions: z
    .array(positionRef.extend({ body: positionPatchBody }))
    .max(500)
    .optional(),
  cancel_positions: z.array(positionRef).max(500).optional(),
  create_positions: z.array(positionCreateBody).max(500).optional(),
  split_positions: z.array(positionRef).max(500).optional(),
  create_fees: z.array(feeInput).max(100).optional(),
  patch_fees: z
    .array(feeRef.extend({ body: z.object({ value: money().optional() }) }))
    .max(100)
    .optional(),
  cancel_fees: z.array(feeRef).max(100).optional(),
  recalculate_taxes: z.enum(["keep_net", "keep_gross"]).nullable().optional(),
  send_email: z.boolean().optional(),
  reissue_invoice: z.boolean().optional(),
});
export type OrderChangeInput = z.output<typeof orderChangeInput>;
