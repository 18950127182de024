import type { Permission } from "../../src/rules/permissions";
import {
  create,
  discountBody,
  id,
  item,
  optionBody,
  questionBody,
  seatingPlanBody,
  sendmailRuleBody,
  type SetupWorld,
  taxRuleBody,
  ticketLayoutBody,
} from "./fixtures";
import type { MatrixRow, RowSetup } from "./types";

const ev = "/api/v1/organizers/:organizer/events/:event";

/** How the rows of one resource get real objects: where it lives, and a valid body. */
export type Resource = {
  /** The collection's path for a world (parent objects created as needed) and the parent's params. */
  collection: (w: SetupWorld) => Promise<{ path: string; params: Record<string, string> }>;
  /** A valid body for POST and PUT (it may need objects of its own: made with the world). */
  body: (w: SetupWorld) => Record<string, unknown> | Promise<Record<string, unknown>>;
};

/** Setups for list, create, detail, PUT, PATCH and DELETE of a resource. */
export function resourceSetups(r: Resource) {
  const object = async (w: SetupWorld): Promise<RowSetup> => {
    const { path, params } = await r.collection(w);
    const o = await create(w, path, await r.body(w));
    return { params: { ...params, id: id(o) } };
  };
  return {
    list: object,
    create: async (w: SetupWorld): Promise<RowSetup> => ({
      params: (await r.collection(w)).params,
      body: await r.body(w),
    }),
    object,
    put: async (w: SetupWorld): Promise<RowSetup> => ({ ...(await object(w)), body: await r.body(w) }),
    patch: async (w: SetupWorld): Promise<RowSetup> => ({ ...(await object(w)), body: {} }),
  };
}

/** GET list and detail with `read`; POST, PUT, PATCH, DELETE with `write`. */
function crud(base: string, read: Permission | null, write: Permission, r: Resource): MatrixRow[] {
  const s = resourceSetups(r);
  return [
    { route: `GET ${base}`, permission: read, setup: s.list },
    { route: `POST ${base}`, permission: write, setup: s.create },
    { route: `GET ${base}/:id`, permission: read, setup: s.object },
    { route: `PUT ${base}/:id`, permission: write, setup: s.put },
    { route: `PATCH ${base}/:id`, permission: write, setup: s.patch },
    { route: `DELETE ${base}/:id`, permission: write, setup: s.object },
  ];
}

const inEvent = (name: string) => async (w: SetupWorld) => ({ path: `${w.ev}/${name}`, params: {} });

const questions: Resource = { collection: inEvent("questions"), body: questionBody };
const discounts: Resource = { collection: inEvent("discounts"), body: discountBody };
const options: Resource = {
  collection: async (w) => {
    const q = await create(w, `${w.ev}/questions`, questionBody());
    return { path: `${w.ev}/questions/${q.id}/options`, params: { question: id(q) } };
  },
  body: optionBody,
};

async function layoutItem(w: SetupWorld): Promise<Record<string, number>> {
  const layout = await create(w, `${w.ev}/ticketlayouts`, ticketLayoutBody());
  return { layout: layout.id, item: (await item(w)).id };
}

export const rows: MatrixRow[] = [
  ...crud(`${ev}/taxrules`, null, "can_change_event_settings", { collection: inEvent("taxrules"), body: taxRuleBody }),
  ...crud(`${ev}/questions`, null, "can_change_items", questions),
  ...crud(`${ev}/questions/:question/options`, null, "can_change_items", options),
  ...crud(`${ev}/discounts`, null, "can_change_items", discounts),
  { route: `DELETE ${ev}/discount/:id`, permission: "can_change_items", setup: resourceSetups(discounts).object },
  ...crud(`${ev}/sendmail_rules`, "can_change_event_settings", "can_change_event_settings", {
    collection: inEvent("sendmail_rules"),
    body: sendmailRuleBody,
  }),
  ...crud(`${ev}/ticketlayouts`, null, "can_change_event_settings", {
    collection: inEvent("ticketlayouts"),
    body: ticketLayoutBody,
  }),
  {
    route: `GET ${ev}/ticketlayoutitems`,
    permission: null,
    setup: async (w) => {
      await create(w, `${w.ev}/ticketlayoutitems`, await layoutItem(w));
      return {};
    },
  },
  {
    route: `POST ${ev}/ticketlayoutitems`,
    permission: "can_change_items",
    setup: async (w) => ({ body: await layoutItem(w) }),
  },
  {
    route: `GET ${ev}/ticketlayoutitems/:id`,
    permission: null,
    setup: async (w) => ({ params: { id: id(await create(w, `${w.ev}/ticketlayoutitems`, await layoutItem(w))) } }),
  },
  {
    route: `DELETE ${ev}/ticketlayoutitems/:id`,
    permission: "can_change_items",
    setup: async (w) => ({ params: { id: id(await create(w, `${w.ev}/ticketlayoutitems`, await layoutItem(w))) } }),
  },
  ...crud(
    "/api/v1/organizers/:organizer/seatingplans",
    "can_change_organizer_settings",
    "can_change_organizer_settings",
    {
      collection: async (w) => ({ path: `${w.org}/seatingplans`, params: {} }),
      body: seatingPlanBody,
    },
  ),
];
