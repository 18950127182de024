/**
 * What the customer's order and payment pages read and write themselves: the order by its code
 * (after a payment), a gift card by id or by its secret, a new payment of the order (canceling
 * its open ones), with the row types the pages show. Each takes the database (`{ db }`: a
 * service context or the route's variables) and the ids the page found.
 */
import * as giftCards from "../../db/giftcards";
import * as orders from "../../db/orders";
import * as payments from "../../db/payments";
import { withDb } from "../scoped-reads";

export type { GiftCardDebit } from "../../db/payments";

export const findOrder = withDb(orders.findOrder);
export const findOrderBySecret = withDb(orders.findOrderBySecret);
export const findGiftCard = withDb(giftCards.findGiftCard);
export const giftCardForPayment = withDb(giftCards.giftCardForPayment);
export const createPayment = withDb(payments.createPayment);
