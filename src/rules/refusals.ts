/**
 * What a client reads when the event object refuses a cart or an order (rules/inventory/ledger.ts
 * `Refusal`): pretix's texts, on the position and field pretix reports them on. The ledger knows
 * ids; the names in the texts (a product's, a seat's, the voucher code as sent) come from the
 * request, by the refused demand's index.
 */
import type { FieldErrors } from "../lib/failure";
import type { Refusal } from "./inventory";

/** The names of a request's positions, by demand index. */
export type RefusalNames = {
  item(index: number): string;
  seat(index: number): string;
  voucher(index: number): string;
};

/** pretix's text for a quota without room, naming the quota (its id when the name is unknown). */
export function quotaText(r: Extract<Refusal, { code: "quota" }>): string {
  return `There is not enough quota available on quota "${r.quotaName ?? r.quotaId}" to perform the operation.`;
}

const noQuotaText = (item: string) => `The product "${item}" is not assigned to a quota.`;
const seatText = (seat: string) => `The selected seat "${seat}" is not available.`;

function push(target: Record<string, string[]>, field: string, message: string): void {
  const list = (target[field] ??= []);
  if (!list.includes(message)) list.push(message);
}

/**
 * An order's refusals as pretix's order creation reports them: one error object per position
 * (`{}` for the positions that fit), the quota and a missing quota under `item`, a seat under
 * `seat`, a voucher's usages, expiry or disappearance under `voucher`.
 */
export function orderRefusalErrors(refusals: Refusal[], positions: number, names: RefusalNames): FieldErrors {
  const each: Record<string, string[]>[] = Array.from({ length: positions }, () => ({}));
  for (const r of refusals) {
    for (const i of r.indices) {
      const target = each[i];
      if (!target) continue;
      switch (r.code) {
        case "quota":
          push(target, "item", r.quotaId === null ? noQuotaText(names.item(i)) : quotaText(r));
          break;
        case "seat_taken":
        case "seat_twice":
          push(target, "seat", seatText(names.seat(i)));
          break;
        case "voucher_used_up":
          push(target, "voucher", "The voucher has already been used the maximum number of times.");
          break;
        case "voucher_expired":
          push(target, "voucher", "This voucher is expired.");
          break;
        case "voucher_unknown":
          push(target, "voucher", `Object with code=${names.voucher(i)} does not exist.`);
          break;
      }
    }
  }
  return { positions: each };
}

/**
 * A cart position's refusals as pretix's cart endpoint reports them, for the position with its
 * add-ons and bundled positions as a whole: a missing quota as `non_field_errors`, a seat under
 * `seat`, a voucher under `voucher`. A quota without room is pretix's bare message (`quota`),
 * which the caller places: a single creation answers the bare list, bulk_create puts it under
 * `non_field_errors`.
 */
export function cartRefusalErrors(
  refusals: Refusal[],
  names: RefusalNames,
): { fields: Record<string, string[]>; quota: string[] } {
  const fields: Record<string, string[]> = {};
  const quota: string[] = [];
  for (const r of refusals) {
    const i = r.indices[0] ?? 0;
    switch (r.code) {
      case "quota":
        if (r.quotaId === null) push(fields, "non_field_errors", noQuotaText(names.item(i)));
        else if (!quota.includes(quotaText(r))) quota.push(quotaText(r));
        break;
      case "seat_taken":
      case "seat_twice":
        push(fields, "seat", seatText(names.seat(i)));
        break;
      case "voucher_used_up":
        push(fields, "voucher", "The specified voucher has already been used the maximum number of times.");
        break;
      case "voucher_expired":
        push(fields, "voucher", "The specified voucher is expired.");
        break;
      case "voucher_unknown":
        push(fields, "voucher", "The specified voucher does not exist.");
        break;
    }
  }
  return { fields, quota };
}

/** Refusals of a change to an existing order (its status): one message each, for the order as a whole. */
export function refusalErrors(refusals: Refusal[]): FieldErrors {
  const messages = refusals.map((r) => {
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
  });
  return { non_field_errors: [...new Set(messages)] };
}
