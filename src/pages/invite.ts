/** The page behind a team invitation link: the invitee enters their name and joins. */
import { Hono } from "hono";
import { findOrganizerById, acceptInvite, findInviteByToken } from "../services/organizers/link-tokens";
import type { AppEnv } from "../http/context";
import { notFound } from "../lib/failure";
import { html, page } from "./html";
import { pageError } from "./storefront";

export const invitePages = new Hono<AppEnv>();

invitePages.onError(pageError);

/** An unknown, used or revoked invitation: a 404 through the pages' one error exit. */
const NOT_FOUND = "This invitation does not exist or has been used or revoked already.";

invitePages.get("/invite/:token", async (c) => {
  const found = await findInviteByToken(c.var, c.req.param("token"));
  if (!found) throw notFound(NOT_FOUND);
  const org = await findOrganizerById(c.var, found.organizerId);
  return c.html(
    page(
      "Team invitation",
      html`<p>You have been invited to join the team <strong>${found.teamName}</strong> of <strong>${org?.name ?? ""}</strong> as <strong>${found.invite.email}</strong>.</p>
<form method="post"><label for="fullname">Your full name</label><input type="text" id="fullname" name="fullname" required maxlength="190">
<button type="submit">Join the team</button></form>`,
    ),
  );
});

invitePages.post("/invite/:token", async (c) => {
  const found = await findInviteByToken(c.var, c.req.param("token"));
  if (!found) throw notFound(NOT_FOUND);
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  const fullname = typeof form.fullname === "string" ? form.fullname.trim().slice(0, 190) : "";
  if (!fullname) {
    return c.html(
      page("Team invitation", html`<p class="error">Please enter your name.</p><p><a href="">Back</a></p>`),
      400,
    );
  }
  await acceptInvite(c.var, found.invite.id, found.invite.teamId, found.invite.email, fullname, Date.now());
  return c.html(
    page("Welcome", html`<p class="ok">You are now a member of the team <strong>${found.teamName}</strong>.</p>`),
  );
});
