/** What a client reads when the event object refuses a cart or an order (rules/inventory/ledger.ts `Refusal`). */
import type { FieldErrors } from "../lib/failure";
import type { Refusal } from "./inventory";

/** The message a client sees for a refusal of the event object. */
export function refusalMessage(r: Refusal): string {
  switch (r.code) {
    case "quota":
      return r.quotaId === null
        ? "The product is not available (no quota is configured for it)."
        : `There is not enough quota available on quota ${r.quotaId} to perform the operation.`;
    case "seat_taken":
      return `The seat ${r.seat} is already taken.`;
    case "seat_twice":
      return `The seat ${r.seat} was requested more than once.`;
    case "voucher_used_up":
      return "The voucher has already been used the maximum number of times.";
    case "voucher_expired":
      return "The voucher has expired.";
    case "voucher_unknown":
      return "Voucher code is not valid.";
  }
}

export function refusalErrors(refusals: Refusal[]): FieldErrors {
  return { non_field_errors: [...new Set(refusals.map(refusalMessage))] };
}
