/**
 * The waiting page's script (src/pages/waiting-room.browser.js) once the queue answers: run in
 * node:vm against a small stand-in of the page's DOM and of fetch. Admitted, the page no longer
 * says "keep this page open" nor when the sale opens, shows no admission token, and goes on to
 * the return_url (or the event's shop_url, which the page hands over the same way) with the
 * token, else leads to the event page. The whole script in a real browser: test/browser/.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { QUEUE_TEXTS } from "../../src/pages/waiting-room-texts.ts";

const SCRIPT = readFileSync(path.resolve(import.meta.dirname, "../../src/pages/waiting-room.browser.js"), "utf8");
const TOKEN = `qa1.${"x".repeat(146)}`;

/** An element of the stand-in DOM: what the script reads and writes. */
class El {
  children: El[] = [];
  hidden = false;
  className = "";
  href = "";
  target = "";
  type = "";
  id = "";
  dataset: Record<string, string> = {};
  style: Record<string, string> = {};
  private own = "";
  readonly tagName: string;
  constructor(tagName: string) {
    this.tagName = tagName;
  }
  get textContent(): string {
    return this.own + this.children.map((c) => c.textContent).join("");
  }
  set textContent(v: string) {
    this.own = v;
    this.children = [];
  }
  append(...nodes: (El | string)[]) {
    for (const n of nodes) {
      if (typeof n === "string") this.own += n;
      else this.children.push(n);
    }
  }
  replaceChildren(...nodes: El[]) {
    this.own = "";
    this.children = [...nodes];
  }
  addEventListener() {}
  focus() {}
  /** Every element below this one. */
  all(): El[] {
    return this.children.flatMap((c) => [c, ...c.all()]);
  }
}

type Status = Record<string, unknown>;

/** Runs the script on a waiting page whose join answers `status`; the page's elements and where it went. */
async function run(status: Status, opts: { returnUrl?: string | null } = {}) {
  const ids = [
    "queue",
    "queue-intro",
    "queue-opens",
    "queue-status",
    "queue-facts",
    "queue-place",
    "queue-ahead",
    "queue-wait",
    "queue-actions",
    "queue-channel",
  ];
  const els = new Map(ids.map((id) => [id, Object.assign(new El("p"), { id })]));
  els.get("queue")!.dataset.config = JSON.stringify({
    join: "/api/v1/organizers/o/events/e/queue/join/",
    status: "/api/v1/organizers/o/events/e/queue/status/",
    live: "/api/v1/organizers/o/events/e/queue/live/",
    subevent: null,
    storageKey: "onsale-queue:o/e/",
    returnUrl: opts.returnUrl ?? null,
    iframe: false,
    eventUrl: "https://tickets.example.org/o/e/",
    locale: "en-GB",
    timeZone: "Europe/Berlin",
    texts: QUEUE_TEXTS.en,
  });
  els.get("queue-intro")!.textContent = QUEUE_TEXTS.en.intro;
  els.get("queue-opens")!.textContent = "The sale opens on Fri, 1 March 2030 at 10:00 CET.";
  const went: string[] = [];
  const storage = new Map<string, string>();
  const context = vm.createContext({
    document: { getElementById: (id: string) => els.get(id) ?? null, createElement: (tag: string) => new El(tag) },
    window: {
      location: { href: "https://tickets.example.org/o/e/queue/", replace: (u: string) => went.push(u) },
      sessionStorage: {
        getItem: (k: string) => storage.get(k) ?? null,
        setItem: (k: string, v: string) => storage.set(k, v),
        removeItem: (k: string) => storage.delete(k),
      },
    },
    fetch: async () => ({
      status: 201,
      headers: { get: (h: string) => (h === "Content-Type" ? "application/json" : null) },
      json: async () => ({ ticket: "qt1.ticket", poll_seconds: 5, ...status }),
    }),
    URL,
    setTimeout: () => 0,
    clearTimeout: () => {},
  });
  vm.runInContext(SCRIPT, context);
  await new Promise((r) => setTimeout(r, 20));
  const facts = ["queue-place", "queue-ahead", "queue-wait"];
  const page = [...els.values()].filter((e) => e.id !== "queue");
  const visible = page
    .filter((e) => !e.hidden && !(facts.includes(e.id) && els.get("queue-facts")!.hidden))
    .map((e) => e.textContent)
    .join("\n");
  const links = els
    .get("queue-actions")!
    .all()
    .filter((e) => e.tagName === "a")
    .map((a) => ({ text: a.textContent, href: a.href }));
  return { els, went, visible, links, everything: page.map((e) => e.textContent).join("\n") };
}

const admitted = {
  state: "admitted",
  opens_at: "2030-03-01T09:00:00Z",
  admission: { token: TOKEN, expires: "2030-03-01T09:20:00Z", orders_allowed: 1 },
};

describe("the waiting page's script once admitted", () => {
  it("without a return_url or shop_url: no waiting words, no token, the admission's terms and the event page", async () => {
    const r = await run(admitted);
    expect(r.els.get("queue-intro")!.hidden).toBe(true);
    expect(r.els.get("queue-opens")!.hidden).toBe(true);
    expect(r.els.get("queue-facts")!.hidden).toBe(true);
    expect(r.visible).not.toContain("keep this page open");
    expect(r.visible).not.toContain("The sale opens on");
    expect(r.everything).not.toContain(TOKEN);
    expect(r.everything).not.toContain("admission code");
    expect(r.els.get("queue-status")!.textContent).toMatch(
      /^It is your turn! Your admission is valid until .*10:20.* and allows 1 order\(s\)\. The event page says where tickets are sold\.$/,
    );
    expect(r.links).toEqual([{ text: "Go to the event page", href: "https://tickets.example.org/o/e/" }]);
    expect(r.went).toEqual([]);
  });

  it("with a return_url or the event's shop_url: on to it with the admission token", async () => {
    const r = await run(admitted, { returnUrl: "https://shop.example.org/tickets?x=1" });
    expect(r.went).toEqual([`https://shop.example.org/tickets?x=1&admission=${TOKEN}`]);
    expect(r.els.get("queue-intro")!.hidden).toBe(true);
    expect(r.els.get("queue-opens")!.hidden).toBe(true);
    expect(r.els.get("queue-status")!.textContent).toBe("It is your turn! Taking you to the shop…");
  });

  it("waiting, the words stay; expired or closed, they go", async () => {
    const waiting = await run({ state: "waiting", opens_at: "2030-03-01T09:00:00Z", position: 3, ahead: 2 });
    expect(waiting.visible).toContain("keep this page open");
    expect(waiting.visible).toContain("The sale opens on");
    expect(waiting.els.get("queue-status")!.textContent).toContain("Your place: 3. People ahead of you: 2.");
    for (const state of ["expired", "closed"]) {
      const r = await run({ state });
      expect(r.visible, state).not.toContain("keep this page open");
      expect(r.visible, state).not.toContain("The sale opens on");
    }
  });
});
