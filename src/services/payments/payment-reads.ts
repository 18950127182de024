/**
 * What the gift card routes read: the organizer's gift cards and one card's transactions, the
 * organizers that accept its cards and whose cards it accepts, scoped by the context
 * (services/scoped-reads.ts), with the row types the routes serialize.
 */
import * as giftCards from "../../db/giftcards";
import { inOrganizer, withDb } from "../scoped-reads";

export type { GiftCardRow, GiftCardTransactionRecord } from "../../db/giftcards";

export const listGiftCards = inOrganizer(giftCards.listGiftCards);
export const findGiftCard = inOrganizer(giftCards.findGiftCard);
/** A card's transactions: the route has found the card of the organizer (`findGiftCard`). */
export const listTransactions = withDb(giftCards.listTransactions);
/** The organizers that accept the context organizer's cards. */
export const listAcceptors = inOrganizer(giftCards.listAcceptors);
/** The organizers whose cards the context organizer accepts. */
export const listIssuers = inOrganizer(giftCards.listIssuers);
