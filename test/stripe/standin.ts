/**
 * A local stand-in for Stripe's HTTP API, for the tests only (never the real Stripe, never the
 * network): plain node:http on 127.0.0.1. The service's Stripe SDK reaches it through the
 * deployment variable STRIPE_API_BASE. It answers with the shapes Stripe documents (Checkout
 * Sessions, PaymentIntents, Refunds, Events, webhook endpoints, errors), honours idempotency
 * keys as Stripe does, and records every request it was sent.
 *
 * Each API key is its own account (any `sk_test_…` or `rk_test_…` key opens one): the tests of
 * different files share the server without seeing each other. Besides the API:
 * - `GET /c/pay/{session}`: the hosted checkout page a Session's `url` points to, with buttons
 *   that pay (`outcome=paid`), start a payment that settles later (`outcome=processing`) or go
 *   back (the Session's `cancel_url`); the form POST answers 303 to the `success_url`;
 * - `/__standin/…` (with the account's key): the requests recorded, an outage of the account's
 *   API (`error`: Stripe's 500, `error_once`: one 500 kept under its idempotency key as Stripe keeps
 *   it, `drop`: the connection is cut), how new refunds end, settling a
 *   processing payment, a refund's later state.
 * Events go to the account's webhook endpoints (`POST /v1/webhook_endpoints`), signed with the
 * SDK's own test helper: before the checkout page redirects, and shortly after an API call.
 * `npm start -- --stripe standin` runs it beside the local server (docs/payments.md).
 */
import http from "node:http";
import type net from "node:net";
import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { parseForm } from "./forms.ts";

type Obj = Record<string, any>;

const INTERNAL_ERROR = { error: { type: "api_error", message: "An unknown error occurred" } };

export type RecordedRequest = {
  method: string;
  path: string;
  params: Obj;
  idempotencyKey: string | null;
  stripeVersion: string | null;
};

type Account = {
  key: string;
  requests: RecordedRequest[];
  sessions: Map<string, Obj>;
  intents: Map<string, Obj>;
  refunds: Map<string, Obj>;
  events: Obj[];
  endpoints: Obj[];
  idempotency: Map<string, { params: string; status: number; body: Obj }>;
  outage: "error" | "error_once" | "drop" | null;
  refundStatus: "succeeded" | "pending" | "failed";
  deliveries: { url: string; event: string; type: string; status: number | string }[];
};

export type StripeStandin = { base: string; close(): Promise<void> };

const API_VERSION = Stripe.API_VERSION;

const id = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("hex")}`;
const seconds = () => Math.floor(Date.now() / 1000);

function stripeError(status: number, type: string, message: string, extra: Obj = {}) {
  return { status, body: { error: { type, message, ...extra } } };
}

/** How Stripe shows a key in an error: the prefix and the last four characters. */
const masked = (key: string) => `${key.slice(0, 8)}${"*".repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The API key of a request: Stripe takes it as a Bearer token or as Basic auth's user (`curl -u KEY:`). */
function apiKey(header: string): string {
  const bearer = /^Bearer (\S+)$/.exec(header)?.[1];
  if (bearer) return bearer;
  const basic = /^Basic (\S+)$/.exec(header)?.[1];
  return basic ? Buffer.from(basic, "base64").toString("utf8").split(":")[0]! : "";
}

/** Starts the stand-in on 127.0.0.1 (`port` 0: a free one; `npm start -- --stripe standin` gives one). */
export function startStripeStandin(port = 0): Promise<StripeStandin> {
  const accounts = new Map<string, Account>();
  const stripe = new Stripe("sk_test_standin_signing_only");
  let base = "";

  const account = (key: string): Account => {
    let a = accounts.get(key);
    if (!a) {
      a = {
        key,
        requests: [],
        sessions: new Map(),
        intents: new Map(),
        refunds: new Map(),
        events: [],
        endpoints: [],
        idempotency: new Map(),
        outage: null,
        refundStatus: "succeeded",
        deliveries: [],
      };
      accounts.set(key, a);
    }
    return a;
  };

  const publicSession = (s: Obj): Obj => ({ ...s, url: s.status === "open" ? s.url : null });

  /** Sends one event to the account's endpoints that listen to its type, signed as Stripe signs. */
  async function deliver(a: Account, event: Obj): Promise<void> {
    for (const ep of a.endpoints) {
      if (!ep.enabled_events.includes("*") && !ep.enabled_events.includes(event.type)) continue;
      const payload = JSON.stringify(event);
      const header = stripe.webhooks.generateTestHeaderString({ payload, secret: ep.secret });
      let status: number | string;
      try {
        const res = await fetch(ep.url, {
          method: "POST",
          headers: { "Content-Type": "application/json; charset=utf-8", "Stripe-Signature": header },
          body: payload,
        });
        await res.arrayBuffer();
        status = res.status;
      } catch (e) {
        status = String(e);
      }
      a.deliveries.push({ url: ep.url, event: event.id, type: event.type, status });
    }
  }

  /** Records an event of the account (newest first, as Stripe lists them). */
  function emit(a: Account, type: string, object: Obj, idempotencyKey: string | null = null): Obj {
    const event = {
      id: id("evt"),
      object: "event",
      api_version: API_VERSION,
      created: seconds(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: a.endpoints.length,
      request: { id: id("req"), idempotency_key: idempotencyKey },
      type,
    };
    a.events.unshift(event);
    return event;
  }

  /** Refunded so far on a PaymentIntent (refunds that did not fail or get canceled). */
  const refunded = (a: Account, pi: string) =>
    [...a.refunds.values()]
      .filter((r) => r.payment_intent === pi && r.status !== "failed" && r.status !== "canceled")
      .reduce((sum, r) => sum + r.amount, 0);

  function createSession(a: Account, p: Obj) {
    if (p.mode !== "payment")
      return stripeError(400, "invalid_request_error", "Missing required param: mode.", { param: "mode" });
    if (typeof p.success_url !== "string")
      return stripeError(400, "invalid_request_error", "Missing required param: success_url.", {
        param: "success_url",
      });
    const line = p.line_items?.[0];
    const price = line?.price_data;
    const amount = Number(price?.unit_amount);
    const quantity = Number(line?.quantity ?? 1);
    if (!price || !/^[a-z]{3}$/.test(price.currency ?? "") || !Number.isInteger(amount) || amount < 0)
      return stripeError(400, "invalid_request_error", "Invalid line_items[0][price_data].", { param: "line_items" });
    const now = seconds();
    const expiresAt = p.expires_at === undefined ? now + 86400 : Number(p.expires_at);
    if (!Number.isInteger(expiresAt) || expiresAt < now + 1800 - 5 || expiresAt > now + 86400 + 5)
      return stripeError(
        400,
        "invalid_request_error",
        "The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.",
        { param: "expires_at" },
      );
    const sessionId = id("cs");
    const session = {
      id: sessionId,
      object: "checkout.session",
      amount_subtotal: amount * quantity,
      amount_total: amount * quantity,
      cancel_url: p.cancel_url ?? null,
      client_reference_id: p.client_reference_id ?? null,
      created: now,
      currency: price.currency,
      customer_email: p.customer_email ?? null,
      expires_at: expiresAt,
      livemode: false,
      locale: p.locale ?? null,
      metadata: p.metadata ?? {},
      mode: "payment",
      payment_intent: null,
      payment_status: "unpaid",
      status: "open",
      success_url: p.success_url,
      url: `${base}/c/pay/${sessionId}`,
      // kept for the PaymentIntent made when the customer pays; not part of Stripe's object
      _intentMetadata: p.payment_intent_data?.metadata ?? {},
      _description: price.product_data?.name ?? "",
    };
    a.sessions.set(sessionId, session);
    return { status: 200, body: publicSession(session) };
  }

  function expireSession(a: Account, s: Obj) {
    if (s.status !== "open")
      return stripeError(
        400,
        "invalid_request_error",
        `Only Checkout Sessions with a status in ["open"] can be expired.`,
      );
    s.status = "expired";
    emit(a, "checkout.session.expired", publicSession(s));
    return { status: 200, body: publicSession(s) };
  }

  function createRefund(a: Account, p: Obj, idempotencyKey: string | null) {
    const pi = a.intents.get(p.payment_intent ?? "");
    if (!pi)
      return stripeError(404, "invalid_request_error", `No such payment_intent: '${p.payment_intent}'`, {
        param: "payment_intent",
      });
    if (pi.status !== "succeeded")
      return stripeError(
        400,
        "invalid_request_error",
        "This PaymentIntent does not have a successful charge to refund.",
      );
    const left = pi.amount - refunded(a, pi.id);
    const amount = p.amount === undefined ? left : Number(p.amount);
    if (!Number.isInteger(amount) || amount <= 0)
      return stripeError(400, "invalid_request_error", "Invalid positive integer", { param: "amount" });
    if (amount > left)
      return stripeError(
        400,
        "invalid_request_error",
        `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
        { param: "amount", code: "amount_too_large" },
      );
    const refund: Obj = {
      id: id("re"),
      object: "refund",
      amount,
      charge: pi.latest_charge,
      created: seconds(),
      currency: pi.currency,
      metadata: p.metadata ?? {},
      payment_intent: pi.id,
      reason: p.reason ?? null,
      status: a.refundStatus === "failed" ? "pending" : a.refundStatus,
      failure_reason: null,
    };
    a.refunds.set(refund.id, refund);
    const events = [emit(a, "refund.created", refund, idempotencyKey)];
    if (a.refundStatus === "failed") {
      refund.status = "failed";
      refund.failure_reason = "expired_or_canceled_card";
      events.push(emit(a, "refund.failed", refund));
    }
    setTimeout(() => events.reduce((p, e) => p.then(() => deliver(a, e)), Promise.resolve()), 20);
    return { status: 200, body: refund };
  }

  /** The customer paid (or started a payment that settles later): the PaymentIntent is made. */
  async function pay(a: Account, s: Obj, outcome: "paid" | "processing"): Promise<Obj[]> {
    const intent = {
      id: id("pi"),
      object: "payment_intent",
      amount: s.amount_total,
      amount_received: outcome === "paid" ? s.amount_total : 0,
      created: seconds(),
      currency: s.currency,
      description: s._description,
      latest_charge: outcome === "paid" ? id("ch") : null,
      livemode: false,
      metadata: s._intentMetadata,
      status: outcome === "paid" ? "succeeded" : "processing",
    };
    a.intents.set(intent.id, intent);
    s.status = "complete";
    s.payment_intent = intent.id;
    s.payment_status = outcome === "paid" ? "paid" : "unpaid";
    const events = [
      ...(outcome === "paid" ? [emit(a, "payment_intent.succeeded", intent)] : []),
      emit(a, "checkout.session.completed", publicSession(s)),
    ];
    for (const e of events) await deliver(a, e);
    return events;
  }

  function settle(a: Account, s: Obj, result: string): Obj[] | null {
    const intent = a.intents.get(s.payment_intent ?? "");
    if (intent?.status !== "processing" || (result !== "succeeded" && result !== "failed")) return null;
    if (result === "succeeded") {
      intent.status = "succeeded";
      intent.amount_received = intent.amount;
      intent.latest_charge = id("ch");
      s.payment_status = "paid";
      return [
        emit(a, "payment_intent.succeeded", intent),
        emit(a, "checkout.session.async_payment_succeeded", publicSession(s)),
      ];
    }
    intent.status = "requires_payment_method";
    return [
      emit(a, "payment_intent.payment_failed", intent),
      emit(a, "checkout.session.async_payment_failed", publicSession(s)),
    ];
  }

  function checkoutPage(s: Obj): string {
    const amount = `${(s.amount_total / 100).toFixed(2)} ${String(s.currency).toUpperCase()}`;
    const body =
      s.status === "open"
        ? `<p>Pay <strong id="amount">${escapeHtml(amount)}</strong> for ${escapeHtml(s._description)}</p>
<form method="post" action="/c/pay/${s.id}">
<button type="submit" name="outcome" value="paid">Pay ${escapeHtml(amount)}</button>
<button type="submit" name="outcome" value="processing">Pay by bank debit</button>
</form>
${s.cancel_url ? `<p><a href="${escapeHtml(s.cancel_url)}">Back</a></p>` : ""}`
        : `<p id="state">This Checkout Session is ${escapeHtml(s.status)}.</p>`;
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Stripe Checkout (test stand-in)</title></head>
<body><main><h1>Stripe Checkout (test stand-in)</h1>${body}</main></body></html>`;
  }

  /** The API under /v1/ of one account: the answer to a recorded request. */
  async function api(a: Account, method: string, path: string, p: Obj, idempotencyKey: string | null) {
    let m: RegExpMatchArray | null;
    if (method === "POST" && path === "/v1/checkout/sessions") return createSession(a, p);
    if ((m = path.match(/^\/v1\/checkout\/sessions\/([\w]+)(\/expire)?$/))) {
      const s = a.sessions.get(m[1]!);
      if (!s) return stripeError(404, "invalid_request_error", `No such checkout.session: '${m[1]}'`);
      if (method === "POST" && m[2]) return expireSession(a, s);
      if (method === "GET" && !m[2]) return { status: 200, body: publicSession(s) };
    }
    if (method === "GET" && (m = path.match(/^\/v1\/payment_intents\/([\w]+)$/))) {
      const pi = a.intents.get(m[1]!);
      return pi
        ? { status: 200, body: pi }
        : stripeError(404, "invalid_request_error", `No such payment_intent: '${m[1]}'`);
    }
    if (method === "POST" && path === "/v1/refunds") return createRefund(a, p, idempotencyKey);
    if (method === "GET" && path === "/v1/refunds") {
      const data = [...a.refunds.values()]
        .filter((r) => !p.payment_intent || r.payment_intent === p.payment_intent)
        .reverse()
        .slice(0, Number(p.limit ?? 10));
      return { status: 200, body: { object: "list", data, has_more: false, url: "/v1/refunds" } };
    }
    if (method === "GET" && (m = path.match(/^\/v1\/refunds\/([\w]+)$/))) {
      const r = a.refunds.get(m[1]!);
      return r ? { status: 200, body: r } : stripeError(404, "invalid_request_error", `No such refund: '${m[1]}'`);
    }
    if (method === "GET" && path === "/v1/events") {
      const data = a.events.filter((e) => !p.type || e.type === p.type).slice(0, Number(p.limit ?? 100));
      return { status: 200, body: { object: "list", data, has_more: false, url: "/v1/events" } };
    }
    if (method === "GET" && (m = path.match(/^\/v1\/events\/([\w]+)$/))) {
      const e = a.events.find((x) => x.id === m![1]);
      return e ? { status: 200, body: e } : stripeError(404, "invalid_request_error", `No such event: '${m[1]}'`);
    }
    if (method === "POST" && path === "/v1/webhook_endpoints") {
      if (typeof p.url !== "string")
        return stripeError(400, "invalid_request_error", "Missing required param: url.", { param: "url" });
      const ep = {
        id: id("we"),
        object: "webhook_endpoint",
        created: seconds(),
        enabled_events: p.enabled_events ?? ["*"],
        livemode: false,
        secret: `whsec_${randomBytes(24).toString("hex")}`,
        status: "enabled",
        url: p.url,
      };
      a.endpoints.push(ep);
      return { status: 200, body: ep };
    }
    return stripeError(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path}).`);
  }

  /** The test controls of one account (the events they cause are delivered before they answer). */
  async function control(a: Account, method: string, path: string, p: Obj) {
    let m: RegExpMatchArray | null;
    if (method === "GET" && path === "/__standin/requests") return { status: 200, body: { requests: a.requests } };
    if (method === "GET" && path === "/__standin/deliveries")
      return { status: 200, body: { deliveries: a.deliveries } };
    if (method === "POST" && path === "/__standin/outage") {
      a.outage = ["error", "error_once", "drop"].includes(p.mode) ? p.mode : null;
      return { status: 200, body: { outage: a.outage } };
    }
    if (method === "POST" && path === "/__standin/refund_status") {
      a.refundStatus = ["pending", "failed"].includes(p.status) ? p.status : "succeeded";
      return { status: 200, body: { refund_status: a.refundStatus } };
    }
    if (method === "POST" && (m = path.match(/^\/__standin\/sessions\/([\w]+)\/settle$/))) {
      const s = a.sessions.get(m[1]!);
      const events = s ? settle(a, s, p.result) : null;
      if (!events) return { status: 400, body: { detail: "nothing to settle" } };
      for (const e of events) await deliver(a, e);
      return { status: 200, body: { events } };
    }
    if (method === "POST" && (m = path.match(/^\/__standin\/refunds\/([\w]+)\/status$/))) {
      const r = a.refunds.get(m[1]!);
      if (!r || !["succeeded", "failed", "canceled"].includes(p.status))
        return { status: 400, body: { detail: "no such change" } };
      r.status = p.status;
      if (p.status === "failed") r.failure_reason = "lost_or_stolen_card";
      const event = emit(a, p.status === "failed" ? "refund.failed" : "refund.updated", r);
      await deliver(a, event);
      return { status: 200, body: { event } };
    }
    return { status: 404, body: { detail: "unknown control" } };
  }

  /** The account whose checkout page a session id belongs to. */
  const sessionOwner = (sessionId: string) => [...accounts.values()].find((a) => a.sessions.has(sessionId));

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = req.method ?? "GET";
    const raw = await new Promise<string>((resolve) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => resolve(body));
    });
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res
        .writeHead(status, { "Content-Type": "application/json", "Request-Id": id("req"), ...headers })
        .end(JSON.stringify(body));

    const pageMatch = url.pathname.match(/^\/c\/pay\/([\w]+)$/);
    if (pageMatch) {
      const a = sessionOwner(pageMatch[1]!);
      const s = a?.sessions.get(pageMatch[1]!);
      if (!a || !s) {
        res.writeHead(404, { "Content-Type": "text/plain" }).end("no such checkout session");
        return;
      }
      if (method === "POST" && s.status === "open") {
        const outcome = new URLSearchParams(raw).get("outcome") === "processing" ? "processing" : "paid";
        await pay(a, s, outcome);
        res.writeHead(303, { Location: s.success_url.replace("{CHECKOUT_SESSION_ID}", s.id) }).end();
        return;
      }
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(checkoutPage(s));
      return;
    }

    const auth = apiKey(req.headers.authorization ?? "");
    if (!/^(sk|rk)_test_\w+$/.test(auth)) {
      json(401, { error: { type: "invalid_request_error", message: `Invalid API Key provided: ${masked(auth)}` } });
      return;
    }
    const a = account(auth);
    const params = method === "GET" ? parseForm(url.search.slice(1)) : parseForm(raw);
    if (url.pathname.startsWith("/__standin/")) {
      const r = await control(a, method, url.pathname, raw.startsWith("{") ? JSON.parse(raw) : params);
      json(r.status, r.body);
      return;
    }
    const idempotencyKey = (req.headers["idempotency-key"] as string | undefined) ?? null;
    a.requests.push({
      method,
      path: url.pathname,
      params,
      idempotencyKey,
      stripeVersion: (req.headers["stripe-version"] as string | undefined) ?? null,
    });
    if (a.outage === "drop") {
      req.socket.destroy();
      return;
    }
    if (a.outage === "error") {
      json(500, INTERNAL_ERROR, { "Stripe-Should-Retry": "false" });
      return;
    }
    if (method === "POST" && idempotencyKey) {
      const stored = a.idempotency.get(idempotencyKey);
      const key = JSON.stringify([url.pathname, params]);
      if (a.outage === "error_once" && !stored) {
        a.outage = null;
        a.idempotency.set(idempotencyKey, { params: key, status: 500, body: INTERNAL_ERROR });
        json(500, INTERNAL_ERROR, { "Stripe-Should-Retry": "false", "Idempotency-Key": idempotencyKey });
        return;
      }
      if (stored && stored.params !== key) {
        const e = stripeError(
          400,
          "idempotency_error",
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
        );
        json(e.status, e.body);
        return;
      }
      if (stored) {
        const retry: Record<string, string> = stored.status >= 500 ? { "Stripe-Should-Retry": "false" } : {};
        json(stored.status, stored.body, {
          "Idempotent-Replayed": "true",
          "Idempotency-Key": idempotencyKey,
          ...retry,
        });
        return;
      }
      const r = await api(a, method, url.pathname, params, idempotencyKey);
      a.idempotency.set(idempotencyKey, { params: key, status: r.status, body: r.body });
      json(r.status, r.body, { "Idempotency-Key": idempotencyKey });
      return;
    }
    const r = await api(a, method, url.pathname, params, idempotencyKey);
    json(r.status, r.body);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
      res.end(String(e));
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
      resolve({
        base,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
      // the test runner may end while the server still listens
      server.unref();
    });
  });
}
