/**
 * Large events stay fast (issue "Production hardening", item 4): every statement a list request
 * runs — the orders list (with pretix's documented filters), a check-in list's tickets and
 * checkinrpc/search; first page, a deep page, search, modified_since and every documented
 * ordering — is planned by SQLite without a full scan of a
 * table and without sorting every row of the event. The request goes through the app with a D1
 * binding that records each statement; each is then explained (`EXPLAIN QUERY PLAN`) with its
 * own parameters on the same database. Plans do not depend on the data here (no ANALYZE): a
 * handful of orders plans as 100,000 do (`npm run bench -- --scenario large` measures those).
 *
 * Allowed: scans of subquery results and JSON; sorts inside correlated subqueries (one row's
 * children), sorts of the rows a page's ids or an index range selected, and partial sorts
 * ("LAST TERM"/"RIGHT PART": equal keys of an index among themselves).
 */
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { listOrders } from "../../src/db/orders";
import { orderPositions, orders } from "../../src/db/schema";
import { db, seedEventRow } from "../harness";
import { venue } from "../helpers/checkin";
import { planOf, planProblems, recorded, searchProblems } from "../helpers/query-plans";

describe("the query plans of a large event's lists", { timeout: 120_000 }, () => {
  it("a full scan or a sort of every row is recognised (the check itself)", () => {
    expect(planProblems([{ id: 2, parent: 0, detail: "SCAN order_positions" }])).toEqual([
      "full scan: SCAN order_positions",
    ]);
    expect(planProblems([{ id: 2, parent: 0, detail: "SCAN p USING INDEX order_positions_item_idx" }])).toHaveLength(1);
    expect(
      planProblems([
        { id: 3, parent: 0, detail: "SEARCH p USING INDEX order_positions_event_idx (event_id=?)" },
        { id: 9, parent: 0, detail: "USE TEMP B-TREE FOR ORDER BY" },
      ]),
    ).toHaveLength(1);
    expect(
      planProblems([
        { id: 2, parent: 0, detail: "CO-ROUTINE c" },
        { id: 3, parent: 2, detail: "SEARCH checkins USING INDEX checkins_position_idx (position_id=?)" },
        { id: 8, parent: 0, detail: "SCAN c" },
        { id: 9, parent: 0, detail: "USE TEMP B-TREE FOR LAST TERM OF ORDER BY" },
      ]),
    ).toEqual([]);
    // a search that walks the event's orders instead of starting from the trigram indexes
    expect(
      searchProblems([
        { id: 4, parent: 0, detail: "SEARCH orders USING INDEX orders_event_cancellation_idx (event_id=?)" },
        { id: 22, parent: 19, detail: "SCAN orders_search VIRTUAL TABLE INDEX 64:M5" },
        { id: 41, parent: 39, detail: "SCAN order_positions_search VIRTUAL TABLE INDEX 0:M3" },
      ]),
    ).toEqual(["walks the event: SEARCH orders USING INDEX orders_event_cancellation_idx (event_id=?)"]);
    // the list's check-in count as it was: every ticket of the event, and for each the list's check-ins
    expect(
      planProblems([
        {
          id: 3,
          parent: 0,
          detail: "SEARCH p USING COVERING INDEX order_positions_tickets_idx (event_id=? AND canceled=?)",
        },
        { id: 6, parent: 0, detail: "CORRELATED LIST SUBQUERY 1" },
        { id: 9, parent: 6, detail: "SEARCH c USING INDEX checkins_list_idx (list_id=? AND successful=?)" },
        { id: 12, parent: 0, detail: "CORRELATED LIST SUBQUERY 2" },
        {
          id: 15,
          parent: 12,
          detail: "SEARCH li USING COVERING INDEX sqlite_autoindex_checkin_list_items_1 (list_id=?)",
        },
      ]),
    ).toEqual(["a list subquery for every row: SEARCH c USING INDEX checkins_list_idx (list_id=? AND successful=?)"]);
    expect(
      searchProblems([{ id: 3, parent: 0, detail: "SEARCH orders USING INTEGER PRIMARY KEY (rowid=?)" }]),
    ).toHaveLength(2);
  });

  it("every list request plans with indexes only", async () => {
    const v = await venue();
    const vip = await v.item({ name: { en: "VIP" }, admission: true });
    await v.quota({ size: 100, items: [vip.id] });
    const list = await v.list();
    const limited = await v.list({ name: "VIP entrance", all_products: false, limit_products: [vip.id] });
    const pending = await v.list({ name: "Box office", include_pending: true });
    for (let i = 0; i < 4; i++) {
      await v.order({
        email: `guest${i}@example.org`,
        positions: [{ item: v.ticket.id, attendee_name_parts: { given_name: `Guest${i}` } }, { item: vip.id }],
      });
    }
    const sold = await v.sell();
    expect((await v.redeem({ secret: sold.secret, lists: [list.id], type: "entry" })).status).toBe(201);

    const since = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
    const until = encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString());
    const orders = `${v.path}/orders/`;
    const paths = [
      orders,
      `${orders}?page=2&page_size=2`,
      `${orders}?search=guest1`,
      `${orders}?search=Guest1&ordering=-datetime`,
      `${orders}?modified_since=${since}`,
      ...["datetime", "code", "status", "last_modified", "cancellation_date"].flatMap((f) => [
        `${orders}?ordering=${f}`,
        `${orders}?ordering=-${f}`,
      ]),
      // pretix's other documented filters of the orders list
      `${orders}?item=${vip.id}`,
      `${orders}?item=${vip.id}&ordering=-code&page=2&page_size=1`,
      `${orders}?created_since=${since}&created_before=${until}`,
      `${orders}?require_approval=false&sales_channel=web`,
      `${orders}?status=p&email=guest1@example.org`,
      `${orders}?include_canceled_positions=true&include_canceled_fees=true`,
    ];
    // filters that select nothing in this event (no dates, no payments): planned all the same
    const empty = [
      `${orders}?subevent=1`,
      `${orders}?subevent_after=${since}`,
      `${orders}?subevent_before=${until}`,
      `${orders}?payment_provider=manual&ordering=-last_modified`,
    ];
    // a list's detail: its counts of tickets and of tickets checked in
    const details = [list, limited, pending].map((l) => `${v.path}/checkinlists/${l.id}/`);
    paths.push(...details);
    for (const l of [list, limited, pending]) {
      const tickets = `${v.path}/checkinlists/${l.id}/positions/`;
      paths.push(
        tickets,
        `${tickets}?page=2&page_size=2`,
        `${tickets}?search=Guest1`,
        `${tickets}?search=Guest1&ordering=-order__datetime`,
      );
      for (const f of [
        "order__code",
        "order__datetime",
        "positionid",
        "attendee_name",
        "last_checked_in",
        "order__email",
      ]) {
        paths.push(`${tickets}?ordering=${f}`, `${tickets}?ordering=-${f}`);
      }
      paths.push(`${tickets}?item=${vip.id}&status=p`, `${tickets}?has_checkin=false&ordering=attendee_name`);
    }
    // checkinrpc/search (the lists' settings read in the statement): one list, and lists of two events
    const other = await seedEventRow(v.org.id);
    const away = await v.client.post(`/api/v1/organizers/${v.orgSlug}/events/${other.slug}/checkinlists/`, {
      name: "Elsewhere",
      all_products: true,
    });
    expect(away.status, JSON.stringify(away.body)).toBe(201);
    const rpc = `/api/v1/organizers/${v.orgSlug}/checkinrpc/search/?list=${limited.id}`;
    const rpcTwo = `${rpc}&list=${away.body.id}`;
    for (const q of [rpc, rpcTwo]) {
      paths.push(
        `${q}&search=Guest1`,
        `${q}&search=guest`,
        ...["order__code", "-attendee_name", "positionid", "-order__email"].map(
          (f) => `${q}&search=guest&ordering=${f}`,
        ),
      );
    }
    const found: string[] = [];
    let explained = 0;
    let searched = 0;
    for (const path of [...paths, ...empty]) {
      const r = await recorded(v.client, path);
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
      if (!empty.includes(path) && !details.includes(path)) expect(r.body.results!.length, path).toBeGreaterThan(0);
      let matched = 0;
      for (const s of r.statements) {
        explained++;
        const plan = await planOf(s);
        for (const p of planProblems(plan)) found.push(`${path}\n  ${p}\n  in: ${s.sql.slice(0, 400)}`);
        if (s.sql.includes("_search MATCH")) {
          matched += s.sql.split("_search MATCH").length - 1;
          for (const p of searchProblems(plan)) found.push(`${path}\n  ${p}\n  in: ${s.sql.slice(0, 400)}`);
        }
      }
      // a deep page of a list's tickets in the default ordering steps over the skipped tickets in
      // the index alone: a list of paid orders in the range of their status (nothing tested per
      // ticket), a list with pending orders testing each ticket's status
      if (/\/positions\/\?page=2&page_size=2$/.test(path)) {
        const plans = (await Promise.all(r.statements.filter((s) => s.sql.includes("OFFSET")).map(planOf)))
          .flat()
          .map((x) => x.detail);
        expect(plans, path).toContain(
          "SEARCH p USING COVERING INDEX order_positions_status_named_first_idx (event_id=? AND canceled=? AND order_status=?)",
        );
        expect(plans, path).toContain(
          "SEARCH p USING COVERING INDEX order_positions_named_first_idx (event_id=? AND canceled=?)",
        );
      }
      // a search of 3 or more characters is answered from the trigram indexes (the count and the page's ids, one statement)
      if (/[?&]search=[^&]{3}/.test(path)) {
        expect(matched, path).toBeGreaterThanOrEqual(2);
        searched++;
      }
    }
    // filters that name one order find it through an index on what they compare (the code, the
    // lower-cased e-mail), not by testing each order of the event
    const mixed = await v.order({
      email: "Mixed.Case@Example.org",
      positions: [{ item: v.ticket.id }, { item: v.ticket.id }],
    });
    const seeks: [string, string, string[]][] = [
      [`${orders}?code=${mixed.code.toLowerCase()}`, "orders_event_code_uq (event_id=? AND code=?)", [mixed.code]],
      [
        `${orders}?email=mixed.CASE@example.ORG`,
        "orders_event_email_lower_idx (event_id=? AND <expr>=?)",
        [mixed.code],
      ],
      [
        `${v.path}/checkinlists/${list.id}/positions/?order=${mixed.code.toLowerCase()}`,
        "orders_event_code_uq (event_id=? AND code=?)",
        [mixed.code, mixed.code],
      ],
    ];
    for (const [path, index, codes] of seeks) {
      const r = await recorded(v.client, path);
      expect(r.status, path).toBe(200);
      expect(
        r.body.results!.map((x) => (x as { code?: string; order?: string }).code ?? (x as { order: string }).order),
        path,
      ).toEqual(codes);
      const details = (await Promise.all(r.statements.map(planOf))).flat().map((x) => x.detail);
      expect(
        details.some((d) => d.endsWith(index)),
        `${path}: ${details.join(" | ")}`,
      ).toBe(true);
      // no statement of the request walks the event's orders or tickets (a page's keys in the list's
      // ordering would: SQLite prefers the ordering's index and tests the filter on each)
      expect(
        details.filter((d) =>
          /^SEARCH (orders|o|order_positions|p) USING (COVERING )?INDEX \S+ \(event_id=\?( AND canceled=\?)?( AND order_status=\?)?\)$/.test(
            d,
          ),
        ),
        path,
      ).toEqual([]);
    }
    // and a list's tickets of that order are read from the order's index, never from one of the event
    for (const l of [list, pending]) {
      for (const q of [
        "",
        "&ordering=-order__datetime",
        "&ordering=attendee_name",
        "&ordering=last_checked_in",
        "&page=2&page_size=1",
      ]) {
        const path = `${v.path}/checkinlists/${l.id}/positions/?order=${mixed.code}${q}`;
        const r = await recorded(v.client, path);
        expect(r.status, path).toBe(200);
        expect(r.body.count, path).toBe(2);
        const details = (await Promise.all(r.statements.map(planOf))).flat().map((x) => x.detail);
        expect(
          details.filter((d) => /^SEARCH p /.test(d) && !/\(rowid=\?\)$/.test(d)),
          path,
        ).toEqual(
          details.filter((d) => d.startsWith("SEARCH p USING INDEX order_positions_order_positionid_uq (order_id=?)")),
        );
        expect(
          details.filter((d) => d.startsWith("SEARCH p USING INDEX order_positions_order_positionid_uq (order_id=?)"))
            .length,
          path,
        ).toBeGreaterThan(0);
        for (const plan of await Promise.all(r.statements.map(planOf))) expect(planProblems(plan), path).toEqual([]);
      }
    }
    expect(searched).toBe(2 + 3 * 2 + 2 * 6);
    expect(explained).toBeGreaterThan((paths.length + empty.length) * 2);
    expect(found).toEqual([]);
  });

  it("a deep page, each ordering and the list's filters give the rows the full ordering gives", async () => {
    const v = await venue();
    const list = await v.list();
    const names = ["Cleo", "", "anna", "Bob", "", "Dora", "anna"];
    for (const [i, name] of names.entries()) {
      await v.order({
        email: `p${(i * 5) % 7}@example.org`,
        positions: [
          { item: v.ticket.id, ...(name ? { attendee_name_parts: { given_name: name } } : {}) },
          { item: v.ticket.id },
        ],
      });
    }
    const all = async (query: string) => {
      const res = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?page_size=100&${query}`);
      expect(res.status).toBe(200);
      return res.body.results.map((p: { id: number }) => p.id) as number[];
    };
    const paged = async (query: string) => {
      const out: number[] = [];
      for (let page = 1; page <= 5; page++) {
        const res = await v.client.get(
          `${v.path}/checkinlists/${list.id}/positions/?page_size=3&page=${page}&${query}`,
        );
        if (res.status === 404) break;
        expect(res.status).toBe(200);
        expect(res.body.count).toBe(14);
        out.push(...res.body.results.map((p: { id: number }) => p.id));
      }
      return out;
    };
    const scanned = (await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?page_size=100`)).body.results as {
      id: number;
      secret: string;
    }[];
    for (const t of scanned.slice(0, 5))
      expect((await v.redeem({ secret: t.secret, lists: [list.id], type: "entry" })).status).toBe(201);
    for (const f of [
      "",
      "order__code",
      "-order__code",
      "order__datetime",
      "-order__email",
      "positionid",
      "-positionid",
      "attendee_name",
      "-attendee_name",
      "last_checked_in",
      "-last_checked_in",
    ]) {
      const q = f ? `ordering=${f}` : "";
      const whole = await all(q);
      expect(whole, f).toHaveLength(14);
      expect(new Set(whole).size, f).toBe(14);
      expect(await paged(q), f).toEqual(whole);
    }
    // those without a check-in first (ascending), by id; then by the time of their check-in (ties by id)
    const now = (await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?page_size=100&has_checkin=true`)).body
      .results as {
      id: number;
      checkins: { datetime: string }[];
    }[];
    const checked = now
      .map((t) => ({ id: t.id, at: Date.parse(t.checkins.at(-1)!.datetime) }))
      .sort((a, b) => a.at - b.at || a.id - b.id)
      .map((t) => t.id);
    expect(checked).toHaveLength(5);
    const asc = await all("ordering=last_checked_in");
    expect(asc.slice(9)).toEqual(checked);
    expect(asc.slice(0, 9)).toEqual([...asc.slice(0, 9)].sort((a, b) => a - b));
    const desc = await all("ordering=-last_checked_in");
    expect(desc.slice(0, 5)).toEqual(
      now
        .map((t) => ({ id: t.id, at: Date.parse(t.checkins.at(-1)!.datetime) }))
        .sort((a, b) => b.at - a.at || b.id - a.id)
        .map((t) => t.id),
    );
    expect(desc.slice(5)).toEqual([...asc.slice(0, 9)].reverse());
    // the orders list: every documented ordering, paged (the later pages picked from the other end)
    const orders = (await v.client.get(`${v.path}/orders/?page_size=100`)).body.results as {
      code: string;
      status: string;
    }[];
    expect(
      (await v.client.post(`${v.path}/orders/${orders[2]!.code}/mark_canceled/`, { send_email: false })).status,
    ).toBe(200);
    expect(
      (await v.client.post(`${v.path}/orders/${orders[5]!.code}/mark_canceled/`, { send_email: false })).status,
    ).toBe(200);
    for (const f of [
      "",
      "datetime",
      "-datetime",
      "code",
      "-code",
      "status",
      "-status",
      "last_modified",
      "-last_modified",
      "cancellation_date",
      "-cancellation_date",
    ]) {
      const q = f ? `ordering=${f}` : "";
      const whole = (
        (await v.client.get(`${v.path}/orders/?page_size=100&${q}`)).body.results as { code: string }[]
      ).map((o) => o.code);
      expect(new Set(whole).size, f).toBe(7);
      const pagedOrders: string[] = [];
      for (let page = 1; page <= 4; page++) {
        const res = await v.client.get(`${v.path}/orders/?page_size=2&page=${page}&${q}`);
        expect(res.status, f).toBe(200);
        expect(res.body.count, f).toBe(7);
        pagedOrders.push(...(res.body.results as { code: string }[]).map((o) => o.code));
      }
      expect(pagedOrders, f).toEqual(whole);
      expect((await v.client.get(`${v.path}/orders/?page_size=2&page=5&${q}`)).status, f).toBe(404);
    }
  });

  it("a list of paid orders and a list with pending ones page through their own tickets in the default ordering, as their setting says when asked", async () => {
    const v = await venue();
    const paid = await v.list();
    const box = await v.list({ name: "Box office", include_pending: true });
    const names = ["Cleo", "", "anna", "Bob", "", "Dora", "anna", "Emil"];
    const expected: Record<string, number[]> = { p: [], n: [] };
    for (const [i, name] of names.entries()) {
      const status = i % 3 === 1 ? "n" : "p";
      const made = await v.order({
        status,
        positions: [
          { item: v.ticket.id, ...(name ? { attendee_name_parts: { given_name: name } } : {}) },
          { item: v.ticket.id },
        ],
      });
      expected[status]!.push(...(made.positions as { id: number }[]).map((t) => t.id));
    }
    const whole = async (l: { id: number }) => {
      const res = await v.client.get(`${v.path}/checkinlists/${l.id}/positions/?page_size=100`);
      expect(res.status).toBe(200);
      return res.body.results.map((t: { id: number }) => t.id) as number[];
    };
    // the list's tickets, and checkinrpc/search on the list (its setting read in the statement; every order's e-mail has the term)
    const pagedFrom = async (base: string, total: number) => {
      const url = `${base}${base.includes("?") ? "&" : "?"}`;
      const out: number[] = [];
      for (let page = 1; page <= Math.ceil(total / 3); page++) {
        const res = await v.client.get(`${url}page_size=3&page=${page}`);
        expect(res.status).toBe(200);
        expect(res.body.count).toBe(total);
        out.push(...res.body.results.map((t: { id: number }) => t.id));
      }
      expect((await v.client.get(`${url}page_size=3&page=${Math.ceil(total / 3) + 1}`)).status).toBe(404);
      return out;
    };
    const paged = async (l: { id: number }, total: number) => {
      const listed = await pagedFrom(`${v.path}/checkinlists/${l.id}/positions/`, total);
      expect(
        await pagedFrom(`/api/v1/organizers/${v.orgSlug}/checkinrpc/search/?list=${l.id}&search=example`, total),
      ).toEqual(listed);
      return listed;
    };
    const paidTickets = await whole(paid);
    const allTickets = await whole(box);
    expect([...paidTickets].sort((a, b) => a - b)).toEqual(expected.p!.sort((a, b) => a - b));
    expect([...allTickets].sort((a, b) => a - b)).toEqual([...expected.p!, ...expected.n!].sort((a, b) => a - b));
    // the default ordering: named tickets first, by name
    expect(allTickets.filter((id) => paidTickets.includes(id))).toEqual(paidTickets);
    expect(await paged(paid, 10)).toEqual(paidTickets);
    expect(await paged(box, 16)).toEqual(allTickets);
    // the setting is read with the tickets: changing it changes the next page at once
    expect((await v.client.patch(`${v.path}/checkinlists/${box.id}/`, { include_pending: false })).status).toBe(200);
    expect((await v.client.patch(`${v.path}/checkinlists/${paid.id}/`, { include_pending: true })).status).toBe(200);
    expect(await paged(box, 10)).toEqual(paidTickets);
    expect(await paged(paid, 16)).toEqual(allTickets);
  });

  it("a page whose one statement would bind more than D1's 100 parameters is read in two, with the same rows and total", async () => {
    const v = await venue();
    for (let i = 0; i < 5; i++) await v.order({ email: `p${i}@example.org` });
    const all = await listOrders(db(), v.eventId, {}, { page: 1, pageSize: 100 });
    expect(all.count).toBe(5);
    // 45 bound parameters in the conditions: three times that in one statement is over the limit
    const many = sql`"orders"."email" NOT IN (${sql.join(
      Array.from({ length: 45 }, (_, i) => sql`${`nobody${i}@example.org`}`),
      sql`, `,
    )})`;
    const filter = { extra: { conditions: [many], byIds: false } };
    for (const page of [1, 2, 3]) {
      const found = await listOrders(db(), v.eventId, filter, { page, pageSize: 2 });
      expect(found.count).toBe(5);
      expect(found.rows.map((o) => o.order.code)).toEqual(
        all.rows.slice((page - 1) * 2, page * 2).map((o) => o.order.code),
      );
      expect(found.rows).toHaveLength(page === 3 ? 1 : 2);
    }
  });

  it("a ticket's copy of its order's status follows every status change, and the lists with it", async () => {
    const v = await venue();
    const list = await v.list();
    const box = await v.list({ name: "Box office", include_pending: true });
    const tickets = async (l: { id: number }) =>
      (
        (await v.client.get(`${v.path}/checkinlists/${l.id}/positions/?page_size=100`)).body.results as {
          order: string;
        }[]
      )
        .map((t) => t.order)
        .sort();
    const copies = async () =>
      db()
        .select({ code: orders.code, status: orders.status, copy: orderPositions.orderStatus })
        .from(orderPositions)
        .innerJoin(orders, eq(orders.id, orderPositions.orderId))
        .where(eq(orders.eventId, v.eventId));
    const a = await v.order({ status: "n", positions: [{ item: v.ticket.id }, { item: v.ticket.id }] });
    const b = await v.order({ status: "n" });
    const c = await v.order();
    expect(await tickets(list)).toEqual([c.code]);
    expect(await tickets(box)).toEqual([a.code, a.code, b.code, c.code].sort());
    expect((await v.client.post(`${v.path}/orders/${a.code}/mark_paid/`, {})).status).toBe(200);
    expect((await v.client.post(`${v.path}/orders/${b.code}/mark_expired/`, {})).status).toBe(200);
    expect((await v.client.post(`${v.path}/orders/${c.code}/mark_canceled/`, {})).status).toBe(200);
    expect(await tickets(list)).toEqual([a.code, a.code]);
    expect(await tickets(box)).toEqual([a.code, a.code]);
    expect((await v.client.post(`${v.path}/orders/${b.code}/mark_paid/`, {})).status).toBe(200);
    expect(await tickets(list)).toEqual([a.code, a.code, b.code].sort());
    const rows = await copies();
    expect(rows).toHaveLength(4);
    for (const r of rows) expect(r.copy, r.code).toBe(r.status);
    expect(rows.map((r) => r.status).sort()).toEqual(["c", "p", "p", "p"]);
    // a list's counts come from the copy too
    const detail = (await v.client.get(`${v.path}/checkinlists/${list.id}/`)).body;
    expect(detail.position_count).toBe(3);
    expect(
      (
        await db().all<{ n: number }>(
          sql`SELECT count(*) AS n FROM order_positions WHERE order_status <> (SELECT status FROM orders WHERE id = order_id)`,
        )
      )[0]!.n,
    ).toBe(0);
  });
});
