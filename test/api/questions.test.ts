import { describe, expect, it } from "vitest";
import { optionResponse, questionResponse } from "../../src/api/questions";
import { seedEventRow, seedOrganizer } from "../harness";
import {
  GENERATED_IDENTIFIER as GENERATED,
  OLD_HTTP_DATE,
  OLD_MS,
  SHIRT_QUESTION as SHIRT,
  seedCatalogEvent,
  seedItem,
  seedItems,
  setStamp,
} from "../helpers/catalog";

describe("questions", () => {
  it("creates a choice question with options sent as answers only; ids, positions and identifiers are generated", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const a = await seedItem(event.id);
    const b = await seedItem(event.id);
    const res = await client.post(`${path}/questions/`, {
      ...SHIRT,
      help_text: { en: "Choose your size" },
      required: true,
      items: [b.id, a.id],
      position: 1,
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      question: { en: "T-Shirt size" },
      help_text: { en: "Choose your size" },
      type: "C",
      required: true,
      items: [a.id, b.id].sort((x, y) => x - y),
      position: 1,
      identifier: expect.stringMatching(GENERATED),
      ask_during_checkin: false,
      show_during_checkin: false,
      hidden: false,
      print_on_invoice: false,
      options: [
        { id: expect.any(Number), identifier: expect.stringMatching(GENERATED), position: 1, answer: { en: "S" } },
        { id: expect.any(Number), identifier: expect.stringMatching(GENERATED), position: 2, answer: { en: "M" } },
        { id: expect.any(Number), identifier: expect.stringMatching(GENERATED), position: 3, answer: { en: "L" } },
      ],
      valid_number_min: null,
      valid_number_max: null,
      valid_date_min: null,
      valid_date_max: null,
      valid_datetime_min: null,
      valid_datetime_max: null,
      valid_file_portrait: false,
      dependency_question: null,
      dependency_values: [],
      dependency_value: null,
    });
    const ids = new Set(res.body.options.map((o: { identifier: string }) => o.identifier));
    expect(ids.size).toBe(3);
    expect((await client.get(`${path}/questions/${res.body.id}/`)).body).toEqual(res.body);
    // the response schemas describe the wire exactly (no field more, none less)
    expect(questionResponse.strict().parse(res.body)).toEqual(res.body);
    expect(optionResponse.strict().parse(res.body.options[0])).toEqual(res.body.options[0]);
  });

  it("keeps identifiers unique when many questions and options take the same one at once (400, never 500)", async () => {
    const { client, path } = await seedCatalogEvent();
    const questions = await Promise.all(
      Array.from({ length: 6 }, () =>
        client.post(`${path}/questions/`, { question: { en: "q" }, type: "S", identifier: "SAME" }),
      ),
    );
    expect(questions.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
    for (const r of questions.filter((r) => r.status === 400))
      expect(r.body).toEqual({ identifier: ["This identifier is already used for a different question."] });
    const { body: q } = await client.post(`${path}/questions/`, { question: { en: "c" }, type: "C" });
    const options = await Promise.all(
      Array.from({ length: 6 }, () =>
        client.post(`${path}/questions/${q.id}/options/`, { answer: { en: "o" }, identifier: "OPT" }),
      ),
    );
    expect(options.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
    for (const r of options.filter((r) => r.status === 400))
      expect(r.body).toEqual({ identifier: ['The identifier "OPT" is already used for a different option.'] });
    expect((await client.get(`${path}/questions/?identifier=SAME`)).body.count).toBe(1);
    expect((await client.get(`${path}/questions/${q.id}/options/`)).body.count).toBe(1);
  });

  it("keeps identifiers unique in any case when questions are created and renamed at once (one wins, the others a 400)", async () => {
    const { client, path } = await seedCatalogEvent();
    const spellings = ["Diet", "DIET", "diet", "dIET"];
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        client.post(`${path}/questions/`, { question: { en: "q" }, type: "S", identifier: spellings[i % 4] }),
      ),
    );
    expect(created.map((r) => r.status).sort()).toEqual([201, ...Array(11).fill(400)]);
    for (const r of created.filter((r) => r.status === 400))
      expect(r.body).toEqual({ identifier: ["This identifier is already used for a different question."] });
    const others = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        client.post(`${path}/questions/`, { question: { en: "r" }, type: "S", identifier: `FROM${i}` }),
      ),
    );
    const renamed = await Promise.all(
      others.map((q, i) => client.patch(`${path}/questions/${q.body.id}/`, { identifier: i % 2 ? "Shirt" : "SHIRT" })),
    );
    expect(renamed.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    const all = (await client.get(`${path}/questions/`)).body.results.map((q: { identifier: string }) =>
      q.identifier.toLowerCase(),
    );
    expect(all.filter((x: string) => x === "diet")).toHaveLength(1);
    expect(all.filter((x: string) => x === "shirt")).toHaveLength(1);
    expect(all).toHaveLength(7);
  });

  it("answers item changes to a question deleted meanwhile with 200 or 404", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const item = await seedItem(event.id);
    const { body: q } = await client.post(`${path}/questions/`, SHIRT);
    const changes = Array.from({ length: 8 }, () => client.patch(`${path}/questions/${q.id}/`, { items: [item.id] }));
    const [deleted, ...changed] = await Promise.all([client.delete(`${path}/questions/${q.id}/`), ...changes]);
    expect(deleted.status).toBe(204);
    for (const r of changed) expect([200, 404]).toContain(r.status);
  });

  it("answers options written while their question is deleted with 201 or 404, never 500", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: q } = await client.post(`${path}/questions/`, SHIRT);
    const writes = Array.from({ length: 8 }, (_, i) =>
      client.post(`${path}/questions/${q.id}/options/`, { answer: { en: `o${i}` } }),
    );
    const [deleted, ...created] = await Promise.all([client.delete(`${path}/questions/${q.id}/`), ...writes]);
    expect(deleted.status).toBe(204);
    for (const r of created) expect([201, 404]).toContain(r.status);
    expect((await client.get(`${path}/questions/${q.id}/options/`)).status).toBe(404);
  });

  it("accepts every type code of pretix's questions.rst and nothing else", async () => {
    const { client, path } = await seedCatalogEvent();
    for (const type of ["N", "S", "T", "B", "C", "M", "F", "D", "H", "W", "CC", "TEL"]) {
      const res = await client.post(`${path}/questions/`, { question: { en: type }, type });
      expect(res.status, type).toBe(201);
      expect(res.body.type).toBe(type);
    }
    const bad = await client.post(`${path}/questions/`, { question: { en: "x" }, type: "X" });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body)).toEqual(["type"]);
    const missing = await client.post(`${path}/questions/`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ question: ["This field is required."], type: ["This field is required."] });
  });

  it("takes items of the event only and creates nothing on a bad item", async () => {
    const { client, path, org } = await seedCatalogEvent();
    const other = await seedEventRow(org.id);
    const foreign = await seedItem(other.id);
    const res = await client.post(`${path}/questions/`, { ...SHIRT, items: [foreign.id, 99999999] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      items: [`Invalid pk "${foreign.id}" - object does not exist.`, 'Invalid pk "99999999" - object does not exist.'],
    });
    expect((await client.get(`${path}/questions/`)).body.count).toBe(0);
  });

  it("links more items than one statement may bind (chunked inserts)", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const ids = await seedItems(event.id, 150);
    const res = await client.post(`${path}/questions/`, { question: { en: "Many" }, type: "S", items: ids });
    expect(res.status).toBe(201);
    expect(res.body.items).toEqual([...ids].sort((a, b) => a - b));
    const patched = await client.patch(`${path}/questions/${res.body.id}/`, { items: ids.slice(0, 120) });
    expect(patched.body.items).toHaveLength(120);
  });

  it("keeps identifiers unique per event (case-insensitive) for questions and options", async () => {
    const { client, path, org } = await seedCatalogEvent();
    const first = await client.post(`${path}/questions/`, {
      ...SHIRT,
      identifier: "SIZE",
      options: [{ answer: { en: "S" }, identifier: "size-s" }],
    });
    expect(first.status).toBe(201);
    expect(first.body.identifier).toBe("SIZE");
    expect(first.body.options[0].identifier).toBe("size-s");
    const dup = await client.post(`${path}/questions/`, { question: { en: "again" }, type: "S", identifier: "size" });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ identifier: ["This identifier is already used for a different question."] });
    const badChars = await client.post(`${path}/questions/`, { question: { en: "x" }, type: "S", identifier: "a b" });
    expect(badChars.status).toBe(400);
    expect(badChars.body).toEqual({
      identifier: ["The identifier may only contain letters, numbers, dots, dashes, and underscores."],
    });
    const takenOption = await client.post(`${path}/questions/`, {
      ...SHIRT,
      options: [{ answer: { en: "S" }, identifier: "size-s" }],
    });
    expect(takenOption.status).toBe(400);
    expect(takenOption.body).toEqual({ options: ['The identifier "size-s" is already used for a different option.'] });
    const twice = await client.post(`${path}/questions/`, {
      ...SHIRT,
      options: [
        { answer: { en: "A" }, identifier: "x1" },
        { answer: { en: "B" }, identifier: "x1" },
      ],
    });
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual({ options: ['The identifier "x1" is already used for a different option.'] });
    const noAnswer = await client.post(`${path}/questions/`, { ...SHIRT, options: [{ identifier: "zz" }] });
    expect(noAnswer.status).toBe(400);
    expect(noAnswer.body).toEqual({ options: [{ answer: ["This field is required."] }] });
    expect((await client.get(`${path}/questions/`)).body.count).toBe(1);
    // another event may use the same identifiers
    const other = await seedEventRow(org.id);
    const elsewhere = await client.post(`/api/v1/organizers/${org.slug}/events/${other.slug}/questions/`, {
      ...SHIRT,
      identifier: "SIZE",
      options: [{ answer: { en: "S" }, identifier: "size-s" }],
    });
    expect(elsewhere.status).toBe(201);
  });

  it("lists with the identifier, ask_during_checkin and required filters and id/position ordering", async () => {
    const { client, path } = await seedCatalogEvent();
    const q1 = (
      await client.post(`${path}/questions/`, {
        question: { en: "one" },
        type: "S",
        position: 3,
        identifier: "one",
        required: true,
      })
    ).body;
    const q2 = (
      await client.post(`${path}/questions/`, {
        question: { en: "two" },
        type: "S",
        position: 1,
        identifier: "two",
        ask_during_checkin: true,
      })
    ).body;
    const q3 = (
      await client.post(`${path}/questions/`, {
        question: { en: "three" },
        type: "B",
        position: 2,
        identifier: "three",
      })
    ).body;
    const ids = async (query: string) => {
      const res = await client.get(`${path}/questions/${query}`);
      expect(res.status, query).toBe(200);
      return res.body.results.map((q: { id: number }) => q.id);
    };
    expect(await ids("")).toEqual([q2.id, q3.id, q1.id]);
    expect(await ids("?ordering=id")).toEqual([q1.id, q2.id, q3.id]);
    expect(await ids("?ordering=-id")).toEqual([q3.id, q2.id, q1.id]);
    expect(await ids("?ordering=-position")).toEqual([q1.id, q3.id, q2.id]);
    expect(await ids("?ordering=nonsense")).toEqual([q2.id, q3.id, q1.id]);
    expect(await ids("?identifier=three")).toEqual([q3.id]);
    expect(await ids("?identifier=THREE")).toEqual([]);
    expect(await ids("?ask_during_checkin=true")).toEqual([q2.id]);
    expect(await ids("?ask_during_checkin=false")).toEqual([q3.id, q1.id]);
    expect(await ids("?required=true")).toEqual([q1.id]);
    expect(await ids("?required=false&ordering=id")).toEqual([q2.id, q3.id]);
    const bad = await client.get(`${path}/questions/?required=maybe`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ required: ["Select a valid choice. Use true or false."] });
  });

  it("refuses options on PATCH and PUT (pretix) and leaves the question unchanged", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: q } = await client.post(`${path}/questions/`, SHIRT);
    for (const method of ["patch", "put"] as const) {
      const res = await client[method](`${path}/questions/${q.id}/`, {
        ...SHIRT,
        question: { en: "changed" },
        options: [{ answer: { en: "XL" } }],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        options: ["Updating options via PATCH/PUT is not supported. Please use the dedicated nested endpoint."],
      });
    }
    expect((await client.get(`${path}/questions/${q.id}/`)).body).toEqual(q);
  });

  it("PATCH changes only the sent fields; PUT resets the rest but keeps the identifier and options", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const item = await seedItem(event.id);
    const item2 = await seedItem(event.id);
    const { body: q } = await client.post(`${path}/questions/`, {
      ...SHIRT,
      required: true,
      hidden: true,
      items: [item.id],
      position: 4,
    });
    const patched = await client.patch(`${path}/questions/${q.id}/`, { position: 2, items: [item2.id] });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...q, position: 2, items: [item2.id] });
    const put = await client.put(`${path}/questions/${q.id}/`, { question: { en: "Size" }, type: "M" });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      ...q,
      question: { en: "Size" },
      type: "M",
      required: false,
      hidden: false,
      position: 0,
      items: [],
      help_text: null,
    });
    const blank = await client.patch(`${path}/questions/${q.id}/`, { question: { en: " " } });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ question: ["This field may not be blank."] });
  });

  it("keeps validation ranges to their question types, in order, in their wire formats", async () => {
    const { client, path } = await seedCatalogEvent();
    const num = await client.post(`${path}/questions/`, {
      question: { en: "Age" },
      type: "N",
      valid_number_min: "1.5",
      valid_number_max: 120,
    });
    expect(num.status).toBe(201);
    expect(num.body).toMatchObject({ valid_number_min: "1.500000", valid_number_max: "120.000000" });
    const date = await client.post(`${path}/questions/`, {
      question: { en: "Birthday" },
      type: "D",
      valid_date_min: "1900-01-01",
      valid_date_max: "2020-12-31",
    });
    expect(date.body).toMatchObject({ valid_date_min: "1900-01-01", valid_date_max: "2020-12-31" });
    const dt = await client.post(`${path}/questions/`, {
      question: { en: "Arrival" },
      type: "W",
      valid_datetime_min: "2030-01-01T10:00:00+02:00",
      valid_datetime_max: "2030-01-02T10:00:00Z",
    });
    expect(dt.body).toMatchObject({
      valid_datetime_min: "2030-01-01T08:00:00Z",
      valid_datetime_max: "2030-01-02T10:00:00Z",
    });
    const photo = await client.post(`${path}/questions/`, {
      question: { en: "Photo" },
      type: "F",
      valid_file_portrait: true,
    });
    expect(photo.status).toBe(201);
    expect(photo.body.valid_file_portrait).toBe(true);

    const errors: [unknown, Record<string, string[]>][] = [
      [
        { type: "N", valid_number_min: "10", valid_number_max: "9.99" },
        { valid_number_max: ["The maximum must not be lower than the minimum."] },
      ],
      [
        { type: "N", valid_number_min: "1.1234567" },
        { valid_number_min: ["Ensure that there are no more than 6 decimal places."] },
      ],
      [
        { type: "N", valid_number_max: "12345678901" },
        { valid_number_max: ["Ensure that there are no more than 10 digits before the decimal point."] },
      ],
      [{ type: "N", valid_number_min: "ten" }, { valid_number_min: ["A valid number is required."] }],
      [
        { type: "S", valid_number_min: "1" },
        { valid_number_min: ["Only number questions (type N) can have this limit."] },
      ],
      [
        { type: "D", valid_date_min: "2020-02-02", valid_date_max: "2020-02-01" },
        { valid_date_max: ["The maximum must not be lower than the minimum."] },
      ],
      [
        { type: "W", valid_date_min: "2020-02-02" },
        { valid_date_min: ["Only date questions (type D) can have this limit."] },
      ],
      [
        { type: "D", valid_date_min: "2020-02-30" },
        { valid_date_min: ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."] },
      ],
      [
        { type: "W", valid_datetime_min: "2030-01-02T00:00:00Z", valid_datetime_max: "2030-01-01T00:00:00Z" },
        { valid_datetime_max: ["The maximum must not be lower than the minimum."] },
      ],
      [
        { type: "D", valid_datetime_max: "2030-01-01T00:00:00Z" },
        { valid_datetime_max: ["Only date and time questions (type W) can have this limit."] },
      ],
      [
        { type: "S", valid_file_portrait: true },
        { valid_file_portrait: ["Only file upload questions (type F) can require a portrait photo."] },
      ],
    ];
    for (const [body, expected] of errors) {
      const res = await client.post(`${path}/questions/`, { question: { en: "x" }, ...(body as object) });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(expected);
    }
    // the merged state is checked on PATCH: a number question with limits cannot silently become text
    const change = await client.patch(`${path}/questions/${num.body.id}/`, { type: "S" });
    expect(change.status).toBe(400);
    expect(change.body).toEqual({
      valid_number_min: ["Only number questions (type N) can have this limit."],
      valid_number_max: ["Only number questions (type N) can have this limit."],
    });
    const cleared = await client.patch(`${path}/questions/${num.body.id}/`, {
      type: "S",
      valid_number_min: null,
      valid_number_max: null,
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ type: "S", valid_number_min: null, valid_number_max: null });
  });

  it("stores dependencies on boolean and choice questions, with dependency_value as the old single-value form", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: shirt } = await client.post(`${path}/questions/`, {
      ...SHIRT,
      options: [
        { answer: { en: "S" }, identifier: "S" },
        { answer: { en: "M" }, identifier: "M" },
      ],
    });
    const { body: bool } = await client.post(`${path}/questions/`, { question: { en: "Vegan?" }, type: "B" });
    const multi = await client.post(`${path}/questions/`, {
      question: { en: "Fit" },
      type: "S",
      dependency_question: shirt.id,
      dependency_values: ["S", "M"],
    });
    expect(multi.status).toBe(201);
    expect(multi.body).toMatchObject({
      dependency_question: shirt.id,
      dependency_values: ["S", "M"],
      dependency_value: "S",
    });
    const old = await client.post(`${path}/questions/`, {
      question: { en: "Fit 2" },
      type: "S",
      dependency_question: shirt.id,
      dependency_value: "M",
    });
    expect(old.status).toBe(201);
    expect(old.body).toMatchObject({ dependency_values: ["M"], dependency_value: "M" });
    const both = await client.post(`${path}/questions/`, {
      question: { en: "Fit 3" },
      type: "S",
      dependency_question: shirt.id,
      dependency_value: "S",
      dependency_values: ["M"],
    });
    expect(both.body).toMatchObject({ dependency_values: ["M"], dependency_value: "M" });
    const onBool = await client.post(`${path}/questions/`, {
      question: { en: "Which" },
      type: "S",
      dependency_question: bool.id,
      dependency_value: "true",
    });
    expect(onBool.status).toBe(201);
    expect(onBool.body).toMatchObject({ dependency_values: ["True"], dependency_value: "True" });
    // clearing the old form empties the list
    const cleared = await client.patch(`${path}/questions/${old.body.id}/`, { dependency_value: null });
    expect(cleared.body).toMatchObject({ dependency_values: [], dependency_value: null });
  });

  it("rejects dependencies pretix rejects", async () => {
    const { client, path, org } = await seedCatalogEvent();
    const { body: shirt } = await client.post(`${path}/questions/`, {
      ...SHIRT,
      options: [{ answer: { en: "S" }, identifier: "S" }],
    });
    const { body: text } = await client.post(`${path}/questions/`, { question: { en: "Name" }, type: "S" });
    const { body: atCheckin } = await client.post(`${path}/questions/`, {
      question: { en: "Here?" },
      type: "B",
      ask_during_checkin: true,
    });
    const { body: bool } = await client.post(`${path}/questions/`, { question: { en: "Vegan?" }, type: "B" });
    const other = await seedEventRow(org.id);
    const { body: foreign } = await client.post(`/api/v1/organizers/${org.slug}/events/${other.slug}/questions/`, {
      question: { en: "x" },
      type: "B",
    });
    const cases: [object, Record<string, string[]>][] = [
      [
        { dependency_question: text.id },
        { dependency_question: ["Question dependencies can only be set to boolean or choice questions."] },
      ],
      [
        { dependency_question: foreign.id },
        { dependency_question: [`Invalid pk "${foreign.id}" - object does not exist.`] },
      ],
      [
        { dependency_question: atCheckin.id, dependency_values: ["True"] },
        { dependency_question: ["Question cannot depend on a question asked during check-in."] },
      ],
      [
        { dependency_question: bool.id, dependency_values: ["True"], ask_during_checkin: true },
        { dependency_question: ["Dependencies are not supported during check-in."] },
      ],
      [
        { dependency_question: shirt.id, dependency_values: ["XL"] },
        { dependency_values: [`"XL" is not the identifier of an option of question ${shirt.id}.`] },
      ],
      [
        { dependency_question: bool.id, dependency_values: ["yes"] },
        { dependency_values: ['"yes" is not a valid value for a boolean question. Use "True" or "False".'] },
      ],
    ];
    for (const [body, expected] of cases) {
      const res = await client.post(`${path}/questions/`, { question: { en: "dep" }, type: "S", ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(expected);
    }
    const self = await client.patch(`${path}/questions/${bool.id}/`, { dependency_question: bool.id });
    expect(self.status).toBe(400);
    expect(self.body).toEqual({ dependency_question: ["A question cannot depend on itself."] });
    // bool depends on shirt; shirt depending on bool would close a circle
    expect(
      (await client.patch(`${path}/questions/${bool.id}/`, { dependency_question: shirt.id, dependency_values: ["S"] }))
        .status,
    ).toBe(200);
    const circle = await client.patch(`${path}/questions/${shirt.id}/`, {
      dependency_question: bool.id,
      dependency_values: ["True"],
    });
    expect(circle.status).toBe(400);
    expect(circle.body).toEqual({ dependency_question: ["Circular dependency between questions detected."] });
  });

  it("deletes a question; questions depending on it lose the dependency", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: bool } = await client.post(`${path}/questions/`, { question: { en: "Vegan?" }, type: "B" });
    const { body: dep } = await client.post(`${path}/questions/`, {
      question: { en: "Which" },
      type: "S",
      dependency_question: bool.id,
      dependency_values: ["True"],
    });
    const del = await client.delete(`${path}/questions/${bool.id}/`);
    expect(del.status).toBe(204);
    expect((await client.get(`${path}/questions/${bool.id}/`)).status).toBe(404);
    expect((await client.get(`${path}/questions/${bool.id}/options/`)).status).toBe(404);
    expect((await client.get(`${path}/questions/${dep.id}/`)).body.dependency_question).toBe(null);
    expect((await client.delete(`${path}/questions/${bool.id}/`)).status).toBe(404);
  });

  it("answers the list with Last-Modified and 304 until a question or option changes", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const { body: q } = await client.post(`${path}/questions/`, SHIRT);
    const since = { headers: { "If-Modified-Since": OLD_HTTP_DATE } };
    await setStamp(event.id, "questions", OLD_MS);
    const first = await client.get(`${path}/questions/`);
    expect(first.headers.get("Last-Modified")).toBe(OLD_HTTP_DATE);
    expect((await client.get(`${path}/questions/`, since)).status).toBe(304);
    // a newer client copy is also current
    expect(
      (await client.get(`${path}/questions/`, { headers: { "If-Modified-Since": new Date().toUTCString() } })).status,
    ).toBe(304);

    await client.patch(`${path}/questions/${q.id}/`, { position: 9 });
    expect((await client.get(`${path}/questions/`, since)).status).toBe(200);

    await setStamp(event.id, "questions", OLD_MS);
    await client.post(`${path}/questions/${q.id}/options/`, { answer: { en: "XL" } });
    const afterOption = await client.get(`${path}/questions/`, since);
    expect(afterOption.status).toBe(200);
    expect(afterOption.body.results[0].options).toHaveLength(4);

    await setStamp(event.id, "questions", OLD_MS);
    await client.delete(`${path}/questions/${q.id}/`);
    const afterDelete = await client.get(`${path}/questions/`, since);
    expect(afterDelete.status).toBe(200);
    expect(afterDelete.body.count).toBe(0);
  });

  it("never reaches a question of another event or organizer", async () => {
    const { client, path, org } = await seedCatalogEvent();
    const other = await seedEventRow(org.id);
    const otherPath = `/api/v1/organizers/${org.slug}/events/${other.slug}`;
    const { body: foreign } = await client.post(`${otherPath}/questions/`, SHIRT);
    expect((await client.get(`${path}/questions/${foreign.id}/`)).status).toBe(404);
    expect((await client.patch(`${path}/questions/${foreign.id}/`, { position: 1 })).status).toBe(404);
    expect((await client.delete(`${path}/questions/${foreign.id}/`)).status).toBe(404);
    expect((await client.get(`${path}/questions/${foreign.id}/options/`)).status).toBe(404);
    expect((await client.get(`${path}/questions/${foreign.id}/options/${foreign.options[0].id}/`)).status).toBe(404);
    expect((await client.post(`${path}/questions/${foreign.id}/options/`, { answer: { en: "x" } })).status).toBe(404);
    const stranger = await seedOrganizer();
    expect((await stranger.client.get(`${otherPath}/questions/${foreign.id}/`)).status).toBe(403);
    expect((await client.get(`${otherPath}/questions/${foreign.id}/`)).body.options).toHaveLength(3);
  });
});
