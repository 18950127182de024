/*
 * The waiting page's script, run by the visitor's browser (served at /static/queue-page.js;
 * pages/waiting-room.ts renders the page and hands its settings over in `data-config`). It joins the
 * queue or resumes with the ticket kept in sessionStorage, follows the place over the WebSocket
 * `live/`, polls `status/` every `poll_seconds` when the WebSocket is not available, and when
 * admitted moves on to the `return_url` (else the event's `shop_url`) with `admission=<token>`
 * appended, or, with neither, leads to the event page.
 */
// a module (the page loads it with type="module"): its names stay its own; without the page's root it does nothing
const root = document.getElementById("queue");
const config = root ? JSON.parse(root.dataset.config || "{}") : {};
const t = config.texts;
const el = (id) => document.getElementById(id);
const statusLine = el("queue-status");
const facts = el("queue-facts");
const actions = el("queue-actions");
const channel = el("queue-channel");

/** How long to wait before asking again when the service answered nothing usable (seconds). */
const RETRY_SECONDS = [2, 5, 10, 20, 30, 60];

let ticket = null;
let socket = null;
let socketWorked = false;
let pollTimer = null;
let pollSeconds = 5;
let failures = 0;
let finished = false;

const fill = (text, values) =>
  text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));

// ---- the ticket, kept for this tab (sessionStorage may be refused: then for this page only) ----

function loadTicket() {
  try {
    return window.sessionStorage.getItem(config.storageKey);
  } catch {
    return null;
  }
}

function keepTicket(value) {
  ticket = value;
  try {
    if (value === null) window.sessionStorage.removeItem(config.storageKey);
    else window.sessionStorage.setItem(config.storageKey, value);
  } catch {
    // storage refused (privacy settings, a sandboxed frame): the ticket lives as long as the page
  }
}

// ---- words ----

function moment(iso) {
  const options = {
    weekday: "short",
    day: "numeric",
    month: "long",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  };
  try {
    return new Intl.DateTimeFormat(config.locale, { ...options, timeZone: config.timeZone }).format(new Date(iso));
  } catch {
    return new Date(iso).toLocaleString(config.locale);
  }
}

function waitWords(seconds) {
  if (typeof seconds !== "number") return t.unknown;
  if (seconds < 60) return t.lessThanMinute;
  const minutes = Math.round(seconds / 60);
  if (minutes <= 90) return minutes === 1 ? t.oneMinute : fill(t.minutes, { n: minutes });
  const hours = Math.round(seconds / 3600);
  return hours === 1 ? t.oneHour : fill(t.hours, { n: hours });
}

/** The live region: changed only when its words change, so a screen reader announces changes only. */
function say(text, kind) {
  if (statusLine.textContent !== text) statusLine.textContent = text;
  statusLine.className = kind;
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function link(text, href, opts) {
  const a = document.createElement("a");
  a.textContent = text;
  a.href = href;
  if (opts.button) a.className = "button";
  if (opts.top) a.target = "_top";
  return a;
}

function showActions(...nodes) {
  actions.replaceChildren(
    ...nodes.map((n) => {
      const p = document.createElement("p");
      p.append(n);
      return p;
    }),
  );
}

// ---- what the page shows for a QueueStatus ----

function render(s) {
  if (typeof s.poll_seconds === "number" && s.poll_seconds > 0) pollSeconds = s.poll_seconds;
  switch (s.state) {
    case "waiting":
      return showWaiting(s);
    case "admitted":
      finish();
      return showAdmitted(s.admission);
    case "expired":
      finish();
      return showExpired();
    default:
      finish();
      return showClosed(t.closed);
  }
}

function showWaiting(s) {
  const wait = waitWords(s.estimated_wait_seconds);
  const ahead = typeof s.ahead === "number" ? String(s.ahead) : t.unknown;
  facts.hidden = false;
  setText(el("queue-wait"), wait);
  setText(el("queue-ahead"), ahead);
  if (s.position === null) {
    setText(el("queue-place"), t.placeDrawn);
    say(fill(t.waitingDraw, { time: moment(s.opens_at) }), "note");
  } else {
    setText(el("queue-place"), String(s.position));
    say(fill(t.waiting, { place: s.position, ahead, wait }), "note");
  }
}

/** Once the wait is over: no more "keep this page open", nor when the sale opens. */
function endWaiting() {
  facts.hidden = true;
  setText(channel, "");
  for (const id of ["queue-intro", "queue-opens"]) {
    const node = el(id);
    if (node) node.hidden = true;
  }
}

function showAdmitted(admission) {
  endWaiting();
  if (config.returnUrl) {
    const target = new URL(config.returnUrl);
    target.searchParams.set("admission", admission.token);
    say(t.admittedGo, "ok");
    const go = link(t.continue, target.toString(), { button: true, top: config.iframe });
    showActions(go);
    // framed, only a click may take the visitor's whole window on (browsers refuse otherwise)
    if (config.iframe) go.focus();
    else window.location.replace(target.toString());
    return;
  }
  // no shop to take the admission to: the event page says where tickets are sold
  say(fill(t.admittedHere, { time: moment(admission.expires), orders: admission.orders_allowed }), "ok");
  showActions(link(t.eventPage, config.eventUrl, { button: true, top: config.iframe }));
}

function showExpired() {
  endWaiting();
  say(t.expired, "error");
  const again = document.createElement("button");
  again.type = "button";
  again.textContent = t.rejoin;
  again.addEventListener("click", () => {
    keepTicket(null);
    finished = false;
    showActions();
    say(t.joining, "note");
    join();
  });
  showActions(again);
}

function showClosed(text) {
  endWaiting();
  say(text, "error");
  showActions(link(t.eventPage, config.eventUrl, {}));
}

function finish() {
  finished = true;
  clearTimeout(pollTimer);
  if (socket) socket.close();
}

// ---- talking to the queue ----

/** A request to the API: { status, data } (data null without a JSON answer), null when unreachable. */
async function call(url, init) {
  try {
    const res = await fetch(url, { ...init, headers: { Accept: "application/json", ...(init.headers || {}) } });
    const type = res.headers.get("Content-Type") || "";
    const data = type.includes("json") ? await res.json() : null;
    return { status: res.status, data, retryAfter: Number(res.headers.get("Retry-After")) || 0 };
  } catch {
    return null;
  }
}

/** The answer was no QueueStatus: say so, and ask again later (longer each time). */
function retryLater(answer, again) {
  failures += 1;
  say(t.retrying, "error");
  const wait = Math.max(answer ? answer.retryAfter : 0, RETRY_SECONDS[Math.min(failures, RETRY_SECONDS.length) - 1]);
  clearTimeout(pollTimer);
  pollTimer = setTimeout(again, wait * 1000);
}

async function join() {
  const answer = await call(config.join, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ subevent: config.subevent }),
  });
  if (answer && answer.status === 201 && answer.data) {
    failures = 0;
    keepTicket(answer.data.ticket);
    render(answer.data);
    if (!finished) listen();
    return;
  }
  if (answer && answer.status === 404) return showClosed(t.noQueue);
  retryLater(answer, join);
}

async function poll() {
  if (finished) return;
  const answer = await call(config.status, { headers: { "X-Queue-Ticket": ticket } });
  if (finished) return;
  if (answer && answer.status === 200 && answer.data) {
    failures = 0;
    render(answer.data);
    if (!finished && !socket) schedulePoll();
    return;
  }
  // a ticket the queue does not know (malformed, another queue's): a new place
  if (answer && (answer.status === 400 || answer.status === 404)) {
    keepTicket(null);
    return join();
  }
  retryLater(answer, poll);
}

function schedulePoll() {
  clearTimeout(pollTimer);
  setText(channel, fill(t.polling, { n: pollSeconds }));
  pollTimer = setTimeout(poll, pollSeconds * 1000);
}

/** The WebSocket `live/`; without it (refused, blocked, closed early) the page polls. */
function listen() {
  if (typeof WebSocket !== "function") return schedulePoll();
  const url = new URL(config.live, window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("ticket", ticket);
  let ws;
  try {
    ws = new WebSocket(url.toString());
  } catch {
    return schedulePoll();
  }
  socket = ws;
  ws.addEventListener("open", () => {
    clearTimeout(pollTimer);
    setText(channel, t.live);
  });
  ws.addEventListener("message", (event) => {
    let status;
    try {
      status = JSON.parse(event.data);
    } catch {
      return;
    }
    failures = 0;
    socketWorked = true;
    render(status);
  });
  ws.addEventListener("close", () => {
    if (socket === ws) socket = null;
    if (finished) return;
    // an answer first; a connection that had delivered is tried again after it (a restart, a
    // deployment); one that never did (refused, blocked by a proxy) leaves the page polling
    poll().then(() => {
      if (socketWorked && !finished && !socket) {
        socketWorked = false;
        listen();
      }
    });
  });
}

async function start() {
  ticket = loadTicket();
  if (ticket === null) return join();
  await poll();
  if (!finished && ticket !== null && !socket) listen();
}

if (root) start();
