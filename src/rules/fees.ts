/** The names of an order's fee types (pretix's `OrderFee.FEE_TYPES`), as invoices and exports show them. */

const FEE_NAMES: Record<string, string> = {
  payment: "Payment fee",
  shipping: "Shipping fee",
  service: "Service fee",
  cancellation: "Cancellation fee",
  insurance: "Insurance fee",
  late: "Late fee",
  other: "Other fees",
  giftcard: "Gift card",
};

/** A fee type's name; a type without one is shown as it is. */
export function feeName(feeType: string): string {
  return FEE_NAMES[feeType] ?? feeType;
}
