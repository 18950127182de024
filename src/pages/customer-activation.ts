/**
 * The page behind the link of a customer activation mail (POST .../customers/ with
 * `send_email`): the customer chooses a password, which also verifies the email address.
 * The link works once and for a limited time (services/organizers/customers.ts).
 */
import { Hono } from "hono";
import { activateCustomer, findCustomerByActivationToken, findOrganizerById } from "../services/organizers/link-tokens";
import { MIN_PASSWORD_LENGTH } from "../services/organizers/customers";
import type { AppEnv } from "../http/context";
import { sha256Hex } from "../lib/crypto";
import { hashPassword } from "../lib/password";
import { notFound } from "../lib/failure";
import { html, page, type Raw } from "./html";
import { pageError } from "./storefront";

export const customerActivationPages = new Hono<AppEnv>();

const TITLE = "Activate your account";

customerActivationPages.onError(pageError);

/** An unknown, expired or used link: a 404 through the pages' one error exit. */
const NOT_VALID = "This activation link is not valid. It may have expired or been used already.";

function form(accountName: string, organizerName: string, error?: string): Raw {
  return html`${error ? html`<p class="error">${error}</p>` : ""}
<p>Choose a password for your account <strong>${accountName}</strong> at <strong>${organizerName}</strong>.</p>
<form method="post">
<label for="password">Password (at least ${MIN_PASSWORD_LENGTH} characters)</label>
<input type="password" id="password" name="password" required minlength="${MIN_PASSWORD_LENGTH}" autocomplete="new-password">
<label for="password_repeat">Repeat the password</label>
<input type="password" id="password_repeat" name="password_repeat" required autocomplete="new-password">
<button type="submit">Activate account</button>
</form>`;
}

customerActivationPages.get("/customer/activate/:token", async (c) => {
  const customer = await findCustomerByActivationToken(c.var, await sha256Hex(c.req.param("token")), Date.now());
  if (!customer?.isActive) throw notFound(NOT_VALID);
  const org = await findOrganizerById(c.var, customer.organizerId);
  return c.html(page(TITLE, form(customer.email ?? customer.identifier, org?.name ?? "")));
});

customerActivationPages.post("/customer/activate/:token", async (c) => {
  const tokenHash = await sha256Hex(c.req.param("token"));
  const customer = await findCustomerByActivationToken(c.var, tokenHash, Date.now());
  if (!customer?.isActive) throw notFound(NOT_VALID);
  const org = await findOrganizerById(c.var, customer.organizerId);
  const body = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const password = typeof body.password === "string" ? body.password : "";
  const repeat = typeof body.password_repeat === "string" ? body.password_repeat : "";
  let error: string | undefined;
  if (password.length < MIN_PASSWORD_LENGTH)
    error = `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`;
  else if (password.length > 4096) error = "The password is too long.";
  else if (password !== repeat) error = "The two passwords do not match.";
  if (error) return c.html(page(TITLE, form(customer.email ?? customer.identifier, org?.name ?? "", error)), 400);
  if (!(await activateCustomer(c.var, tokenHash, await hashPassword(password), Date.now()))) throw notFound(NOT_VALID);
  return c.html(
    page(
      "Account activated",
      html`<p class="ok">Your password has been set and your account at <strong>${org?.name ?? ""}</strong> is active.</p>`,
    ),
  );
});
