/**
 * What the door sees of a ticket, as pretix's check-in tests hold it (test_checkin.py,
 * test_checkinrpc.py, base/test_checkin.py): questions asked at the door (by option id or
 * identifier, empty answers, numbers, several options, uploaded files), the texts and answers
 * scanners show (`checkin_texts`, `show_during_checkin`), a ticket's add-ons (`expand=addons`)
 * and the name a ticket without one is shown with.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkins } from "../../src/db/schema";
import { db, seedTeam } from "../harness";
import { venue } from "../helpers/checkin";
import { upload } from "../helpers/items";

type Venue = Awaited<ReturnType<typeof venue>>;

/** A choice question asked at the door for the venue's ticket, with options M and L (pretix's fixture). */
async function sizeQuestion(v: Venue, body: Record<string, unknown> = {}) {
  return v.post("/questions/", {
    question: { en: "Size" },
    type: "C",
    required: true,
    items: [v.ticket.id],
    ask_during_checkin: true,
    options: [
      { answer: { en: "M" }, identifier: "SIZE-M" },
      { answer: { en: "L" }, identifier: "SIZE-L" },
    ],
    ...body,
  });
}

const answersOf = async (v: Venue, code: string) =>
  (await v.client.get(`${v.path}/orders/${code}/`)).body.positions[0].answers;

describe("questions at the door", () => {
  it("a choice answered by the option's identifier is kept with its option (test_question_choice_identifier)", async () => {
    const v = await venue();
    const list = await v.list();
    const q = await sizeQuestion(v);
    const pos = await v.sell();
    const first = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(first.status).toBe(400);
    expect(first.body.status).toBe("incomplete");
    // the questions as the question resource shows them
    expect(first.body.questions).toEqual([(await v.client.get(`${v.path}/questions/${q.id}/`)).body]);
    const ok = await v.redeem({ secret: pos.secret, lists: [list.id], answers: { [q.id]: "SIZE-M" } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.status).toBe("ok");
    expect(await answersOf(v, pos.order)).toEqual([
      {
        question: q.id,
        answer: "M",
        question_identifier: q.identifier,
        options: [q.options[0].id],
        option_identifiers: ["SIZE-M"],
      },
    ]);
  });

  it("several options by id or identifier; a number (test_question_multiple_choice, test_question_number)", async () => {
    const v = await venue();
    const list = await v.list();
    const multi = await sizeQuestion(v, { type: "M" });
    const [m, l] = multi.options;
    const a = await v.sell();
    expect((await v.redeem({ secret: a.secret, lists: [list.id] })).body.status).toBe("incomplete");
    expect(
      (await v.redeem({ secret: a.secret, lists: [list.id], answers: { [multi.id]: `${m.id},${l.id}` } })).status,
    ).toBe(201);
    expect(await answersOf(v, a.order)).toEqual([
      expect.objectContaining({ question: multi.id, answer: "M, L", options: [m.id, l.id] }),
    ]);
    const b = await v.sell();
    expect(
      (await v.redeem({ secret: b.secret, lists: [list.id], answers: { [multi.id]: `SIZE-L,${m.id}` } })).status,
    ).toBe(201);
    expect((await answersOf(v, b.order))[0]).toMatchObject({ answer: "L, M", options: [l.id, m.id] });
    // one unknown option among them: no answer
    const c = await v.sell();
    expect(
      (await v.redeem({ secret: c.secret, lists: [list.id], answers: { [multi.id]: `${m.id},SIZE-XL` } })).body.status,
    ).toBe("incomplete");

    const w = await venue();
    const wList = await w.list();
    const number = await w.post("/questions/", {
      question: { en: "Weight" },
      type: "N",
      required: true,
      items: [w.ticket.id],
      ask_during_checkin: true,
    });
    const p = await w.sell();
    const incomplete = await w.redeem({ secret: p.secret, lists: [wList.id] });
    expect(incomplete.body).toMatchObject({ status: "incomplete", questions: [{ id: number.id, type: "N" }] });
    expect((await w.redeem({ secret: p.secret, lists: [wList.id], answers: { [number.id]: "3.24" } })).status).toBe(
      201,
    );
    expect((await answersOf(w, p.order))[0]).toMatchObject({ question: number.id, answer: "3.24", options: [] });
  });

  it("an empty answer: no answer to a required question, an answer to an optional one (test_question_required, test_question_optional)", async () => {
    const v = await venue();
    const list = await v.list();
    const required = await sizeQuestion(v);
    const pos = await v.sell();
    for (const answers of [{}, { [required.id]: "" }]) {
      const r = await v.redeem({ secret: pos.secret, lists: [list.id], answers });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ status: "incomplete", questions: [{ id: required.id }] });
    }

    const w = await venue();
    const wList = await w.list();
    const optional = await sizeQuestion(w, { required: false });
    const p = await w.sell();
    const none = await w.redeem({ secret: p.secret, lists: [wList.id], answers: {} });
    expect(none.body).toMatchObject({ status: "incomplete", questions: [{ id: optional.id, required: false }] });
    const empty = await w.redeem({ secret: p.secret, lists: [wList.id], answers: { [optional.id]: "" } });
    expect(empty.status, JSON.stringify(empty.body)).toBe(201);
    expect(empty.body.status).toBe("ok");
    expect(await answersOf(w, p.order)).toEqual([]);
    // the per-list redeem the same
    const q = await w.sell();
    const url = `${w.path}/checkinlists/${wList.id}/positions/${q.secret}/redeem/`;
    expect((await w.scanner.post(url, { answers: { [optional.id]: "" } })).status).toBe(201);
  });

  it("an optional question answered empty removes the ticket's earlier answer, as pretix does", async () => {
    const v = await venue();
    const list = await v.list({ allow_multiple_entries: true });
    const optional = await sizeQuestion(v, { required: false });
    const pos = await v.sell();
    expect(
      (await v.redeem({ secret: pos.secret, lists: [list.id], answers: { [optional.id]: "SIZE-L" } })).status,
    ).toBe(201);
    expect((await answersOf(v, pos.order)).map((a: { answer: string }) => a.answer)).toEqual(["L"]);
    // answered already: not asked again; answered empty: the answer is gone
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).status).toBe(201);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], answers: { [optional.id]: "" } })).status).toBe(201);
    expect(await answersOf(v, pos.order)).toEqual([]);
  });

  it("a file question takes an upload of the scanner's own, stored and served (test_question_upload)", async () => {
    const v = await venue();
    const list = await v.list();
    const photo = await sizeQuestion(v, { type: "F", options: undefined, question: { en: "Photo" } });
    const pos = await v.sell();
    const ask = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(ask.body).toMatchObject({ status: "incomplete", questions: [{ id: photo.id, type: "F" }] });
    // not an upload, another credential's upload: still unanswered
    expect(
      (await v.redeem({ secret: pos.secret, lists: [list.id], answers: { [photo.id]: "invalid" } })).body.status,
    ).toBe("incomplete");
    const theirs = await upload(v.client, "image/png", "theirs.png");
    expect(
      (await v.redeem({ secret: pos.secret, lists: [list.id], answers: { [photo.id]: theirs } })).body.status,
    ).toBe("incomplete");
    expect(await db().select().from(checkins).where(eq(checkins.positionId, pos.id))).toHaveLength(0);
    const mine = await upload(v.scanner, "image/png", "face.png");
    const ok = await v.redeem({ secret: pos.secret, lists: [list.id], answers: { [photo.id]: mine } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const [answer] = await answersOf(v, pos.order);
    expect(answer).toMatchObject({ question: photo.id, options: [] });
    expect(answer.answer).toMatch(
      new RegExp(`^http://ticketing\\.test/media/events/${v.eventId}/answers/.+/face\\.png$`),
    );
    const served = await v.client.get(answer.answer);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    // the per-list redeem (offline uploads, old servers) takes a file answer too
    const other = await v.sell();
    const pdf = await upload(v.scanner, "application/pdf", "id.pdf");
    const url = `${v.path}/checkinlists/${list.id}/positions/${other.secret}/redeem/`;
    expect((await v.scanner.post(url, { answers: { [photo.id]: pdf } })).status).toBe(201);
    expect((await answersOf(v, other.order))[0].answer).toMatch(/\/id\.pdf$/);
  });

  it("what holds a scan and what does not (base/test_checkin.py: forced, not asked at the door, answered in the order)", async () => {
    const v = await venue();
    const list = await v.list();
    const door = await sizeQuestion(v);
    await v.post("/questions/", {
      question: { en: "Company" },
      type: "S",
      required: true,
      items: [v.ticket.id],
      ask_during_checkin: false,
    });
    // a required question asked when buying only does not hold the scan; the door's question does
    const pos = await v.sell({ positions: [{ item: v.ticket.id, answers: [] }] });
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).body).toMatchObject({
      status: "incomplete",
      questions: [{ id: door.id }],
    });
    // a forced scan passes unanswered questions
    const forced = await v.redeem({ secret: pos.secret, lists: [list.id], force: true });
    expect(forced.status).toBe(201);
    const [row] = await db().select().from(checkins).where(eq(checkins.positionId, pos.id));
    expect(row).toMatchObject({ successful: true, forceSent: true });
    // answered in the order: not asked again
    const answered = await v.sell({
      positions: [{ item: v.ticket.id, answers: [{ question: door.id, answer: "M", options: [door.options[0].id] }] }],
    });
    expect((await v.redeem({ secret: answered.secret, lists: [list.id] })).status).toBe(201);
  });
});

describe("what scanners show: checkin_text, show_during_checkin", () => {
  it("products and variations take checkin_text (default null), questions show_during_checkin (default false)", async () => {
    const v = await venue();
    const plain = await v.item({ name: { en: "Plain" } });
    expect(plain.checkin_text).toBeNull();
    const item = await v.item({
      name: { en: "Festival pass" },
      checkin_text: "Give a wristband",
      has_variations: true,
      variations: [{ value: { en: "VIP" }, checkin_text: "Backstage access" }, { value: { en: "Regular" } }],
    });
    expect(item.checkin_text).toBe("Give a wristband");
    expect(item.variations.map((x: { checkin_text: string | null }) => x.checkin_text)).toEqual([
      "Backstage access",
      null,
    ]);
    const path = `${v.path}/items/${item.id}/`;
    expect((await v.client.get(path)).body.checkin_text).toBe("Give a wristband");
    expect((await v.client.patch(path, { checkin_text: "Two wristbands" })).body.checkin_text).toBe("Two wristbands");
    expect(
      (await v.client.put(path, { name: { en: "Festival pass" }, default_price: "10.00" })).body.checkin_text,
    ).toBe(null);
    const varPath = `${path}variations/${item.variations[1].id}/`;
    expect((await v.client.patch(varPath, { checkin_text: "Show ID" })).body.checkin_text).toBe("Show ID");
    expect((await v.client.post(`${v.path}/items/`, { name: "x", default_price: "1", checkin_text: 5 })).status).toBe(
      400,
    );

    const q = await v.post("/questions/", { question: { en: "Diet" }, type: "S", items: [item.id] });
    expect(q.show_during_checkin).toBe(false);
    const qPath = `${v.path}/questions/${q.id}/`;
    expect((await v.client.patch(qPath, { show_during_checkin: true })).body.show_during_checkin).toBe(true);
    expect((await v.client.get(qPath)).body.show_during_checkin).toBe(true);
    expect((await v.client.put(qPath, { question: { en: "Diet" }, type: "S" })).body.show_during_checkin).toBe(false);
  });

  it("a scan's answer carries the variation's and the product's texts, and the answers' questions say what to show (test_checkin_texts)", async () => {
    const v = await venue();
    const list = await v.list();
    const item = await v.item({
      name: { en: "Festival pass" },
      checkin_text: "A",
      has_variations: true,
      variations: [{ value: { en: "VIP" }, checkin_text: "V" }],
    });
    await v.quota({ size: 10, items: [item.id], variations: [item.variations[0].id] });
    const diet = await v.post("/questions/", {
      question: { en: "Diet" },
      type: "S",
      items: [item.id],
      show_during_checkin: true,
    });
    const pos = await v.sell({
      positions: [
        { item: item.id, variation: item.variations[0].id, answers: [{ question: diet.id, answer: "Vegan" }] },
      ],
    });
    const ok = await v.redeem({ secret: pos.secret, lists: [list.id] }, undefined, "?expand=answers.question");
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.checkin_texts).toEqual(["V", "A"]);
    expect(ok.body.position.answers).toEqual([
      expect.objectContaining({
        answer: "Vegan",
        question: expect.objectContaining({ id: diet.id, show_during_checkin: true, ask_during_checkin: false }),
      }),
    ]);
    // refused scans carry them too; a ticket without texts has none
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).body).toMatchObject({
      reason: "already_redeemed",
      checkin_texts: ["V", "A"],
    });
    const plain = await v.sell();
    expect((await v.redeem({ secret: plain.secret, lists: [list.id] })).body.checkin_texts).toEqual([]);
  });
});

describe("a scanned ticket's add-ons and name", () => {
  it("expand=addons lists the ticket's add-ons, expanded like the ticket (test_addons_expand)", async () => {
    const v = await venue();
    const list = await v.list();
    const workshop = await v.item({ name: { en: "Workshop" } });
    await v.quota({ size: 10, items: [workshop.id] });
    const order = await v.order({
      positions: [
        { item: v.ticket.id, positionid: 1, attendee_name: "Peter" },
        { item: workshop.id, positionid: 2, addon_to: 1 },
        { item: workshop.id, positionid: 3, addon_to: 1, attendee_name: "Mary" },
      ],
    });
    const [base, first, second] = order.positions;
    const ok = await v.redeem({ secret: base.secret, lists: [list.id] }, undefined, "?expand=addons&expand=item");
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.position.item.id).toBe(v.ticket.id);
    expect(ok.body.position.addons).toEqual([
      expect.objectContaining({ id: first.id, addon_to: base.id, attendee_name: "Peter", checkins: [] }),
      expect.objectContaining({ id: second.id, addon_to: base.id, attendee_name: "Mary" }),
    ]);
    expect(ok.body.position.addons[0].item).toEqual((await v.client.get(`${v.path}/items/${workshop.id}/`)).body);
    // without expand=addons: no such field
    const other = await v.order({ positions: [{ item: v.ticket.id }] });
    expect((await v.redeem({ secret: other.positions[0].secret, lists: [list.id] })).body.position).not.toHaveProperty(
      "addons",
    );
  });

  it("a ticket without a name is shown with its parent's or the invoice address's name and name parts (test_name_fallback)", async () => {
    const v = await venue();
    const list = await v.list();
    const order = await v.order({ invoice_address: { name: "Paul" } });
    const pos = order.positions[0];
    const ok = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(ok.status).toBe(201);
    expect(ok.body.position).toMatchObject({ attendee_name: "Paul", attendee_name_parts: { _legacy: "Paul" } });
    const listed = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/${pos.id}/`);
    expect(listed.body).toMatchObject({ attendee_name: "Paul", attendee_name_parts: { _legacy: "Paul" } });

    // an add-on without a name: the parent's name and parts (before the invoice address's)
    const workshop = await v.item({ name: { en: "Workshop" } });
    await v.quota({ size: 10, items: [workshop.id] });
    const withAddon = await v.order({
      invoice_address: { name: "Invoice Person" },
      positions: [
        { item: v.ticket.id, positionid: 1, attendee_name: "Peter" },
        { item: workshop.id, positionid: 2, addon_to: 1 },
      ],
    });
    const [parent, addon] = withAddon.positions;
    expect(addon.attendee_name_parts).toEqual({});
    const shown = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/${addon.id}/`);
    expect(shown.body).toMatchObject({ attendee_name: "Peter" });
    expect(shown.body.attendee_name_parts).toEqual(parent.attendee_name_parts);
    expect(parent.attendee_name_parts).not.toEqual({});
    const page = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?order=${withAddon.code}`);
    expect(page.body.results.map((p: { attendee_name_parts: unknown }) => p.attendee_name_parts)).toEqual([
      parent.attendee_name_parts,
      parent.attendee_name_parts,
    ]);
  });
});

describe("a team allowed to check in only (test_checkin_only_permission)", () => {
  it("scans and searches, but a search term under 3 characters finds nothing", async () => {
    const v = await venue();
    const list = await v.list({ allow_multiple_entries: true });
    const pos = await v.sell({ email: "dummy@dummy.test" });
    const checkin = (await seedTeam(v.org.id, { permissions: ["can_checkin_orders"] })).client;
    const org = `/api/v1/organizers/${v.orgSlug}`;
    const search = (term: string) => checkin.get(`${org}/checkinrpc/search/?list=${list.id}&search=${term}`);
    expect((await v.client.get(`${org}/checkinrpc/search/?list=${list.id}&search=du`)).body.count).toBe(1);
    const short = await search("du");
    expect(short.status).toBe(200);
    expect(short.body.count).toBe(0);
    expect((await search("dum")).body.count).toBe(1);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] }, checkin)).status).toBe(201);
    // the list's own tickets: the same rule
    const tickets = (q: string) => checkin.get(`${v.path}/checkinlists/${list.id}/positions/${q}`);
    expect((await tickets("")).body.count).toBe(0);
    expect((await tickets("?search=dummy")).body.count).toBe(1);
    expect((await checkin.get(`${v.path}/checkinlists/${list.id}/positions/${pos.id}/`)).status).toBe(200);
    expect((await checkin.post(`${v.path}/checkinlists/${list.id}/positions/${pos.secret}/redeem/`, {})).status).toBe(
      201,
    );
    expect((await checkin.get(`${v.path}/checkinlists/${list.id}/status/`)).body.checkin_count).toBe(1);
    // but no orders
    expect((await checkin.get(`${v.path}/orders/`)).status).toBe(403);
  });
});
