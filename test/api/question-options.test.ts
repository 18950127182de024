/**
 * Options of choice questions (pretix docs question_options.rst; api/question-options.ts): the
 * nested endpoints under a question, identifiers unique within the event, an option reached only
 * through its own question.
 */
import { describe, expect, it } from "vitest";
import { GENERATED_IDENTIFIER as GENERATED, SHIRT_QUESTION as SHIRT, seedCatalogEvent } from "../helpers/catalog";

describe("question options", () => {
  it("lists, reads, creates, changes and deletes options of a question", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: q } = await client.post(`${path}/questions/`, SHIRT);
    const base = `${path}/questions/${q.id}/options`;
    const list = await client.get(`${base}/`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ count: 3, next: null, previous: null, results: q.options });
    expect((await client.get(`${base}/${q.options[1].id}/`)).body).toEqual(q.options[1]);

    const created = await client.post(`${base}/`, { answer: { en: "XL" } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      identifier: expect.stringMatching(GENERATED),
      position: 4,
      answer: { en: "XL" },
    });
    const given = await client.post(`${base}/`, { answer: { en: "XS" }, identifier: "XS", position: 0 });
    expect(given.body).toMatchObject({ identifier: "XS", position: 0 });
    expect((await client.get(`${base}/`)).body.results.map((o: { identifier: string }) => o.identifier)[0]).toBe("XS");

    const patched = await client.patch(`${base}/${created.body.id}/`, { identifier: "XL", position: 7 });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, identifier: "XL", position: 7 });
    const put = await client.put(`${base}/${created.body.id}/`, { answer: { en: "Extra large" } });
    expect(put.body).toEqual({ id: created.body.id, identifier: "XL", position: 0, answer: { en: "Extra large" } });

    const del = await client.delete(`${base}/${created.body.id}/`);
    expect(del.status).toBe(204);
    expect((await client.get(`${base}/${created.body.id}/`)).status).toBe(404);
    expect((await client.get(`${path}/questions/${q.id}/`)).body.options).toHaveLength(4);
  });

  it("validates options and keeps their identifiers unique in the event", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: q } = await client.post(`${path}/questions/`, {
      ...SHIRT,
      options: [{ answer: { en: "S" }, identifier: "S" }],
    });
    const { body: q2 } = await client.post(`${path}/questions/`, {
      question: { en: "Other" },
      type: "C",
      options: [{ answer: { en: "A" }, identifier: "A" }],
    });
    const base = `${path}/questions/${q.id}/options`;
    const noAnswer = await client.post(`${base}/`, {});
    expect(noAnswer.status).toBe(400);
    expect(noAnswer.body).toEqual({ answer: ["This field is required."] });
    const taken = await client.post(`${base}/`, { answer: { en: "A" }, identifier: "A" });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({ identifier: ['The identifier "A" is already used for a different option.'] });
    const renamed = await client.patch(`${base}/${q.options[0].id}/`, { identifier: "A" });
    expect(renamed.status).toBe(400);
    expect((await client.patch(`${base}/${q.options[0].id}/`, { identifier: "S" })).status).toBe(200);
    expect((await client.patch(`${base}/${q.options[0].id}/`, { position: -1 })).status).toBe(400);
    // an option is reached only through its own question
    expect((await client.get(`${path}/questions/${q2.id}/options/${q.options[0].id}/`)).status).toBe(404);
    expect((await client.delete(`${path}/questions/${q2.id}/options/${q.options[0].id}/`)).status).toBe(404);
    expect((await client.get(`${path}/questions/999999/options/`)).status).toBe(404);
    expect((await client.get(`${base}/`)).body.count).toBe(1);
  });
});
