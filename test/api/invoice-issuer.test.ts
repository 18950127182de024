/**
 * An invoice issued without the issuer's name or address (pretix's event settings
 * `invoice_address_from*`): the event settings answer with a `Warning` header while invoicing is
 * on, each such invoice writes a warning log line, and both go once the issuer is set.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { shop } from "../helpers/sales";

const WARNING =
  '199 - "Invoices are issued without the issuer\'s name or address: set invoice_address_from_name, invoice_address_from, invoice_address_from_vat_id"';

/** The warning lines the service logs meanwhile. */
function captureWarnings(): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  vi.spyOn(console, "warn").mockImplementation((line: unknown) => {
    if (typeof line === "object" && line !== null) lines.push(line as Record<string, unknown>);
  });
  return lines;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("an invoice without its issuer", () => {
  it("warns on the event settings while invoicing is on, logs each invoice issued so, and stops once the issuer is set", async () => {
    const s = await shop();
    const ticket = await s.item({ default_price: "10.00" });
    await s.quota({ size: 10, items: [ticket.id] });

    // invoicing off (the default): nothing to warn about
    const off = await s.client.get(`${s.path}/settings/`);
    expect(off.status).toBe(200);
    expect(off.headers.get("Warning")).toBeNull();

    const on = await s.client.patch(`${s.path}/settings/`, { invoice_generate: "admin" });
    expect(on.status).toBe(200);
    expect(on.body.invoice_address_from_name).toBe("");
    expect(on.headers.get("Warning")).toBe(WARNING);
    expect((await s.client.get(`${s.path}/settings/`)).headers.get("Warning")).toBe(WARNING);
    expect((await s.client.get(`${s.path}/settings/?explain=true`)).headers.get("Warning")).toBe(WARNING);

    const logged = captureWarnings();
    const o = await s.client.post(`${s.path}/orders/`, { email: "a@example.org", positions: [{ item: ticket.id }] });
    expect(o.status).toBe(201);
    const invoice = await s.client.post(`${s.path}/orders/${o.body.code}/create_invoice/`, {});
    expect(invoice.status).toBe(200);
    expect(invoice.body).toMatchObject({ invoice_from_name: "", invoice_from: "", invoice_from_vat_id: "" });
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: "warn",
        message: "an invoice is issued without the issuer's name or address (event settings invoice_address_from*)",
        order: o.body.code,
        missing: ["invoice_address_from_name", "invoice_address_from", "invoice_address_from_vat_id"],
      }),
    );

    // a name and an address: no warning, even without a VAT id (not every issuer has one)
    const set = await s.client.patch(`${s.path}/settings/`, {
      invoice_address_from_name: "Big Events LLC",
      invoice_address_from: "Demo street 12",
    });
    expect(set.status).toBe(200);
    expect(set.headers.get("Warning")).toBeNull();
    logged.length = 0;
    const o2 = await s.client.post(`${s.path}/orders/`, { email: "b@example.org", positions: [{ item: ticket.id }] });
    const issued = await s.client.post(`${s.path}/orders/${o2.body.code}/create_invoice/`, {});
    expect(issued.status).toBe(200);
    expect(issued.body.invoice_from_name).toBe("Big Events LLC");
    expect(logged.filter((l) => String(l.message).startsWith("an invoice is issued without"))).toEqual([]);

    // only the name missing: the warning names what is missing
    const partial = await s.client.patch(`${s.path}/settings/`, {
      invoice_address_from_name: null,
      invoice_address_from_vat_id: "DE123456789",
    });
    expect(partial.headers.get("Warning")).toBe(
      '199 - "Invoices are issued without the issuer\'s name or address: set invoice_address_from_name"',
    );
  });
});
