import {
  acceptance,
  create,
  customer,
  giftCardBody,
  id,
  membershipBody,
  otherOrganizer,
  type SetupWorld,
} from "./fixtures";
import type { MatrixRow, RowSetup } from "./types";

const org = "/api/v1/organizers/:organizer";
const giftcards = `${org}/giftcards`;
const customers = `${org}/customers`;
const memberships = `${org}/memberships`;

const card = async (w: SetupWorld): Promise<RowSetup> => ({
  params: { id: id(await create(w, `${w.org}/giftcards`, giftCardBody())) },
});
const aCustomer = async (w: SetupWorld): Promise<RowSetup> => ({
  params: { identifier: (await customer(w)).identifier },
});
const membership = async (w: SetupWorld): Promise<RowSetup> => ({
  params: { id: id(await create(w, `${w.org}/memberships`, await membershipBody(w))) },
});
/** An organizer this one invited to accept its gift cards. */
const acceptor = async (w: SetupWorld): Promise<RowSetup> => {
  const other = await otherOrganizer();
  await acceptance(w.orgId, other.id);
  return { params: { acceptor: other.slug } };
};
/** An organizer that invited this one to accept its gift cards. */
const issuer = async (w: SetupWorld): Promise<RowSetup> => {
  const other = await otherOrganizer();
  await acceptance(other.id, w.orgId);
  return { params: { issuer: other.slug } };
};

export const rows: MatrixRow[] = [
  // gift cards: can_manage_gift_cards (devices have it by their fixed grant)
  { route: `GET ${giftcards}`, permission: "can_manage_gift_cards", setup: card },
  { route: `POST ${giftcards}`, permission: "can_manage_gift_cards", setup: async () => ({ body: giftCardBody() }) },
  { route: `GET ${giftcards}/:id`, permission: "can_manage_gift_cards", setup: card },
  {
    route: `PUT ${giftcards}/:id`,
    permission: "can_manage_gift_cards",
    setup: async (w) => ({ ...(await card(w)), body: { value: "12.00" } }),
  },
  {
    route: `PATCH ${giftcards}/:id`,
    permission: "can_manage_gift_cards",
    setup: async (w) => ({ ...(await card(w)), body: { conditions: "Valid all year" } }),
  },
  {
    route: `POST ${giftcards}/:id/transact`,
    permission: "can_manage_gift_cards",
    body: { value: "1.00" },
    setup: card,
    status: 200,
  },
  { route: `GET ${giftcards}/:id/transactions`, permission: "can_manage_gift_cards", setup: card },
  // acceptance of gift cards between organizers: organizer settings, as in pretix
  { route: `GET ${org}/giftcard_acceptors`, permission: "can_change_organizer_settings", setup: acceptor },
  {
    route: `POST ${org}/giftcard_acceptors`,
    permission: "can_change_organizer_settings",
    setup: async () => ({ body: { acceptor: (await otherOrganizer()).slug } }),
  },
  { route: `DELETE ${org}/giftcard_acceptors/:acceptor`, permission: "can_change_organizer_settings", setup: acceptor },
  { route: `GET ${org}/giftcard_issuers`, permission: "can_change_organizer_settings", setup: issuer },
  {
    route: `POST ${org}/giftcard_issuers/:issuer/accept`,
    permission: "can_change_organizer_settings",
    setup: issuer,
    status: 200,
  },
  { route: `DELETE ${org}/giftcard_issuers/:issuer`, permission: "can_change_organizer_settings", setup: issuer },
  // customers and memberships: can_manage_customers
  { route: `GET ${customers}`, permission: "can_manage_customers", setup: aCustomer },
  { route: `POST ${customers}`, permission: "can_manage_customers" },
  { route: `GET ${customers}/:identifier`, permission: "can_manage_customers", setup: aCustomer },
  {
    route: `PUT ${customers}/:identifier`,
    permission: "can_manage_customers",
    setup: async (w) => ({ ...(await aCustomer(w)), body: { name_parts: { full_name: "Jane Doe" } } }),
  },
  {
    route: `PATCH ${customers}/:identifier`,
    permission: "can_manage_customers",
    setup: async (w) => ({ ...(await aCustomer(w)), body: { notes: "VIP" } }),
  },
  {
    route: `POST ${customers}/:identifier/anonymize`,
    permission: "can_manage_customers",
    setup: aCustomer,
    status: 200,
  },
  { route: `GET ${memberships}`, permission: "can_manage_customers", setup: membership },
  {
    route: `POST ${memberships}`,
    permission: "can_manage_customers",
    setup: async (w) => ({ body: await membershipBody(w) }),
  },
  { route: `GET ${memberships}/:id`, permission: "can_manage_customers", setup: membership },
  {
    route: `PUT ${memberships}/:id`,
    permission: "can_manage_customers",
    setup: async (w) => {
      const { customer: _, ...body } = await membershipBody(w);
      return { ...(await membership(w)), body };
    },
  },
  {
    route: `PATCH ${memberships}/:id`,
    permission: "can_manage_customers",
    setup: async (w) => ({ ...(await membership(w)), body: { testmode: false } }),
  },
];
