/**
 * What the event object's methods take and answer: the types the services use when they call it
 * through objects/client.ts.
 */
import type { StatusExtra } from "../../db/order-actions";
import type { CheckinPositionRow } from "../../db/checkin/ticket-rows";
import type { OrderWrite } from "../../db/order-writes";
import type { ChangeWrite } from "../../db/order-changes";
import type { RawOrder } from "../../db/orders";
import type { GiftCardDebit } from "../../db/payments";
import type { EventClaim } from "../../db/stripe";
import type { CartRowInsert } from "../../db/carts";
import type { CheckinReason, vouchers } from "../../db/schema";
import type { TicketChange } from "../../db/ticket-secrets";
import type { ScanRequest } from "../../rules/checkin";
import type { Demand, Refusal } from "../../rules/inventory";

// ---------------------------------------------------------------- sales

/** A cart row as the caller builds it; an add-on names its base by hold key (ids come from D1). */
export type CartRow = CartRowInsert;

export type CartGroup = {
  /** One hold key per position of the group (a position with its add-ons and bundled items). */
  holdKeys: string[];
  cartId: string;
  expires: number;
  demands: Demand[];
  rows: CartRow[];
};

export type Decision = { ok: true } | { ok: false; refusals: Refusal[] };

/** An on-sale queue's admission an order is placed with (its token checked by the Worker). */
export type AdmissionClaim = { queueId: number; admissionId: string; ordersAllowed: number; expires: number };

/** An order to place: its positions' demands, the carts it consumes, and its D1 rows. */
export type OrderRequest = {
  code: string;
  demands: Demand[];
  paid: boolean;
  consumeCartIds: string[];
  ignoreQuota: boolean;
  write: OrderWrite;
  /** The queue admission the order counts against (waiting-room-admissions.ts); none outside a queue. */
  admission?: AdmissionClaim | null;
  /**
   * The order may be answered before D1 has it (orders-answered.ts): nothing in it is left for
   * D1 to refuse (no code or secret the client chose) and nothing in the request reads it back.
   */
  answerHere?: boolean;
  /** Its tickets as scans show them, but for the ids (aligned with `write.positions`): what their scans are answered from until D1 has them. */
  scanRows?: ScanRowTemplate[];
  /** The catalog was read at the nearest copy: one older than the object's is refused as `staleCatalog`. */
  catalogFromReplica?: boolean;
  /**
   * How many positions of the consumed carts must still be held: fewer, and the order is refused
   * as `cartGone` (the shop's checkout posted twice, or its cart expired). Unset: any number.
   */
  cartHolds?: number;
};

/** A ticket of a new order as scans show it (db/checkin/ticket-rows.ts), before it has its ids. */
export type ScanRowTemplate = Omit<CheckinPositionRow, "id" | "addonTo" | "checkins">;

/**
 * An automatic check-in of a new order's position (known by its number in the order); `id`: its
 * D1 id, when the object gave it one from its leased block (an order answered at the object).
 */
export type AutoCheckin = { uid: string; listId: number; positionid: number; id?: number | null };

/** An order answered at the object: its write with the D1 ids it took, and its automatic check-ins with theirs. */
export type AnsweredOrder = { write: OrderWrite; autoCheckins: AutoCheckin[] };

/**
 * A placed order comes back as the API reads it, from the same D1 batch that wrote it, or as
 * the object answered it (`answered`: D1 gets it after the answer).
 * `admissionUsed`: refused because the admission has placed all its orders, or expired.
 */
export type OrderDecision =
  | { ok: true; order: RawOrder | null; answered?: AnsweredOrder }
  | { ok: false; refusals: Refusal[]; admissionUsed?: boolean; staleCatalog?: boolean; cartGone?: boolean };

/** An order's status change (`changeOrderStatus`). */
export type StatusChange = {
  orderId: number;
  code: string;
  from: ("n" | "p" | "e" | "c")[];
  to: "n" | "p" | "e" | "c";
  demands: Demand[];
  confirmPaymentId?: number | null;
  cancelPayments?: boolean;
  ignoreQuota?: boolean;
  giftCard?: GiftCardDebit | null;
  /** A payment provider's event that brings the change, recorded with it (db/stripe.ts). */
  eventClaim?: EventClaim | null;
  /** Ticket changes that come with the status (a cancellation's new secrets), written only if the status changes. */
  tickets?: TicketChange[];
  /** What the change does besides the status (db/order-actions.ts): a new term, an approval, a cancellation fee. */
  extra?: StatusExtra;
  /** Paid only if the order's payments cover its total (db/payments.ts `coveredCondition`). */
  covered?: boolean;
};

/**
 * An order change (`changeOrder`): the demands of the positions it keeps as they are, the
 * demands it checks (new positions, and positions that change product, date or seat), its write.
 */
export type OrderChangeRequest = {
  code: string;
  /** Whether the order was paid when the service read it (for an order that holds nothing yet). */
  paid: boolean;
  kept: Demand[];
  demands: Demand[];
  ignoreQuota: boolean;
  write: ChangeWrite;
};

/** `stale`: the order changed meanwhile (or is being changed, or holds nothing): nothing was written. */
export type OrderChangeDecision =
  | { ok: true; order: RawOrder | null }
  | { ok: false; refusals: Refusal[] }
  | { ok: false; stale: true };

/** `changed`: D1 took the status change (its condition held). */
export type StatusDecision = Decision & { changed?: boolean };

// ---------------------------------------------------------------- vouchers

/** A voucher's row as the API creates it. */
export type VoucherRow = typeof vouchers.$inferInsert;
export type CreateVouchersResult = { ok: true; ids: number[] } | { ok: false; index: number; refusals: Refusal[] };
export type UpdateVoucherResult = { ok: true } | { ok: false; refusals: Refusal[] };
export type DeleteVoucherResult = { ok: true } | { ok: false; reason: "redeemed" };
/** A voucher's columns as the API sets them (D1 keeps id and creation, the object redemptions). */
export type VoucherColumns = Required<Omit<typeof vouchers.$inferInsert, "id" | "eventId" | "redeemed" | "createdAt">>;

// ---------------------------------------------------------------- admission

/** A scan to decide on one list of this event. */
export type RedeemRequest = {
  listId: number;
  /** The scanned code (a ticket secret). */
  raw: string;
  /** The legacy per-list redeem may name the ticket by its id. */
  id: number | null;
  scan: ScanRequest;
  sourceType: string;
  /** pretix `use_order_locale`: the scan's texts in the order's language instead of the event's. */
  useOrderLocale?: boolean;
};

/** The list as a scan's answer shows it (pretix `MiniCheckinListSerializer`, without the event slug the Worker knows). */
export type MiniList = { id: number; name: string; subevent: number | null; include_pending: boolean };

export type RedeemOutcome =
  | { kind: "no_list" }
  | { kind: "unknown" }
  | {
      kind: "decided";
      status: "ok" | "error" | "incomplete";
      reason: CheckinReason | null;
      explanation: string | null;
      questions: number[];
      list: MiniList;
      position: CheckinPositionRow | null;
    };

/** An annulment of a successful check-in (pretix `checkinrpc/annul`), by the check-in's uid. */
export type AnnulRequest = {
  uid: string;
  /** The check-in's ticket, and its secret (to read it from D1 when the index has never seen it). */
  ticketId: number;
  secret: string;
  explanation: string | null;
};

/** `not_successful`: the check-in is no (longer a) successful one: annulled already, or never admitted. */
export type AnnulOutcome = "annulled" | "not_successful";

/** Changes of one order's tickets (`changeTickets`): new secrets, blocks, the order's own secret. */
export type TicketsChange = {
  orderId: number;
  code: string;
  changes: TicketChange[];
  orderSecret: string | null;
};

// ---------------------------------------------------------------- start

/** What a (re)started object read from its own storage to serve (debugging aid, tests). */
export type ObjectStart = { rowsRead: number; heldPositions: number };
