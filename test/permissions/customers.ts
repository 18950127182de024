import type { MatrixRow } from "./types";

const org = "/api/v1/organizers/:organizer";
const giftcards = `${org}/giftcards`;
const customers = `${org}/customers`;
const memberships = `${org}/memberships`;

export const rows: MatrixRow[] = [
  // gift cards: can_manage_gift_cards (devices have it by their fixed grant)
  { route: `GET ${giftcards}`, permission: "can_manage_gift_cards" },
  { route: `POST ${giftcards}`, permission: "can_manage_gift_cards" },
  { route: `GET ${giftcards}/:id`, permission: "can_manage_gift_cards" },
  { route: `PUT ${giftcards}/:id`, permission: "can_manage_gift_cards" },
  { route: `PATCH ${giftcards}/:id`, permission: "can_manage_gift_cards" },
  { route: `POST ${giftcards}/:id/transact`, permission: "can_manage_gift_cards", body: { value: "1.00" } },
  { route: `GET ${giftcards}/:id/transactions`, permission: "can_manage_gift_cards" },
  // acceptance of gift cards between organizers: organizer settings, as in pretix
  { route: `GET ${org}/giftcard_acceptors`, permission: "can_change_organizer_settings" },
  { route: `POST ${org}/giftcard_acceptors`, permission: "can_change_organizer_settings" },
  { route: `DELETE ${org}/giftcard_acceptors/:acceptor`, permission: "can_change_organizer_settings" },
  { route: `GET ${org}/giftcard_issuers`, permission: "can_change_organizer_settings" },
  { route: `POST ${org}/giftcard_issuers/:issuer/accept`, permission: "can_change_organizer_settings" },
  { route: `DELETE ${org}/giftcard_issuers/:issuer`, permission: "can_change_organizer_settings" },
  // customers and memberships: can_manage_customers
  { route: `GET ${customers}`, permission: "can_manage_customers" },
  { route: `POST ${customers}`, permission: "can_manage_customers" },
  { route: `GET ${customers}/:identifier`, permission: "can_manage_customers" },
  { route: `PUT ${customers}/:identifier`, permission: "can_manage_customers" },
  { route: `PATCH ${customers}/:identifier`, permission: "can_manage_customers" },
  { route: `POST ${customers}/:identifier/anonymize`, permission: "can_manage_customers" },
  { route: `GET ${memberships}`, permission: "can_manage_customers" },
  { route: `POST ${memberships}`, permission: "can_manage_customers" },
  { route: `GET ${memberships}/:id`, permission: "can_manage_customers" },
  { route: `PUT ${memberships}/:id`, permission: "can_manage_customers" },
  { route: `PATCH ${memberships}/:id`, permission: "can_manage_customers" },
];
