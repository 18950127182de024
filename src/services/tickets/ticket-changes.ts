/**
 * Changing tickets without changing what was sold (pretix docs orders.rst): new secrets for an
 * order or one ticket (`regenerate_secrets`, the re-issue of a ticket), blocking and unblocking
 * a ticket (`add_block`, `remove_block`), and the new secrets a cancellation gives tickets with
 * signed secrets. The event object decides scans, so every such change goes through it
 * (`changeTickets`): from the moment it answers, no gate admits an old secret or a blocked
 * ticket; revoked and blocked secrets reach offline scanners through their lists.
 */
import { z } from "zod";
import { findOrder, findOrderOfPosition, type OrderRecord, type PositionJson } from "../../db/orders";
import { secretGeneratorRows, type TicketChange } from "../../db/ticket-secrets";
import { withEventObject } from "../../objects/client";
import type { EventContext } from "../context";
import { readSettled } from "../orders/settled-reads";
import { changedMeanwhile, notFound } from "../../lib/failure";
import { newOrderSecret } from "../../rules/orders";
import { effectiveSettings } from "../events/settings";
import { EVENT_SETTINGS } from "../events/settings-keys";
import { assignSecret, type SecretGenerator, secretGenerator, SIG1, type TicketSecretFacts } from "./ticket-secrets";

/** The generator of the context's event (its settings and key read in one round trip). */
export async function eventSecretGenerator(ctx: EventContext): Promise<SecretGenerator> {
  const rows = await secretGeneratorRows(ctx.db, ctx.organizer.id, ctx.event.id, SIG1);
  const settings = effectiveSettings(rows.event, EVENT_SETTINGS, effectiveSettings(rows.organizer));
  return secretGenerator(ctx.env, ctx.db, ctx.event.id, settings, ctx.now, rows.key);
}

export function secretFacts(p: PositionJson): TicketSecretFacts {
  return {
    itemId: p.item,
    variationId: p.variation,
    subeventId: p.subevent,
    validFrom: p.valid_from,
    validUntil: p.valid_until,
  };
}

const isBlocked = (blocked: string[] | null) => (blocked?.length ?? 0) > 0;

/** A position's secret change as pretix's `assign_ticket_secret` decides it (null: the secret stays). */
async function secretChange(
  gen: SecretGenerator,
  p: PositionJson,
  opts: { forceInvalidate?: boolean; forceIfRevocationList?: boolean },
): Promise<TicketChange | null> {
  const a = await assignSecret(gen, secretFacts(p), p.secret, opts);
  if (!a.changed) return null;
  return {
    positionId: p.id,
    secret: p.secret,
    newSecret: a.secret,
    revoke: a.revoke,
    blockedAfter: isBlocked(p.blocked),
  };
}

/**
 * The tickets' changes of a cancellation (pretix `_cancel_order`): with a generator that keeps a
 * revocation list, every ticket of the order gets a new secret and the old one is revoked (an
 * offline scanner must refuse it); random secrets stay.
 */
export async function cancellationChanges(ctx: EventContext, r: OrderRecord): Promise<TicketChange[]> {
  const gen = await eventSecretGenerator(ctx);
  if (!gen.useRevocationList) return [];
  const changes = await Promise.all(
    r.positions.filter((p) => !p.canceled).map((p) => secretChange(gen, p, { forceIfRevocationList: true })),
  );
  return changes.filter((c): c is TicketChange => c !== null);
}

async function change(
  ctx: EventContext,
  r: OrderRecord,
  changes: TicketChange[],
  orderSecret: string | null,
): Promise<void> {
  const result = await withEventObject<{ ok: boolean }>(ctx.env, ctx.event, (s, call) =>
    s.changeTickets(call, { orderId: r.order.id, code: r.order.code, changes, orderSecret }),
  );
  if (!result.ok) throw changedMeanwhile("A ticket of this order changed meanwhile; read it again.");
}

/**
 * `orders/{code}/regenerate_secrets/`: new secrets for the order (its link) and all its tickets
 * (pretix: `all_positions`, canceled ones included); the old ticket secrets are revoked when the
 * event's generator keeps a revocation list. Returns the order afterwards.
 */
export async function regenerateOrderSecrets(ctx: EventContext, code: string): Promise<OrderRecord> {
  const r = await readSettled(
    ctx,
    [ctx.event],
    (db) => findOrder(db, ctx.event.id, code),
    (x) => x !== undefined,
  );
  if (!r) throw notFound();
  const gen = await eventSecretGenerator(ctx);
  const changes = (await Promise.all(r.positions.map((p) => secretChange(gen, p, { forceInvalidate: true })))).filter(
    (c): c is TicketChange => c !== null,
  );
  await change(ctx, r, changes, newOrderSecret());
  return (await findOrder(ctx.db, ctx.event.id, code))!;
}

/** An order position of the context's event with its order (pretix `orderpositions/{id}`: canceled ones only when asked). */
export async function loadPosition(
  ctx: Pick<EventContext, "db" | "event" | "env">,
  id: number,
  includeCanceled = false,
): Promise<{ record: OrderRecord; position: PositionJson }> {
  // one the event's object answered moments ago is found too (settled-reads.ts)
  const record = await readSettled(
    ctx,
    [ctx.event],
    (db) => findOrderOfPosition(db, ctx.event.id, id),
    (x) => x !== undefined,
  );
  const position = record?.positions.find((p) => p.id === id);
  if (!record || !position || (position.canceled && !includeCanceled)) throw notFound();
  return { record, position };
}

/** `orderpositions/{id}/regenerate_secrets/`: a new secret for one ticket (the re-issue); the old one revoked as above. */
export async function regeneratePositionSecret(
  ctx: EventContext,
  id: number,
): Promise<{ record: OrderRecord; position: PositionJson }> {
  const { record, position } = await loadPosition(ctx, id);
  const gen = await eventSecretGenerator(ctx);
  const c = await secretChange(gen, position, { forceInvalidate: true });
  await change(ctx, record, c ? [c] : [], null);
  return loadPosition(ctx, id);
}

/** Body of `add_block` / `remove_block`: pretix's block names, `admin` or `api:` and letters, digits, dots, underscores. */
export const blockInput = z.object({
  name: z.string().regex(/^(admin|api:[A-Za-z0-9._]+)$/, {
    message: 'A block name is "admin" or starts with "api:" followed by letters, digits, dots or underscores.',
  }),
});
export type BlockInput = z.output<typeof blockInput>;

/**
 * `add_block` / `remove_block`: the ticket may not be used while it has a block (scans answer
 * `blocked`; forced scans pass); its secret is on the blocked list while blocked, and marked
 * unblocked there when the last block goes. Returns the position afterwards.
 */
export async function changeBlock(
  ctx: EventContext,
  id: number,
  input: BlockInput,
  add: boolean,
): Promise<{ record: OrderRecord; position: PositionJson }> {
  const { record, position } = await loadPosition(ctx, id);
  const current = position.blocked ?? [];
  const names = add
    ? current.includes(input.name)
      ? current
      : [...current, input.name]
    : current.filter((n) => n !== input.name);
  if (names.length !== current.length) {
    const blocked = names.length ? names : null;
    await change(
      ctx,
      record,
      [
        {
          positionId: position.id,
          secret: position.secret,
          newSecret: position.secret,
          revoke: false,
          blocked,
          blockedAfter: isBlocked(blocked),
        },
      ],
      null,
    );
  }
  return loadPosition(ctx, id);
}
