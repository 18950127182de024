/** Sales: what is left of quotas and products, as the ledger counts it now. */
import type { Availability, Demand } from "../../rules/inventory";
import type { EventState } from "./state";

export async function quotaAvailability(
  s: EventState,
  stamp: number,
  quotaIds: number[],
): Promise<Record<number, Availability>> {
  await s.ensureCatalog(stamp);
  const now = Date.now();
  const out: Record<number, Availability> = {};
  for (const id of quotaIds) {
    const q = s.ledger.quota(id);
    if (q) out[id] = s.ledger.availability(q, now);
  }
  return out;
}

/** Availability states (100/20/10/0, null: not counted) of products on dates. */
export async function availabilityStates(
  s: EventState,
  stamp: number,
  demands: Pick<Demand, "itemId" | "variationId" | "subeventId">[],
): Promise<(number | null)[]> {
  await s.ensureCatalog(stamp);
  const now = Date.now();
  return demands.map((d) => s.ledger.demandState(d, now));
}

/** Each product on its date as a shop shows it (state and units left; null: no quota covers it, not on sale). */
export async function productAvailabilities(
  s: EventState,
  stamp: number,
  demands: Pick<Demand, "itemId" | "variationId" | "subeventId">[],
): Promise<({ state: number; left: number | null } | null)[]> {
  await s.ensureCatalog(stamp);
  const now = Date.now();
  return demands.map((d) => s.ledger.productAvailability(d, now));
}
