/**
 * The event object's check-in state, in its own SQLite (a restarted object still knows who is
 * inside): the ticket index (every order the object wrote, every ticket it looked up in D1 once,
 * with what a decision needs), the passages per ticket and list (each with its `uid`, the D1
 * row's, so a replay makes no second row), the automatic exits made (a firing happens once), and
 * revoked secrets (a scan of one answers `revoked`). The lists' configuration is loaded from D1
 * and kept in memory (`CheckinConfig`). Every method is synchronous.
 */
import type { TicketOrderRow } from "../../db/checkin/object-reads";
import type { CheckinCatalogRows } from "../../db/inventory";
import type { Answer, CheckinType, OrderStatus } from "../../db/schema";
import type { CheckinQuestion, ListConfig, OrderFacts, Passage, TicketFacts } from "../../rules/checkin";

export type EventDates = { dateFrom: number; dateTo: number | null; dateAdmission: number | null };

export type CheckinConfig = {
  lists: Map<number, ListConfig>;
  questions: CheckinQuestion[];
  timezone: string;
  locale: string;
  /** The event's dates, and its dates' (series): the base points of rules' times. */
  eventDates: EventDates;
  subeventDates: Map<number, EventDates>;
  /** Change stamps of items, questions and check-in lists when the configuration was read. */
  stamps: Record<string, number>;
};

export const EMPTY_CONFIG: CheckinConfig = {
  lists: new Map(),
  questions: [],
  timezone: "UTC",
  locale: "en",
  eventDates: { dateFrom: 0, dateTo: null, dateAdmission: null },
  subeventDates: new Map(),
  stamps: {},
};

/** A passage as stored (and as written to D1). */
export type StoredPassage = Passage & { uid: string; listId: number; ticketId: number };

type TicketRow = {
  id: number;
  secret: string;
  order_code: string;
  addon_to: number | null;
  item: number;
  variation: number | null;
  subevent: number | null;
  canceled: number;
  valid_from: number | null;
  valid_until: number | null;
  answers: string;
  blocked: number;
};

type OrderRow = {
  code: string;
  status: string;
  require_approval: number;
  checkin_attention: number;
  sales_channel: string;
  locale: string | null;
};

/** What a secret change did in the index, to take it back exactly. */
export type SecretUndo = { ticketId: number; from: string; to: string; ticket: boolean; revoked: boolean };

/** A ticket of an order as the index takes it. */
export type IndexTicket = Omit<TicketFacts, "orderCode">;

export class CheckinState {
  constructor(private readonly sql: SqlStorage) {}

  createTables(): void {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS ci_orders (code TEXT PRIMARY KEY, status TEXT NOT NULL, require_approval INTEGER NOT NULL,
      checkin_attention INTEGER NOT NULL, sales_channel TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS ci_tickets (id INTEGER PRIMARY KEY, secret TEXT NOT NULL, order_code TEXT NOT NULL,
      addon_to INTEGER, item INTEGER NOT NULL, variation INTEGER, subevent INTEGER, canceled INTEGER NOT NULL, valid_from INTEGER,
      valid_until INTEGER, answers TEXT NOT NULL)`);
    this.sql.exec("CREATE UNIQUE INDEX IF NOT EXISTS ci_tickets_secret ON ci_tickets (secret)");
    this.sql.exec("CREATE INDEX IF NOT EXISTS ci_tickets_addon ON ci_tickets (addon_to)");
    this.sql.exec(`CREATE TABLE IF NOT EXISTS ci_passages (uid TEXT PRIMARY KEY, list_id INTEGER NOT NULL, ticket_id INTEGER NOT NULL,
      type TEXT NOT NULL, datetime INTEGER NOT NULL, nonce TEXT, device_id INTEGER, auto INTEGER NOT NULL)`);
    this.sql.exec("CREATE INDEX IF NOT EXISTS ci_passages_ticket ON ci_passages (ticket_id, list_id, datetime)");
    this.sql.exec("CREATE INDEX IF NOT EXISTS ci_passages_list ON ci_passages (list_id, ticket_id)");
    // the tickets that ever left: a restarted object reads these, not the whole index
    this.sql.exec("CREATE INDEX IF NOT EXISTS ci_passages_exits ON ci_passages (ticket_id) WHERE type = 'exit'");
    this.sql.exec("CREATE TABLE IF NOT EXISTS ci_exit_all (list_id INTEGER PRIMARY KEY, fired INTEGER NOT NULL)");
    // a ci_tickets without the `blocked` column gets it (storage kept across versions)
    const columns = [...this.sql.exec<{ name: string }>("PRAGMA table_info(ci_tickets)")].map((c) => c.name);
    if (!columns.includes("blocked"))
      this.sql.exec("ALTER TABLE ci_tickets ADD COLUMN blocked INTEGER NOT NULL DEFAULT 0");
    this.sql.exec("CREATE TABLE IF NOT EXISTS ci_revoked (secret TEXT PRIMARY KEY, ticket_id INTEGER NOT NULL)");
    // the order's language (orders indexed before it was kept have none until read from D1 again)
    const orderColumns = [...this.sql.exec<{ name: string }>("PRAGMA table_info(ci_orders)")].map((c) => c.name);
    if (!orderColumns.includes("locale")) this.sql.exec("ALTER TABLE ci_orders ADD COLUMN locale TEXT");
    // the time an automatic exit moved to, and the wall-clock time it stands for (a skipped hour shifts it)
    const exitColumns = [...this.sql.exec<{ name: string }>("PRAGMA table_info(ci_exit_all)")].map((c) => c.name);
    if (!exitColumns.includes("next")) this.sql.exec("ALTER TABLE ci_exit_all ADD COLUMN next INTEGER");
    if (!exitColumns.includes("wall")) this.sql.exec("ALTER TABLE ci_exit_all ADD COLUMN wall INTEGER");
  }

  // ---- the index ----

  /** Indexes an order and its tickets; `replace`: the object just wrote them (else: known entries win). */
  indexOrder(order: OrderFacts, tickets: readonly IndexTicket[], replace: boolean): void {
    const verb = replace ? "INSERT OR REPLACE" : "INSERT OR IGNORE";
    this.sql.exec(
      `${verb} INTO ci_orders (code, status, require_approval, checkin_attention, sales_channel, locale) VALUES (?, ?, ?, ?, ?, ?)`,
      order.code,
      order.status,
      order.requireApproval ? 1 : 0,
      order.checkinAttention ? 1 : 0,
      order.salesChannel,
      order.locale,
    );
    // an order indexed before its language was kept learns it (the language never changes)
    if (order.locale !== null)
      this.sql.exec("UPDATE ci_orders SET locale = ? WHERE code = ? AND locale IS NULL", order.locale, order.code);
    for (const t of tickets) {
      this.sql.exec(
        `${verb} INTO ci_tickets (id, secret, order_code, addon_to, item, variation, subevent, canceled, valid_from, valid_until, answers, blocked)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        t.id,
        t.secret,
        order.code,
        t.addonTo,
        t.itemId,
        t.variationId,
        t.subeventId,
        t.canceled ? 1 : 0,
        t.validFrom,
        t.validUntil,
        JSON.stringify(t.answers),
        t.blocked ? 1 : 0,
      );
    }
  }

  /** Indexes what the object's D1 fallback read of a ticket's order returned (known entries win). */
  indexFromD1(row: TicketOrderRow): StoredPassage[] {
    type P = Omit<IndexTicket, "canceled" | "blocked"> & { canceled: number; blocked: number };
    const positions = JSON.parse(row.positions) as P[];
    this.indexOrder(
      {
        code: row.code,
        status: row.status as OrderStatus,
        requireApproval: row.requireApproval === 1,
        validIfPending: false,
        checkinAttention: row.checkinAttention === 1,
        salesChannel: row.salesChannel,
        locale: row.locale,
      },
      positions.map((p) => ({ ...p, canceled: Boolean(p.canceled), blocked: Boolean(p.blocked) })),
      false,
    );
    const added: StoredPassage[] = [];
    for (const c of JSON.parse(row.passages) as {
      uid: string;
      listId: number;
      positionId: number;
      type: CheckinType;
      datetime: number;
      nonce: string | null;
      deviceId: number | null;
      auto: number;
    }[]) {
      const p: StoredPassage = {
        uid: c.uid,
        listId: c.listId,
        ticketId: c.positionId,
        type: c.type,
        datetime: c.datetime,
        nonce: c.nonce,
        deviceId: c.deviceId,
        auto: c.auto === 1,
      };
      if (this.addPassage(p)) added.push(p);
    }
    return added;
  }

  private ticketFacts(r: TicketRow): TicketFacts {
    return {
      id: r.id,
      secret: r.secret,
      orderCode: r.order_code,
      addonTo: r.addon_to,
      itemId: r.item,
      variationId: r.variation,
      subeventId: r.subevent,
      canceled: r.canceled === 1,
      validFrom: r.valid_from,
      validUntil: r.valid_until,
      answers: JSON.parse(r.answers) as Answer[],
      blocked: r.blocked === 1,
    };
  }

  ticketBySecret(secret: string): TicketFacts | undefined {
    const [r] = [...this.sql.exec<TicketRow>("SELECT * FROM ci_tickets WHERE secret = ?", secret)];
    return r && this.ticketFacts(r);
  }

  ticketById(id: number): TicketFacts | undefined {
    const [r] = [...this.sql.exec<TicketRow>("SELECT * FROM ci_tickets WHERE id = ?", id)];
    return r && this.ticketFacts(r);
  }

  addonsOf(id: number): TicketFacts[] {
    return [...this.sql.exec<TicketRow>("SELECT * FROM ci_tickets WHERE addon_to = ? ORDER BY id", id)].map((r) =>
      this.ticketFacts(r),
    );
  }

  order(code: string): OrderFacts | undefined {
    const [r] = [...this.sql.exec<OrderRow>("SELECT * FROM ci_orders WHERE code = ?", code)];
    return (
      r && {
        code: r.code,
        status: r.status as OrderStatus,
        requireApproval: r.require_approval === 1,
        validIfPending: false,
        checkinAttention: r.checkin_attention === 1,
        salesChannel: r.sales_channel,
        locale: r.locale,
      }
    );
  }

  /** The order status changed (through the object): the index follows, if it holds the order. */
  setOrderStatus(code: string, status: OrderStatus): void {
    this.sql.exec("UPDATE ci_orders SET status = ? WHERE code = ?", status, code);
  }

  /** The order's approval changed (approve): the index follows, if it holds the order. */
  setOrderApproval(code: string, requireApproval: boolean): void {
    this.sql.exec("UPDATE ci_orders SET require_approval = ? WHERE code = ?", requireApproval ? 1 : 0, code);
  }

  /** The order's fields a scan reads changed (`PATCH`): its check-in attention and its language. */
  setOrderFields(code: string, f: { checkinAttention?: boolean; locale?: string }): void {
    if (f.checkinAttention !== undefined)
      this.sql.exec("UPDATE ci_orders SET checkin_attention = ? WHERE code = ?", f.checkinAttention ? 1 : 0, code);
    if (f.locale !== undefined) this.sql.exec("UPDATE ci_orders SET locale = ? WHERE code = ?", f.locale, code);
  }

  /** Every ticket of the order was canceled (a cancellation that keeps the order with a fee). */
  cancelTicketsOfOrder(code: string): void {
    this.sql.exec("UPDATE ci_tickets SET canceled = 1 WHERE order_code = ?", code);
  }

  // ---- secrets and blocks ----

  /**
   * A ticket's secret changes from `from` to `to` (only from `from`: a replay changes nothing);
   * with `revoke`, `from` is remembered as a revoked secret of the ticket.
   */
  changeSecret(ticketId: number, from: string, to: string, revoke: boolean): SecretUndo {
    const undo: SecretUndo = { ticketId, from, to, ticket: false, revoked: false };
    if (from === to) return undo;
    undo.ticket =
      this.sql.exec("UPDATE ci_tickets SET secret = ? WHERE id = ? AND secret = ?", to, ticketId, from).rowsWritten > 0;
    if (revoke)
      undo.revoked =
        this.sql.exec("INSERT OR IGNORE INTO ci_revoked (secret, ticket_id) VALUES (?, ?)", from, ticketId)
          .rowsWritten > 0;
    return undo;
  }

  /** Takes back what a `changeSecret` did (D1 did not take the change). */
  undoSecret(u: SecretUndo): void {
    if (u.ticket)
      this.sql.exec("UPDATE ci_tickets SET secret = ? WHERE id = ? AND secret = ?", u.from, u.ticketId, u.to);
    if (u.revoked) this.sql.exec("DELETE FROM ci_revoked WHERE secret = ? AND ticket_id = ?", u.from, u.ticketId);
  }

  /** Remembers a revoked secret read from D1. */
  addRevoked(secret: string, ticketId: number): void {
    this.sql.exec("INSERT OR IGNORE INTO ci_revoked (secret, ticket_id) VALUES (?, ?)", secret, ticketId);
  }

  /** The ticket a revoked secret belonged to. */
  revokedTicket(secret: string): number | undefined {
    const [r] = [...this.sql.exec<{ ticket_id: number }>("SELECT ticket_id FROM ci_revoked WHERE secret = ?", secret)];
    return r?.ticket_id;
  }

  setBlocked(ticketId: number, blocked: boolean): void {
    this.sql.exec("UPDATE ci_tickets SET blocked = ? WHERE id = ?", blocked ? 1 : 0, ticketId);
  }

  setAnswers(ticketId: number, answers: Answer[]): void {
    this.sql.exec("UPDATE ci_tickets SET answers = ? WHERE id = ?", JSON.stringify(answers), ticketId);
  }

  // ---- passages ----

  /** The ticket's passages on a list, oldest first (by scan time, then as recorded). */
  passages(ticketId: number, listId: number): StoredPassage[] {
    return [
      ...this.sql.exec<{
        uid: string;
        type: string;
        datetime: number;
        nonce: string | null;
        device_id: number | null;
        auto: number;
      }>(
        "SELECT uid, type, datetime, nonce, device_id, auto FROM ci_passages WHERE ticket_id = ? AND list_id = ? ORDER BY datetime, rowid",
        ticketId,
        listId,
      ),
    ].map((r) => ({
      uid: r.uid,
      listId,
      ticketId,
      type: r.type as CheckinType,
      datetime: r.datetime,
      nonce: r.nonce,
      deviceId: r.device_id,
      auto: r.auto === 1,
    }));
  }

  /** Records a passage; false when it was known already (same uid). */
  addPassage(p: StoredPassage): boolean {
    const before = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM ci_passages WHERE uid = ?", p.uid).one().n;
    if (before > 0) return false;
    this.sql.exec(
      "INSERT INTO ci_passages (uid, list_id, ticket_id, type, datetime, nonce, device_id, auto) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      p.uid,
      p.listId,
      p.ticketId,
      p.type,
      p.datetime,
      p.nonce,
      p.deviceId,
      p.auto ? 1 : 0,
    );
    return true;
  }

  /** A successful passage by its uid. */
  passage(uid: string): StoredPassage | undefined {
    const [r] = [
      ...this.sql.exec<{
        uid: string;
        list_id: number;
        ticket_id: number;
        type: string;
        datetime: number;
        nonce: string | null;
        device_id: number | null;
        auto: number;
      }>("SELECT * FROM ci_passages WHERE uid = ?", uid),
    ];
    return (
      r && {
        uid: r.uid,
        listId: r.list_id,
        ticketId: r.ticket_id,
        type: r.type as CheckinType,
        datetime: r.datetime,
        nonce: r.nonce,
        deviceId: r.device_id,
        auto: r.auto === 1,
      }
    );
  }

  removePassage(uid: string): void {
    this.sql.exec("DELETE FROM ci_passages WHERE uid = ?", uid);
  }

  /** A list was deleted with its check-ins. */
  forgetList(listId: number): void {
    this.sql.exec("DELETE FROM ci_passages WHERE list_id = ?", listId);
    this.sql.exec("DELETE FROM ci_exit_all WHERE list_id = ?", listId);
  }

  /** The type of the ticket's last passage on any list (null: never scanned). */
  lastTypeAnywhere(ticketId: number): CheckinType | null {
    const [r] = [
      ...this.sql.exec<{ type: string }>(
        "SELECT type FROM ci_passages WHERE ticket_id = ? ORDER BY datetime DESC, rowid DESC LIMIT 1",
        ticketId,
      ),
    ];
    return (r?.type as CheckinType | undefined) ?? null;
  }

  /**
   * Tickets whose last passage on any list is an exit, with their capacity facts (to rebuild the
   * ledger): only tickets that ever left are looked at, however many the index holds.
   */
  exitedTickets(): {
    id: number;
    orderCode: string;
    item: number;
    variation: number | null;
    subevent: number | null;
  }[] {
    return [
      ...this.sql.exec<{
        id: number;
        order_code: string;
        item: number;
        variation: number | null;
        subevent: number | null;
      }>(
        `SELECT t.id, t.order_code, t.item, t.variation, t.subevent FROM ci_tickets t
         WHERE t.id IN (SELECT ticket_id FROM ci_passages WHERE type = 'exit')
           AND (SELECT p.type FROM ci_passages p WHERE p.ticket_id = t.id ORDER BY p.datetime DESC, p.rowid DESC LIMIT 1) = 'exit'`,
      ),
    ].map((r) => ({ id: r.id, orderCode: r.order_code, item: r.item, variation: r.variation, subevent: r.subevent }));
  }

  /** Tickets inside a list at `at` (their last passage on it up to `at` is an entry). */
  insideAt(listId: number, at: number): number[] {
    return [
      ...this.sql.exec<{ ticket_id: number }>(
        `SELECT DISTINCT p.ticket_id FROM ci_passages p WHERE p.list_id = ? AND p.datetime <= ?
           AND (SELECT q.type FROM ci_passages q WHERE q.list_id = p.list_id AND q.ticket_id = p.ticket_id AND q.datetime <= ?
                ORDER BY q.datetime DESC, q.rowid DESC LIMIT 1) = 'entry'`,
        listId,
        at,
        at,
      ),
    ].map((r) => r.ticket_id);
  }

  /** Counts of what the object holds (tests and diagnostics). */
  counts(): { tickets: number; passages: number } {
    return {
      tickets: this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM ci_tickets").one().n,
      passages: this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM ci_passages").one().n,
    };
  }

  // ---- automatic exits ----

  firedExitAll(listId: number): number | null {
    const [r] = [...this.sql.exec<{ fired: number }>("SELECT fired FROM ci_exit_all WHERE list_id = ?", listId)];
    return r?.fired ?? null;
  }

  /**
   * A firing at `fired` happened and moved the list's automatic exit to `next`, which stands
   * for the wall-clock time `wall` (rules/checkin.ts `nextExitAllWall`).
   */
  recordExitAll(listId: number, fired: number, next: number, wall: number): void {
    this.sql.exec(
      "INSERT OR REPLACE INTO ci_exit_all (list_id, fired, next, wall) VALUES (?, ?, ?, ?)",
      listId,
      fired,
      next,
      wall,
    );
  }

  /** The wall-clock time the list's automatic exit at `at` stands for, if the object moved it there. */
  meantExitAll(listId: number, at: number): number | null {
    const [r] = [
      ...this.sql.exec<{ wall: number | null }>(
        "SELECT wall FROM ci_exit_all WHERE list_id = ? AND next = ?",
        listId,
        at,
      ),
    ];
    return r?.wall ?? null;
  }
}

/** The configuration from its rows (db/inventory.ts `readInventoryCatalog` / `readCheckinCatalog`). */
export function checkinConfigFromRows(rows: CheckinCatalogRows): CheckinConfig {
  const [listRows, listItems, questionRows, eventRows, subeventRows, stampRows] = rows;
  const limits = new Map<number, number[]>();
  for (const r of listItems) limits.set(r.listId, [...(limits.get(r.listId) ?? []), r.itemId]);
  const lists = new Map<number, ListConfig>();
  for (const l of listRows) {
    lists.set(l.id, {
      id: l.id,
      eventId: l.eventId,
      name: l.name,
      allProducts: l.allProducts,
      limitProducts: limits.get(l.id) ?? [],
      subeventId: l.subeventId,
      includePending: l.includePending,
      allowMultipleEntries: l.allowMultipleEntries,
      allowEntryAfterExit: l.allowEntryAfterExit,
      addonMatch: l.addonMatch,
      rules: l.rules ?? {},
      exitAllAt: l.exitAllAt,
      autoCheckinSalesChannels: l.autoCheckinSalesChannels ?? [],
    });
  }
  const questions: CheckinQuestion[] = questionRows.map((q) => ({
    id: q.id,
    identifier: q.identifier,
    type: q.type,
    required: q.required === 1,
    items: JSON.parse(q.items) as number[],
    options: JSON.parse(q.options) as CheckinQuestion["options"],
  }));
  const stamps: Record<string, number> = {};
  for (const s of stampRows) stamps[s.resource] = s.modifiedAt;
  const ev = eventRows[0];
  return {
    lists,
    questions,
    timezone: ev?.timezone ?? "UTC",
    locale: ev?.locale ?? "en",
    eventDates: { dateFrom: ev?.dateFrom ?? 0, dateTo: ev?.dateTo ?? null, dateAdmission: ev?.dateAdmission ?? null },
    subeventDates: new Map(
      subeventRows.map((s) => [s.id, { dateFrom: s.dateFrom, dateTo: s.dateTo, dateAdmission: s.dateAdmission }]),
    ),
    stamps,
  };
}
