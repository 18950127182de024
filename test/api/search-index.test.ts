/**
 * The searches of orders and tickets through the trigram indexes (migrations/0012_text_search.sql,
 * src/db/search.ts): terms of 3 or more characters start from the indexes, shorter ones (and
 * those with NUL) test every row with `instr()`; both must find exactly what the substring match
 * defines (pretix `icontains`, ASCII case folded as SQLite's `lower()` does; secrets and, for
 * tickets, order codes by their start). The expected rows are computed here from the lists'
 * own data, for hostile and normal terms alike; and the indexes follow the rows they index
 * (a re-issued secret, a changed e-mail, name or invoice address, a deleted order).
 */
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderPositions, orders } from "../../src/db/schema";
import { db } from "../harness";
import { venue } from "../helpers/checkin";

/** SQLite's lower(): ASCII letters only. */
const lower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const contains = (text: unknown, term: string) => typeof text === "string" && lower(text).includes(lower(term));
const startsWith = (text: unknown, term: string) => typeof text === "string" && lower(text).startsWith(lower(term));

type Pos = {
  id: number;
  attendee_name: string | null;
  attendee_email: string | null;
  secret: string;
  addon_to: number | null;
};
type Ord = {
  code: string;
  email: string | null;
  comment: string;
  status: string;
  invoice_address: { company?: string; name_parts?: Record<string, unknown> } | null;
  positions: Pos[];
};

const nameValues = (o: Ord) =>
  Object.entries(o.invoice_address?.name_parts ?? {})
    .filter(([k, v]) => typeof v === "string" && !k.startsWith("_"))
    .map(([, v]) => v as string);

/** The orders list's `search` as pretix documents it (src/db/order-filters.ts). */
function orderMatches(o: Ord, slug: string, term: string): boolean {
  const dash = term.lastIndexOf("-");
  const code =
    dash < 0
      ? contains(o.code, term)
      : slug.toLowerCase().includes(term.slice(0, dash).toLowerCase()) && contains(o.code, term.slice(dash + 1));
  const names = nameValues(o);
  return (
    code ||
    contains(o.email, term) ||
    contains(o.comment, term) ||
    contains(o.invoice_address?.company, term) ||
    names.some((n) => contains(n, term)) ||
    (names.length > 0 && contains(names.join(" "), term)) ||
    o.positions.some(
      (p) => contains(p.attendee_name, term) || contains(p.attendee_email, term) || startsWith(p.secret, term),
    )
  );
}

/** A check-in list's `search` (src/db/checkin/tickets.ts). */
function ticketMatches(o: Ord, p: Pos, term: string): boolean {
  const parent = p.addon_to === null ? undefined : o.positions.find((x) => x.id === p.addon_to);
  const names = nameValues(o);
  return (
    startsWith(p.secret, term) ||
    contains(p.attendee_name, term) ||
    contains(parent?.attendee_name, term) ||
    startsWith(o.code, term) ||
    (names.length > 0 && contains(names.join(" "), term)) ||
    contains(p.attendee_email, term) ||
    contains(o.email, term)
  );
}

const q = encodeURIComponent;
const LONG = "A long name for an event, longer than fifty bytes: eighty characters, no less.";
const WILD = "%_\\".repeat(30);

describe("search through the trigram indexes", { timeout: 120_000 }, () => {
  it("finds exactly what the substring match finds, for hostile and normal terms, short and long", async () => {
    const v = await venue();
    const workshop = await v.item({ name: { en: "Workshop" } });
    await v.quota({ size: 100, items: [workshop.id] });
    const list = await v.list();
    const person = (given: string, family: string) => ({ given_name: given, family_name: family });
    await v.order({
      email: "jane.doe@example.org",
      comment: `Note: ${LONG}`,
      invoice_address: { company: "ACME Ltd", name_parts: person("Jane", "Doe") },
      positions: [
        {
          item: v.ticket.id,
          positionid: 1,
          attendee_name_parts: person("Jane", "Doe"),
          attendee_email: "JANE@Example.ORG",
        },
        { item: workshop.id, positionid: 2, addon_to: 1 },
      ],
    });
    await v.order({
      email: "joerg@example.com",
      positions: [{ item: v.ticket.id, attendee_name_parts: person("JÖRG", "Müller") }],
    });
    await v.order({
      email: "obrien@example.net",
      comment: 'said "hi" (twice) AND left: NEAR* ^x {code}',
      positions: [{ item: v.ticket.id, attendee_name_parts: person('Anna "Nan"', 'O"Brien') }],
    });
    await v.order({
      email: "wild@example.org",
      comment: `Code ${WILD}`,
      positions: [{ item: v.ticket.id, attendee_name_parts: person("Konzert 🎸🎉", "am See") }],
    });
    await v.order({
      email: "nul@example.org",
      comment: "before\u0000after",
      status: "n",
      positions: [{ item: v.ticket.id, attendee_name_parts: person("Pending", "Person") }],
    });
    await v.order({
      email: null,
      invoice_address: { company: "Doe & Sons", name_parts: { _scheme: "full", full_name: "Hidden_scheme" } },
      positions: [{ item: v.ticket.id }],
    });

    const all = (await v.client.get(`${v.path}/orders/?page_size=100`)).body.results as Ord[];
    expect(all).toHaveLength(6);
    const [jane, joerg, , wild] = all;
    const code = jane!.code;
    const secret = jane!.positions[0]!.secret;
    const terms = [
      // normal
      "jane",
      "JANE",
      "Doe",
      "e D",
      "ne Do",
      "example",
      "@example.org",
      "acme",
      "Ltd",
      "sons",
      "workshop",
      "guest",
      "Pending",
      "full",
      "_scheme",
      "scheme",
      code,
      code.toLowerCase(),
      code.slice(1, 4),
      `${v.eventSlug}-${code}`,
      `${v.eventSlug.slice(0, 3)}-${code.slice(0, 3)}`,
      `${v.eventSlug}-${code.slice(0, 2)}`,
      `${v.eventSlug}-`,
      `nomatch-${code}`,
      secret.slice(0, 10),
      secret.slice(0, 3),
      secret.slice(3, 12),
      secret,
      wild!.positions[0]!.secret.toUpperCase(),
      // case beyond ASCII: lower() folds none of it, the index folds it (and is only a prefilter)
      "JÖRG",
      "jörg",
      "jÖrg",
      "MÜLLER",
      "müller",
      "Müller",
      // FTS5 query syntax, which must stay literal
      '"',
      '""',
      '"""',
      '"hi"',
      'O"B',
      'Anna "Nan"',
      "NEAR",
      "NEAR*",
      "AND",
      "AND left",
      "^x",
      "{code}",
      "code : x",
      "(twice)",
      "*",
      "a:b",
      "-",
      "--",
      "+",
      // hostile
      LONG,
      LONG.toUpperCase(),
      `${LONG}x`,
      WILD,
      `${WILD}%`,
      "%",
      "_",
      "\\",
      "%%",
      "%_\\",
      "🎸",
      "🎸🎉",
      "🎹🎹🎹",
      "before\u0000after",
      "before\u0000x",
      "\u0000",
      "x".repeat(5000),
      "  ",
      "a",
    ];
    const tickets = all.filter((o) => o.status === "p").flatMap((o) => o.positions.map((p) => ({ o, p })));
    for (const term of terms) {
      const expectedOrders = all
        .filter((o) => orderMatches(o, v.eventSlug, term))
        .map((o) => o.code)
        .sort();
      const foundOrders = await v.client.get(`${v.path}/orders/?page_size=100&search=${q(term)}`);
      expect(foundOrders.status, term).toBe(200);
      expect(foundOrders.body.results.map((o: Ord) => o.code).sort(), `orders, ${JSON.stringify(term)}`).toEqual(
        expectedOrders,
      );
      expect(foundOrders.body.count, term).toBe(expectedOrders.length);

      const expectedTickets = tickets
        .filter(({ o, p }) => ticketMatches(o, p, term))
        .map(({ p }) => p.id)
        .sort((a, b) => a - b);
      const foundTickets = await v.client.get(
        `${v.path}/checkinlists/${list.id}/positions/?page_size=100&search=${q(term)}`,
      );
      expect(foundTickets.status, term).toBe(200);
      expect(
        foundTickets.body.results.map((p: Pos) => p.id).sort((a: number, b: number) => a - b),
        `tickets, ${JSON.stringify(term)}`,
      ).toEqual(expectedTickets);
      expect(foundTickets.body.count, term).toBe(expectedTickets.length);

      const rpc = await v.scanner.get(
        `/api/v1/organizers/${v.orgSlug}/checkinrpc/search/?list=${list.id}&page_size=100&search=${q(term)}`,
      );
      expect(rpc.status, term).toBe(200);
      expect(
        rpc.body.results.map((p: Pos) => p.id).sort((a: number, b: number) => a - b),
        `checkinrpc, ${JSON.stringify(term)}`,
      ).toEqual(expectedTickets);
    }
    // the set of terms reaches both paths and finds something on each
    const hits = (term: string) => all.some((o) => orderMatches(o, v.eventSlug, term));
    expect(terms.filter((t) => [...t].length >= 3 && !t.includes("\u0000") && hits(t)).length).toBeGreaterThan(25);
    expect(terms.filter((t) => ([...t].length < 3 || t.includes("\u0000")) && hits(t)).length).toBeGreaterThan(8);
    // an add-on is found by its base position's name (the workshop position has none of its own)
    const addon = jane!.positions[1]!;
    expect(addon.attendee_name).toBeNull();
    expect(
      ((await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?search=Jane`)).body.results as Pos[]).map(
        (p) => p.id,
      ),
    ).toContain(addon.id);
    expect(joerg!.code).not.toBe(code);
  });

  it("follows the rows: a re-issued secret, a changed e-mail, name and invoice address, a deleted order", async () => {
    const v = await venue();
    const list = await v.list();
    const order = await v.order({
      email: "before@example.org",
      invoice_address: { company: "Oldco", name_parts: { given_name: "Olga", family_name: "Oldname" } },
      positions: [
        {
          item: v.ticket.id,
          attendee_name_parts: { given_name: "Anton", family_name: "Alt" },
          attendee_email: "anton@old.example",
        },
      ],
    });
    const other = await v.order({ email: "other@example.org" });
    const position = order.positions[0] as Pos;
    const orders_ = async (term: string) =>
      ((await v.client.get(`${v.path}/orders/?search=${q(term)}`)).body.results as Ord[]).map((o) => o.code);
    const tickets = async (term: string) =>
      (
        (await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?search=${q(term)}`)).body.results as Pos[]
      ).map((p) => p.id);
    const rpc = async (term: string) =>
      (
        (await v.scanner.get(`/api/v1/organizers/${v.orgSlug}/checkinrpc/search/?list=${list.id}&search=${q(term)}`))
          .body.results as Pos[]
      ).map((p) => p.id);

    // a re-issued secret: found by the new one, no longer by the old one
    const old = position.secret;
    expect(await tickets(old.slice(0, 12))).toEqual([position.id]);
    const reissued = await v.client.post(`${v.path}/orderpositions/${position.id}/regenerate_secrets/`, {});
    expect(reissued.status, JSON.stringify(reissued.body)).toBe(200);
    const fresh = reissued.body.secret as string;
    expect(fresh).not.toBe(old);
    for (const find of [tickets, rpc]) {
      expect(await find(fresh.slice(0, 12))).toEqual([position.id]);
      expect(await find(old.slice(0, 12))).toEqual([]);
    }
    expect(await orders_(fresh.slice(0, 12))).toEqual([order.code]);
    expect(await orders_(old.slice(0, 12))).toEqual([]);

    // the order's e-mail, the attendee's name and e-mail, the invoice address changed in the row
    // (no endpoint of this service changes them yet; the triggers must follow any writer)
    const stored = (await db().select({ a: orders.invoiceAddress }).from(orders).where(eq(orders.code, order.code)))[0]!
      .a!;
    expect(stored).toMatchObject({ company: "Oldco" });
    await db()
      .update(orders)
      .set({
        email: "after@example.org",
        invoiceAddress: { ...stored, company: "Newco", name_parts: { given_name: "Nora", family_name: "Newname" } },
      })
      .where(eq(orders.code, order.code));
    await db()
      .update(orderPositions)
      .set({ attendeeName: "Bert Neu", attendeeEmail: "bert@new.example" })
      .where(eq(orderPositions.id, position.id));
    for (const [gone, now] of [
      ["before@", "after@"],
      ["Oldco", "Newco"],
      ["Olga Old", "Nora New"],
      ["Anton", "Bert Neu"],
      ["anton@old", "bert@new"],
    ] as const) {
      expect(await orders_(gone), gone).toEqual([]);
      expect(await orders_(now), now).toEqual([order.code]);
    }
    for (const [gone, now] of [
      ["before@", "after@"],
      ["Olga Old", "Nora New"],
      ["Anton", "Bert Neu"],
      ["anton@old", "bert@new"],
    ] as const) {
      for (const find of [tickets, rpc]) {
        expect(await find(gone), gone).toEqual([]);
        expect(await find(now), now).toEqual([position.id]);
      }
    }
    // an update of other columns leaves the index as it is
    await db().update(orders).set({ comment: "still found" }).where(eq(orders.code, order.code));
    expect(await orders_("after@")).toEqual([order.code]);
    expect(await orders_("still found")).toEqual([order.code]);

    // deleted rows leave the indexes (a contentless index forgets a row only when told its values)
    const count = async (table: string) =>
      (await db().all<{ n: number }>(sql.raw(`SELECT count(*) AS n FROM ${table}`)))[0]!.n;
    const before = [await count("orders_search"), await count("order_positions_search")];
    await db().delete(orders).where(eq(orders.code, other.code));
    expect([await count("orders_search"), await count("order_positions_search")]).toEqual([
      before[0]! - 1,
      before[1]! - 1,
    ]);
    expect(await count("orders_search")).toBe(await count("orders"));
    expect(await count("order_positions_search")).toBe(await count("order_positions"));
    expect(await orders_("other@example")).toEqual([]);
    // the index's integrity as FTS5 checks it
    await db().run(sql.raw(`INSERT INTO orders_search (orders_search, rank) VALUES ('integrity-check', 0)`));
    await db().run(
      sql.raw(`INSERT INTO order_positions_search (order_positions_search, rank) VALUES ('integrity-check', 0)`),
    );
  });
});
