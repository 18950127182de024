/**
 * The catalog of a sale (cart or order): the rows read in one D1 batch (db/sales-catalog.ts)
 * with the event's effective settings.
 */
import { readSalesCatalog, type SalesCatalogRows, type SalesRefs } from "../../db/sales-catalog";
import type { DB } from "../../db/client";
import { effectiveSettings } from "../events/settings";
import { EVENT_SETTINGS } from "../events/settings-keys";

/** `storedEventSettings`: the settings stored on the event itself (what an order read from D1 shows of them). */
export type SalesCatalog = Omit<SalesCatalogRows, "storedSettings"> & {
  settings: Record<string, unknown>;
  storedEventSettings: Record<string, unknown>;
};
export type { SalesRefs };

export async function loadSalesCatalog(
  db: DB,
  organizerId: number,
  eventId: number,
  refs: SalesRefs,
): Promise<SalesCatalog> {
  const { storedSettings, ...rows } = await readSalesCatalog(db, organizerId, eventId, refs);
  return {
    ...rows,
    settings: effectiveSettings(storedSettings.event, EVENT_SETTINGS, effectiveSettings(storedSettings.organizer)),
    storedEventSettings: storedSettings.event,
  };
}
