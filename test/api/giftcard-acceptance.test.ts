/**
 * Acceptance of gift cards across organizers (api/giftcard-acceptance.ts): the issuer invites,
 * the acceptor accepts, then reads and uses the issuer's cards with `include_accepted`; either
 * side ends it.
 */
import { describe, expect, it } from "vitest";
import { seedOrganizer, seedTeam } from "../harness";
import { cardsOf, cardTransactions, createCard, seedAcceptance } from "../helpers/customers";

describe("gift cards: acceptance across organizers", () => {
  it("invite, accept, use with include_accepted, and remove", async () => {
    const issuer = await seedOrganizer();
    const acceptor = await seedOrganizer();
    const card = await createCard(issuer, { value: "30.00" });
    const acceptorList = (q = "") => acceptor.client.get(`${cardsOf(acceptor)}/${q}`);

    // not accepted yet: invisible even with include_accepted
    expect((await acceptorList("?include_accepted=true")).body.count).toBe(0);
    expect((await acceptor.client.get(`${cardsOf(acceptor)}/${card.id}/?include_accepted=true`)).status).toBe(404);

    const invite = await issuer.client.post(`/api/v1/organizers/${issuer.slug}/giftcard_acceptors/`, {
      acceptor: acceptor.slug,
    });
    expect(invite.status).toBe(201);
    expect(invite.body).toEqual({ acceptor: acceptor.slug, active: false });
    expect((await issuer.client.get(`/api/v1/organizers/${issuer.slug}/giftcard_acceptors/`)).body).toEqual({
      count: 1,
      next: null,
      previous: null,
      results: [{ acceptor: acceptor.slug, active: false }],
    });
    expect((await acceptor.client.get(`/api/v1/organizers/${acceptor.slug}/giftcard_issuers/`)).body.results).toEqual([
      { issuer: issuer.slug, active: false },
    ]);
    // an invitation alone does not make the cards accepted
    expect((await acceptorList("?include_accepted=true")).body.count).toBe(0);

    const accept = await acceptor.client.post(
      `/api/v1/organizers/${acceptor.slug}/giftcard_issuers/${issuer.slug}/accept/`,
    );
    expect(accept.status).toBe(200);
    expect(accept.body).toEqual({ issuer: issuer.slug, active: true });
    expect((await issuer.client.get(`/api/v1/organizers/${issuer.slug}/giftcard_acceptors/`)).body.results).toEqual([
      { acceptor: acceptor.slug, active: true },
    ]);

    const own = await createCard(acceptor);
    expect((await acceptorList()).body.results).toEqual([own]);
    expect((await acceptorList("?include_accepted=true")).body.results.map((c: { id: number }) => c.id)).toEqual([
      card.id,
      own.id,
    ]);
    expect((await acceptorList(`?include_accepted=true&secret=${card.secret}`)).body.results).toEqual([card]);
    expect((await acceptor.client.get(`${cardsOf(acceptor)}/${card.id}/`)).status).toBe(404);
    expect((await acceptor.client.get(`${cardsOf(acceptor)}/${card.id}/?include_accepted=true`)).body).toEqual(card);

    const used = await acceptor.client.post(`${cardsOf(acceptor)}/${card.id}/transact/?include_accepted=true`, {
      value: "-12.50",
    });
    expect(used.status).toBe(200);
    expect(used.body.value).toBe("17.50");
    const tx = await cardTransactions(card.id);
    expect(tx.map((t) => [t.value, t.acceptorId])).toEqual([
      [3000, issuer.id],
      [-1250, acceptor.id],
    ]);
    expect(
      (await acceptor.client.get(`${cardsOf(acceptor)}/${card.id}/transactions/?include_accepted=true`)).body.count,
    ).toBe(2);
    expect((await acceptor.client.post(`${cardsOf(acceptor)}/${card.id}/transact/`, { value: "-1.00" })).status).toBe(
      404,
    );
    const edit = await acceptor.client.patch(`${cardsOf(acceptor)}/${card.id}/?include_accepted=true`, {
      conditions: "x",
    });
    expect(edit.status).toBe(403);
    // the issuer's own view is unchanged by acceptance
    expect(
      (await issuer.client.get(`${cardsOf(issuer)}/?include_accepted=true`)).body.results.map(
        (c: { id: number }) => c.id,
      ),
    ).toEqual([card.id]);

    const stop = await acceptor.client.delete(`/api/v1/organizers/${acceptor.slug}/giftcard_issuers/${issuer.slug}/`);
    expect(stop.status).toBe(204);
    expect((await acceptorList("?include_accepted=true")).body.results).toEqual([own]);
    expect(
      (
        await acceptor.client.post(`${cardsOf(acceptor)}/${card.id}/transact/?include_accepted=true`, {
          value: "-1.00",
        })
      ).status,
    ).toBe(404);
  });

  it("lets the issuer withdraw an acceptance", async () => {
    const issuer = await seedOrganizer();
    const acceptor = await seedOrganizer();
    const card = await createCard(issuer);
    await seedAcceptance(issuer.id, acceptor.id, true);
    expect((await acceptor.client.get(`${cardsOf(acceptor)}/${card.id}/?include_accepted=true`)).status).toBe(200);
    const res = await issuer.client.delete(`/api/v1/organizers/${issuer.slug}/giftcard_acceptors/${acceptor.slug}/`);
    expect(res.status).toBe(204);
    expect((await acceptor.client.get(`${cardsOf(acceptor)}/${card.id}/?include_accepted=true`)).status).toBe(404);
    expect(
      (await issuer.client.delete(`/api/v1/organizers/${issuer.slug}/giftcard_acceptors/${acceptor.slug}/`)).status,
    ).toBe(404);
  });

  it("validates invitations and answers 404 for missing connections", async () => {
    const issuer = await seedOrganizer();
    const acceptor = await seedOrganizer();
    const url = `/api/v1/organizers/${issuer.slug}/giftcard_acceptors/`;
    const cannot = { acceptor: ["The selected organizer does not exist or cannot be invited."] };
    expect(await issuer.client.post(url, { acceptor: "no-such-organizer" }).then((r) => [r.status, r.body])).toEqual([
      400,
      cannot,
    ]);
    expect(await issuer.client.post(url, { acceptor: issuer.slug }).then((r) => [r.status, r.body])).toEqual([
      400,
      cannot,
    ]);
    expect(await issuer.client.post(url, {}).then((r) => [r.status, r.body])).toEqual([
      400,
      { acceptor: ["This field is required."] },
    ]);
    expect((await issuer.client.post(url, { acceptor: acceptor.slug })).status).toBe(201);
    const again = await issuer.client.post(url, { acceptor: acceptor.slug });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ acceptor: ["This organizer has already been invited to accept your gift cards."] });
    // the issuer cannot accept its own invitation on the acceptor's behalf, nor reach the acceptor's side
    expect(
      (await issuer.client.post(`/api/v1/organizers/${issuer.slug}/giftcard_issuers/${acceptor.slug}/accept/`)).status,
    ).toBe(404);
    expect(
      (await issuer.client.post(`/api/v1/organizers/${acceptor.slug}/giftcard_issuers/${issuer.slug}/accept/`)).status,
    ).toBe(403);
    expect(
      (await acceptor.client.post(`/api/v1/organizers/${acceptor.slug}/giftcard_issuers/unknown-org/accept/`)).status,
    ).toBe(404);
    expect(
      (await acceptor.client.delete(`/api/v1/organizers/${acceptor.slug}/giftcard_issuers/unknown-org/`)).status,
    ).toBe(404);
    const team = await seedTeam(issuer.id, { permissions: ["can_manage_gift_cards"] });
    expect((await team.client.post(url, { acceptor: acceptor.slug })).status).toBe(403);
  });
});
