/**
 * The scan decision on its own (src/rules/checkin.ts): which ticket a scanned code means
 * (`chooseTicket`), and whether the scan passes a list (`decideScan`), with pretix's reason for
 * each refusal and pretix's order of the checks. `invalid` (an unknown code) and `revoked` are
 * decided by the caller before these run; their tests are in test/api/checkin.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Answer } from "../../src/db/schema";
import {
  type CheckinQuestion,
  checkinAnswers,
  chooseTicket,
  decideScan,
  insideAt,
  type ListConfig,
  mergeAnswers,
  type OrderFacts,
  onList,
  type Passage,
  type RulesFacts,
  type RulesVerdict,
  type ScanRequest,
  type TicketFacts,
  instantOfWallClock,
  nextExitAllAt,
  nextExitAllWall,
  ticketValidity,
  type ValiditySource,
  validityStart,
} from "../../src/rules/checkin";

const NOW = Date.UTC(2030, 5, 1, 12, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const TZ = "Europe/Berlin"; // UTC+2 in June

const TICKET = 1;
const SHIRT = 2;

function list(over: Partial<ListConfig> = {}): ListConfig {
  return {
    id: 10,
    eventId: 1,
    name: "Main entrance",
    allProducts: true,
    limitProducts: [],
    subeventId: null,
    includePending: false,
    allowMultipleEntries: false,
    allowEntryAfterExit: true,
    addonMatch: false,
    rules: {},
    exitAllAt: null,
    autoCheckinSalesChannels: [],
    ...over,
  };
}

function ticket(over: Partial<TicketFacts> = {}): TicketFacts {
  return {
    id: 100,
    secret: "base-secret",
    orderCode: "ABC12",
    addonTo: null,
    itemId: TICKET,
    variationId: null,
    subeventId: null,
    canceled: false,
    validFrom: null,
    validUntil: null,
    answers: [],
    blocked: false,
    ...over,
  };
}

function order(over: Partial<OrderFacts> = {}): OrderFacts {
  return {
    code: "ABC12",
    status: "p",
    requireApproval: false,
    validIfPending: false,
    checkinAttention: false,
    salesChannel: "web",
    locale: "en",
    ...over,
  };
}

function scan(over: Partial<ScanRequest> = {}): ScanRequest {
  return {
    type: "entry",
    datetime: NOW,
    force: false,
    ignoreUnpaid: false,
    nonce: null,
    questionsSupported: true,
    canceledSupported: true,
    answers: {},
    deviceId: null,
    ...over,
  };
}

function passage(type: "entry" | "exit", datetime: number, over: Partial<Passage> = {}): Passage {
  return { type, datetime, nonce: null, deviceId: null, auto: false, ...over };
}

const SHIRT_SIZE: CheckinQuestion = {
  id: 7,
  identifier: "SIZE",
  type: "C",
  items: [TICKET],
  options: [
    { id: 71, identifier: "S", answer: { en: "Small", de: "Klein" } },
    { id: 72, identifier: "L", answer: { en: "Large", de: "Groß" } },
  ],
};

type Case = {
  list?: Partial<ListConfig>;
  ticket?: Partial<TicketFacts>;
  order?: Partial<OrderFacts>;
  scan?: Partial<ScanRequest>;
  questions?: CheckinQuestion[];
  passages?: Passage[];
  rules?: RulesVerdict;
  fromRevokedSecret?: boolean;
};

/** The decision for a case, and what the rules were asked (undefined: not asked). */
function decide(c: Case = {}) {
  let asked: RulesFacts | undefined;
  const verdict = decideScan({
    list: list(c.list),
    ticket: ticket(c.ticket),
    order: order(c.order),
    questions: c.questions ?? [],
    passages: c.passages ?? [],
    scan: scan(c.scan),
    timezone: TZ,
    locale: "en",
    rules: (facts) => {
      asked = facts;
      return c.rules ?? { ok: true };
    },
    fromRevokedSecret: c.fromRevokedSecret,
  });
  return { verdict, asked };
}

/** The reason of a refusal, or the kind of any other verdict. */
function outcome(c: Case = {}): string {
  const { verdict } = decide(c);
  if (verdict.kind === "refuse") return verdict.reason;
  if (verdict.kind === "pass") return verdict.forced ? "pass (forced)" : "pass";
  return verdict.kind;
}

const RULES = { "==": [{ var: "product" }, TICKET] };

describe("decideScan: every reason it refuses with", () => {
  it("passes a paid, valid ticket on its list", () => {
    expect(decide().verdict).toEqual({ kind: "pass", forced: false, answers: [] });
  });

  it("canceled: a canceled ticket, or an order canceled or expired; unpaid for clients without canceled", () => {
    expect(outcome({ ticket: { canceled: true } })).toBe("canceled");
    expect(outcome({ order: { status: "c" } })).toBe("canceled");
    expect(outcome({ order: { status: "e" } })).toBe("canceled");
    expect(outcome({ ticket: { canceled: true }, scan: { canceledSupported: false } })).toBe("unpaid");
    expect(outcome({ order: { status: "e" }, scan: { canceledSupported: false } })).toBe("unpaid");
    expect(outcome({ ticket: { canceled: true }, scan: { type: "exit" } })).toBe("canceled");
  });

  it("blocked: a blocked ticket", () => {
    expect(outcome({ ticket: { blocked: true } })).toBe("blocked");
    expect(outcome({ ticket: { blocked: true }, scan: { type: "exit" } })).toBe("blocked");
  });

  it("invalid_time: before valid_from or after valid_until, explained in the event's timezone", () => {
    expect(decide({ ticket: { validFrom: NOW + HOUR } }).verdict).toEqual({
      kind: "refuse",
      reason: "invalid_time",
      explanation: "This ticket is only valid after 2030-06-01 15:00.",
      answers: [],
    });
    expect(decide({ ticket: { validUntil: NOW - HOUR } }).verdict).toEqual({
      kind: "refuse",
      reason: "invalid_time",
      explanation: "This ticket was only valid before 2030-06-01 13:00.",
      answers: [],
    });
    // the window includes its bounds
    expect(outcome({ ticket: { validFrom: NOW, validUntil: NOW } })).toBe("pass");
    expect(outcome({ ticket: { validFrom: NOW - HOUR, validUntil: NOW + HOUR } })).toBe("pass");
  });

  it("product: a product the list does not cover, or another date than the list's", () => {
    expect(outcome({ list: { allProducts: false, limitProducts: [SHIRT] } })).toBe("product");
    expect(outcome({ list: { allProducts: false, limitProducts: [SHIRT, TICKET] } })).toBe("pass");
    expect(outcome({ list: { allProducts: false, limitProducts: [] } })).toBe("product");
    expect(outcome({ list: { subeventId: 5 }, ticket: { subeventId: 6 } })).toBe("product");
    expect(outcome({ list: { subeventId: 5 }, ticket: { subeventId: null } })).toBe("product");
    expect(outcome({ list: { subeventId: 5 }, ticket: { subeventId: 5 } })).toBe("pass");
    expect(outcome({ list: { subeventId: null }, ticket: { subeventId: 6 } })).toBe("pass");
    expect(outcome({ list: { allProducts: false, limitProducts: [SHIRT] }, scan: { type: "exit" } })).toBe("product");
  });

  it("unapproved: a pending order that still needs approval, whatever else would admit it", () => {
    expect(outcome({ order: { status: "n", requireApproval: true } })).toBe("unapproved");
    expect(
      outcome({
        order: { status: "n", requireApproval: true, validIfPending: true },
        list: { includePending: true },
        scan: { ignoreUnpaid: true },
      }),
    ).toBe("unapproved");
    // a paid order's approval is done
    expect(outcome({ order: { status: "p", requireApproval: true } })).toBe("pass");
  });

  it("unpaid: a pending order, unless valid if pending or the client ignores unpaid on a list including pending", () => {
    expect(outcome({ order: { status: "n" } })).toBe("unpaid");
    expect(outcome({ order: { status: "n", validIfPending: true } })).toBe("pass");
    expect(outcome({ order: { status: "n" }, list: { includePending: true }, scan: { ignoreUnpaid: true } })).toBe(
      "pass",
    );
    expect(outcome({ order: { status: "n" }, list: { includePending: true } })).toBe("unpaid");
    expect(outcome({ order: { status: "n" }, scan: { ignoreUnpaid: true } })).toBe("unpaid");
    expect(outcome({ order: { status: "n" }, scan: { type: "exit" } })).toBe("unpaid");
  });

  it("rules: a refusal by the list's rules, with their explanation; the rules see the ticket, its passages and the scan's time", () => {
    const passages = [passage("entry", NOW - 2 * HOUR), passage("exit", NOW - HOUR)];
    const { verdict, asked } = decide({
      list: { rules: RULES },
      rules: { ok: false, explanation: "Wrong entrance gate" },
      passages,
      scan: { datetime: NOW - MINUTE },
    });
    expect(verdict).toEqual({ kind: "refuse", reason: "rules", explanation: "Wrong entrance gate", answers: [] });
    // and the language their explanation is written in
    expect(asked).toEqual({
      list: list({ rules: RULES }),
      ticket: ticket(),
      passages,
      now: NOW - MINUTE,
      locale: "en",
    });
    expect(decide({ list: { rules: RULES }, rules: { ok: false, explanation: null } }).verdict).toMatchObject({
      reason: "rules",
      explanation: null,
    });
    expect(outcome({ list: { rules: RULES }, rules: { ok: true } })).toBe("pass");
  });

  it("rules are asked only for entries on a list that has rules", () => {
    expect(decide({ list: { rules: {} }, rules: { ok: false, explanation: null } })).toEqual({
      verdict: { kind: "pass", forced: false, answers: [] },
      asked: undefined,
    });
    const exit = decide({ list: { rules: RULES }, rules: { ok: false, explanation: null }, scan: { type: "exit" } });
    expect(exit).toEqual({ verdict: { kind: "pass", forced: false, answers: [] }, asked: undefined });
  });

  it("incomplete: a question asked during check-in of the ticket's product without an answer", () => {
    expect(decide({ questions: [SHIRT_SIZE] }).verdict).toEqual({ kind: "incomplete", questions: [7], answers: [] });
    // answered before, or answered with the scan
    const earlier: Answer = {
      question: 7,
      answer: "Small",
      options: [71],
      question_identifier: "SIZE",
      option_identifiers: ["S"],
    };
    expect(outcome({ questions: [SHIRT_SIZE], ticket: { answers: [earlier] } })).toBe("pass");
    expect(decide({ questions: [SHIRT_SIZE], scan: { answers: { "7": "72" } } }).verdict).toEqual({
      kind: "pass",
      forced: false,
      answers: [
        { question: 7, question_identifier: "SIZE", answer: "Large", options: [72], option_identifiers: ["L"] },
      ],
    });
    // an answer that does not fit its question answers nothing
    expect(outcome({ questions: [SHIRT_SIZE], scan: { answers: { "7": "99" } } })).toBe("incomplete");
    // a question of another product is not asked; a client without questions is not asked; exits are not asked
    expect(outcome({ questions: [{ ...SHIRT_SIZE, items: [SHIRT] }] })).toBe("pass");
    expect(outcome({ questions: [SHIRT_SIZE], scan: { questionsSupported: false } })).toBe("pass");
    expect(outcome({ questions: [SHIRT_SIZE], scan: { type: "exit" } })).toBe("pass");
  });

  it("already_redeemed: an entry of a ticket that is inside", () => {
    expect(outcome({ passages: [passage("entry", NOW - HOUR)] })).toBe("already_redeemed");
    expect(outcome({ passages: [passage("entry", NOW - HOUR)], list: { allowMultipleEntries: true } })).toBe("pass");
    // after an exit: in again only where the list allows entry after exit
    const inAndOut = [passage("entry", NOW - 2 * HOUR), passage("exit", NOW - HOUR)];
    expect(outcome({ passages: inAndOut, list: { allowEntryAfterExit: true } })).toBe("pass");
    expect(outcome({ passages: inAndOut, list: { allowEntryAfterExit: false } })).toBe("already_redeemed");
    // only exits so far: never entered
    expect(outcome({ passages: [passage("exit", NOW - HOUR)], list: { allowEntryAfterExit: false } })).toBe("pass");
    // out and in again: inside
    const backIn = [...inAndOut, passage("entry", NOW - MINUTE)];
    expect(outcome({ passages: backIn, list: { allowEntryAfterExit: true } })).toBe("already_redeemed");
  });

  it("answers given with the scan are kept on a refusal after the questions are read", () => {
    const given = { "7": "71" };
    const answers = [
      { question: 7, question_identifier: "SIZE", answer: "Small", options: [71], option_identifiers: ["S"] },
    ];
    const refused = (c: Case) => decide({ questions: [SHIRT_SIZE], scan: { answers: given }, ...c }).verdict;
    expect(refused({ passages: [passage("entry", NOW - HOUR)] })).toMatchObject({
      reason: "already_redeemed",
      answers,
    });
    expect(refused({ list: { allProducts: false, limitProducts: [TICKET], subeventId: 5 } })).toMatchObject({
      reason: "product",
      answers,
    });
    expect(refused({ order: { status: "n" } })).toMatchObject({ reason: "unpaid", answers });
    expect(refused({ list: { rules: RULES }, rules: { ok: false, explanation: null } })).toMatchObject({
      reason: "rules",
      answers,
    });
    // the checks before the questions refuse without answers
    expect(refused({ ticket: { validFrom: NOW + HOUR } })).toMatchObject({ reason: "invalid_time", answers: [] });
    expect(refused({ ticket: { blocked: true } })).toMatchObject({ reason: "blocked", answers: [] });
  });
});

describe("decideScan: the order of the checks (a ticket failing several gets the first one's reason)", () => {
  // A ticket that fails every check; each step repairs the check that refused it, so the next
  // reason shows which check comes next.
  const everythingWrong: Case = {
    ticket: { canceled: true, blocked: true, validFrom: NOW + HOUR, itemId: SHIRT },
    order: { status: "n", requireApproval: true },
    list: { allProducts: false, limitProducts: [TICKET], rules: RULES },
    rules: { ok: false, explanation: "Ticket type not allowed" },
    questions: [{ ...SHIRT_SIZE, items: [TICKET, SHIRT] }],
    passages: [passage("entry", NOW - HOUR)],
  };
  const repairs: [string, (c: Case) => Case][] = [
    ["canceled", (c) => ({ ...c, ticket: { ...c.ticket, canceled: false } })],
    ["blocked", (c) => ({ ...c, ticket: { ...c.ticket, blocked: false } })],
    ["invalid_time", (c) => ({ ...c, ticket: { ...c.ticket, validFrom: null } })],
    ["product", (c) => ({ ...c, ticket: { ...c.ticket, itemId: TICKET } })],
    ["unapproved", (c) => ({ ...c, order: { ...c.order, requireApproval: false } })],
    ["unpaid", (c) => ({ ...c, order: { ...c.order, status: "p" } })],
    ["rules", (c) => ({ ...c, rules: { ok: true } })],
    ["incomplete", (c) => ({ ...c, scan: { answers: { "7": "71" } } })],
    ["already_redeemed", (c) => ({ ...c, passages: [] })],
  ];

  it("canceled, blocked, validity, product and date, approval, payment, rules, questions, already inside", () => {
    let c = everythingWrong;
    const seen: string[] = [];
    for (const [, repair] of repairs) {
      seen.push(outcome(c));
      c = repair(c);
    }
    seen.push(outcome(c));
    expect(seen).toEqual([...repairs.map(([reason]) => reason), "pass"]);
  });

  it("the date is checked with the product; valid_from before valid_until", () => {
    expect(
      outcome({ ticket: { subeventId: 6 }, list: { subeventId: 5 }, order: { status: "n", requireApproval: true } }),
    ).toBe("product");
    expect(decide({ ticket: { validFrom: NOW + HOUR, validUntil: NOW - HOUR } }).verdict).toMatchObject({
      reason: "invalid_time",
      explanation: "This ticket is only valid after 2030-06-01 15:00.",
    });
  });

  it("a refused check stops the decision: later checks are not asked", () => {
    const { asked } = decide({ ...everythingWrong, ticket: {}, order: { status: "n" } });
    expect(asked).toBeUndefined();
  });
});

describe("decideScan: exits", () => {
  it("an exit skips the validity window, the rules, the questions and who is inside", () => {
    const exit = (c: Case) => outcome({ ...c, scan: { type: "exit", ...c.scan } });
    expect(exit({ ticket: { validFrom: NOW + HOUR } })).toBe("pass");
    expect(exit({ ticket: { validUntil: NOW - HOUR } })).toBe("pass");
    expect(exit({ list: { rules: RULES }, rules: { ok: false, explanation: null } })).toBe("pass");
    expect(exit({ questions: [SHIRT_SIZE] })).toBe("pass");
    expect(exit({ passages: [passage("exit", NOW - HOUR)], list: { allowEntryAfterExit: false } })).toBe("pass");
    expect(exit({ passages: [] })).toBe("pass");
  });

  it("an exit keeps no answers even when they are sent", () => {
    expect(decide({ questions: [SHIRT_SIZE], scan: { type: "exit", answers: { "7": "71" } } }).verdict).toEqual({
      kind: "pass",
      forced: false,
      answers: [],
    });
  });
});

describe("decideScan: repeated scans (nonce)", () => {
  it("a nonce already recorded as the last passage, or for the same type and device, is a repeat", () => {
    const last = passage("entry", NOW - HOUR, { nonce: "n1", deviceId: 3 });
    expect(outcome({ passages: [last], scan: { nonce: "n1" } })).toBe("repeat");
    const earlier = [last, passage("exit", NOW - MINUTE, { nonce: "n2", deviceId: 3 })];
    expect(outcome({ passages: earlier, scan: { nonce: "n1", deviceId: 3 } })).toBe("repeat");
    // the same nonce from another device, not the last passage: a new scan
    expect(outcome({ passages: earlier, scan: { nonce: "n1", deviceId: 4 } })).toBe("pass");
    // an exit's nonce, not the last passage, does not repeat an entry
    const outAndIn = [
      passage("exit", NOW - HOUR, { nonce: "n2", deviceId: 3 }),
      passage("entry", NOW - MINUTE, { nonce: "n3" }),
    ];
    expect(
      outcome({ passages: outAndIn, scan: { nonce: "n2", deviceId: 3 }, list: { allowMultipleEntries: true } }),
    ).toBe("pass");
    expect(outcome({ passages: outAndIn, scan: { nonce: "n2", deviceId: 3, type: "exit" } })).toBe("repeat");
    // no nonce: never a repeat
    expect(outcome({ passages: [passage("entry", NOW - HOUR)], scan: { nonce: null } })).toBe("already_redeemed");
  });

  it("a repeat is still refused by the checks before it", () => {
    const last = passage("entry", NOW - HOUR, { nonce: "n1" });
    expect(outcome({ passages: [last], scan: { nonce: "n1" }, ticket: { blocked: true } })).toBe("blocked");
  });
});

describe("decideScan: forced scans", () => {
  it("force passes every check and marks the check-in forced where a check would have refused", () => {
    const forced = (c: Case) => outcome({ ...c, scan: { force: true, ...c.scan } });
    expect(forced({ ticket: { canceled: true } })).toBe("pass (forced)");
    expect(forced({ ticket: { blocked: true } })).toBe("pass (forced)");
    expect(forced({ ticket: { validFrom: NOW + HOUR } })).toBe("pass (forced)");
    expect(forced({ ticket: { validUntil: NOW - HOUR } })).toBe("pass (forced)");
    expect(forced({ list: { allProducts: false, limitProducts: [SHIRT] } })).toBe("pass (forced)");
    expect(forced({ list: { subeventId: 5 } })).toBe("pass (forced)");
    expect(forced({ order: { status: "n", requireApproval: true } })).toBe("pass (forced)");
    expect(forced({ order: { status: "n" } })).toBe("pass (forced)");
    expect(forced({ list: { rules: RULES }, rules: { ok: false, explanation: null } })).toBe("pass (forced)");
    expect(forced({ passages: [passage("entry", NOW - HOUR)] })).toBe("pass (forced)");
  });

  it("a forced scan nothing refuses is not marked forced; one from a revoked secret always is", () => {
    expect(decide({ scan: { force: true } }).verdict).toEqual({ kind: "pass", forced: false, answers: [] });
    expect(decide({ scan: { force: true }, fromRevokedSecret: true }).verdict).toEqual({
      kind: "pass",
      forced: true,
      answers: [],
    });
    expect(decide({ fromRevokedSecret: true }).verdict).toEqual({ kind: "pass", forced: false, answers: [] });
  });

  it("a forced scan is not held up by missing answers, and a repeat stays a repeat", () => {
    expect(outcome({ questions: [SHIRT_SIZE], scan: { force: true } })).toBe("pass");
    const last = passage("entry", NOW - HOUR, { nonce: "n1" });
    expect(outcome({ passages: [last], scan: { nonce: "n1", force: true } })).toBe("repeat");
  });
});

describe("chooseTicket: which ticket a scanned code means", () => {
  const base = ticket({ id: 1, secret: "base", itemId: TICKET });
  const addon = (id: number, over: Partial<TicketFacts> = {}) =>
    ticket({ id, secret: `addon-${id}`, addonTo: 1, itemId: SHIRT, ...over });
  const shirtsOnly = list({ allProducts: false, limitProducts: [SHIRT], addonMatch: true });

  it("no candidate: none; one candidate: that ticket, on the list or not", () => {
    expect(chooseTicket("x", [], list(), NOW)).toEqual({ kind: "none" });
    expect(chooseTicket("base", [base], shirtsOnly, NOW)).toEqual({ kind: "one", ticket: base });
  });

  it("with addon_match: the one add-on whose product is on the list", () => {
    expect(chooseTicket("base", [base, addon(2)], shirtsOnly, NOW)).toEqual({ kind: "one", ticket: addon(2) });
  });

  it("without addon_match: only the ticket with the scanned secret counts", () => {
    const noMatch = { ...shirtsOnly, addonMatch: false };
    // the base ticket is not on the list: it is the ticket meant (and the decision refuses its product)
    expect(chooseTicket("base", [base, addon(2)], noMatch, NOW)).toEqual({ kind: "one", ticket: base });
    expect(chooseTicket("base", [base, addon(2)], list(), NOW)).toEqual({ kind: "one", ticket: base });
  });

  it("several add-ons on the list: the one valid now; several valid: ambiguous, naming the base ticket", () => {
    const expired = addon(2, { validUntil: NOW - HOUR });
    const current = addon(3, { validFrom: NOW - HOUR, validUntil: NOW + HOUR });
    const future = addon(4, { validFrom: NOW + HOUR });
    expect(chooseTicket("base", [base, expired, current, future], shirtsOnly, NOW)).toEqual({
      kind: "one",
      ticket: current,
    });
    expect(chooseTicket("base", [base, addon(2), addon(3)], shirtsOnly, NOW)).toEqual({
      kind: "ambiguous",
      ticket: base,
    });
    // none valid now: the base ticket
    expect(chooseTicket("base", [base, expired, future], shirtsOnly, NOW)).toEqual({ kind: "one", ticket: base });
  });

  it("validity is read at the scan's time, bounds included, as decideScan reads it: the ticket chosen for it passes", () => {
    const at = NOW - 2 * HOUR; // an offline scan uploaded later
    const endsAtScan = addon(2, { validUntil: at });
    const startsAfter = addon(3, { validFrom: at + MINUTE });
    const startsAtScan = addon(4, { validFrom: at });
    expect(chooseTicket("base", [base, endsAtScan, startsAfter], shirtsOnly, at)).toEqual({
      kind: "one",
      ticket: endsAtScan,
    });
    expect(chooseTicket("base", [base, startsAtScan, startsAfter], shirtsOnly, at)).toEqual({
      kind: "one",
      ticket: startsAtScan,
    });
    for (const windowed of [endsAtScan, startsAtScan]) {
      const chosen = chooseTicket("base", [base, windowed, startsAfter], shirtsOnly, at);
      expect(chosen.kind).toBe("one");
      const { verdict } = decide({
        list: shirtsOnly,
        ticket: (chosen as { ticket: TicketFacts }).ticket,
        scan: { datetime: at },
      });
      expect(verdict.kind).toBe("pass");
    }
    // at the scan's time, not the server's: at NOW the first has ended and the second begun
    expect(chooseTicket("base", [base, endsAtScan, startsAfter], shirtsOnly, NOW)).toEqual({
      kind: "one",
      ticket: startsAfter,
    });
  });

  it("onList: by product (all or listed) and date, not by order status", () => {
    expect(onList(list(), ticket())).toBe(true);
    expect(onList(list({ allProducts: false, limitProducts: [SHIRT] }), ticket())).toBe(false);
    expect(onList(list({ subeventId: 5 }), ticket({ subeventId: 5 }))).toBe(true);
    expect(onList(list({ subeventId: 5 }), ticket({ subeventId: 6 }))).toBe(false);
  });
});

describe("checkinAnswers and mergeAnswers: answers given at the door", () => {
  const q = (id: number, type: string, over: Partial<CheckinQuestion> = {}): CheckinQuestion => ({
    ...SHIRT_SIZE,
    id,
    identifier: `Q${id}`,
    type,
    ...over,
  });
  const plain = (question: number, answer: string) => ({
    question,
    question_identifier: `Q${question}`,
    answer,
    options: [],
    option_identifiers: [],
  });

  it("keeps answers that fit their question, in the question's form, and ignores the rest", () => {
    const questions = [q(1, "C"), q(2, "M"), q(3, "B"), q(4, "N"), q(5, "S"), q(6, "F"), q(7, "B"), q(8, "N")];
    const answers = checkinAnswers(
      questions,
      { "1": "72", "2": "71, 72", "3": "yes", "4": "-1.5", "5": "  text  ", "6": "file", "7": "maybe", "8": "1e3" },
      "de",
    );
    expect(answers).toEqual([
      { question: 1, question_identifier: "Q1", answer: "Groß", options: [72], option_identifiers: ["L"] },
      {
        question: 2,
        question_identifier: "Q2",
        answer: "Klein, Groß",
        options: [71, 72],
        option_identifiers: ["S", "L"],
      },
      plain(3, "True"),
      plain(4, "-1.5"),
      plain(5, "text"),
    ]);
    // a single choice with two options, an unknown option, an empty answer: nothing
    expect(checkinAnswers([q(1, "C"), q(2, "M"), q(3, "S")], { "1": "71,72", "2": "71,99", "3": "  " }, "en")).toEqual(
      [],
    );
    expect(checkinAnswers([q(3, "B")], { "3": "0" }, "en")).toEqual([plain(3, "False")]);
    expect(checkinAnswers([q(5, "T")], { "5": "x".repeat(10_001) }, "en")[0]?.answer).toHaveLength(10_000);
  });

  it("the door's answers replace the ticket's earlier answers to the same questions", () => {
    expect(mergeAnswers([plain(1, "old"), plain(2, "kept")], [plain(1, "new")])).toEqual([
      plain(2, "kept"),
      plain(1, "new"),
    ]);
  });
});

describe("passages: who is inside", () => {
  it("insideAt: the last passage at or before the time is an entry", () => {
    const ps = [passage("entry", NOW - HOUR), passage("exit", NOW)];
    expect(insideAt(ps, NOW - 2 * HOUR)).toBe(false);
    expect(insideAt(ps, NOW - HOUR)).toBe(true);
    expect(insideAt(ps, NOW)).toBe(false);
    expect(insideAt([], NOW)).toBe(false);
  });
});

describe("ticketValidity: a new ticket's window from its product (pretix's Item.compute_validity)", () => {
  const none: ValiditySource = {
    validityMode: null,
    validityFixedFrom: null,
    validityFixedUntil: null,
    validityDynamicDurationMinutes: null,
    validityDynamicDurationHours: null,
    validityDynamicDurationDays: null,
    validityDynamicDurationMonths: null,
    validityDynamicStartChoice: false,
    validityDynamicStartChoiceDayLimit: null,
  };
  const dynamic = (over: Partial<ValiditySource>): ValiditySource => ({ ...none, validityMode: "dynamic", ...over });
  /** The instant of a Berlin wall-clock time (CET +1 in winter, CEST +2 in summer). */
  const berlin = (iso: string, offset: "+01:00" | "+02:00") => Date.parse(`${iso}${offset}`);
  const until = (item: ValiditySource, start: number) => ticketValidity(item, start, TZ).validUntil;

  it("fixed copies the product's window; no mode gives no window", () => {
    expect(
      ticketValidity({ ...none, validityMode: "fixed", validityFixedFrom: 1, validityFixedUntil: 2 }, NOW, TZ),
    ).toEqual({ validFrom: 1, validUntil: 2 });
    expect(ticketValidity(none, NOW, TZ)).toEqual({ validFrom: null, validUntil: null });
  });

  it("minutes and hours: from the start, on the wall clock; no duration at all ends where it starts", () => {
    const start = Date.UTC(2030, 4, 10, 10, 0, 12, 345);
    expect(ticketValidity(dynamic({ validityDynamicDurationMinutes: 30 }), start, TZ)).toEqual({
      validFrom: start,
      validUntil: start + 30 * MINUTE,
    });
    expect(until(dynamic({ validityDynamicDurationHours: 2, validityDynamicDurationMinutes: 5 }), start)).toBe(
      start + 125 * MINUTE,
    );
    expect(ticketValidity(dynamic({}), start, TZ)).toEqual({ validFrom: start, validUntil: start });
  });

  it("days: to 23:59:59 of the last day in the event's timezone (one day: the day of the start)", () => {
    const start = berlin("2030-05-10T12:00:00", "+02:00");
    expect(until(dynamic({ validityDynamicDurationDays: 1 }), start)).toBe(berlin("2030-05-10T23:59:59", "+02:00"));
    expect(until(dynamic({ validityDynamicDurationDays: 3 }), start)).toBe(berlin("2030-05-12T23:59:59", "+02:00"));
    // a start after midnight local time, before midnight UTC, counts the local day
    const late = berlin("2030-05-11T00:30:00", "+02:00");
    expect(until(dynamic({ validityDynamicDurationDays: 1 }), late)).toBe(berlin("2030-05-11T23:59:59", "+02:00"));
  });

  it("months: to the day before the same day of the month; a month's last day runs to the target month's last", () => {
    const months = (n: number, days: number | null = null) =>
      dynamic({ validityDynamicDurationMonths: n, validityDynamicDurationDays: days });
    expect(until(months(1), berlin("2024-01-15T10:00:00", "+01:00"))).toBe(berlin("2024-02-14T23:59:59", "+01:00"));
    // starting on the 1st: the day before is the last of a month, so the pass runs to the end of the month
    expect(until(months(1), berlin("2024-03-01T10:00:00", "+01:00"))).toBe(berlin("2024-03-31T23:59:59", "+02:00"));
    expect(until(months(1), berlin("2024-02-01T10:00:00", "+01:00"))).toBe(berlin("2024-02-29T23:59:59", "+01:00"));
    // a day the target month lacks: its last day
    expect(until(months(1), berlin("2024-01-31T12:00:00", "+01:00"))).toBe(berlin("2024-02-29T23:59:59", "+01:00"));
    expect(until(months(13), berlin("2024-01-15T10:00:00", "+01:00"))).toBe(berlin("2025-02-14T23:59:59", "+01:00"));
    // months, then days, then hours and minutes
    expect(until(months(1, 2), berlin("2024-01-15T10:00:00", "+01:00"))).toBe(berlin("2024-02-16T23:59:59", "+01:00"));
    expect(
      until(
        dynamic({
          validityDynamicDurationMonths: 1,
          validityDynamicDurationDays: 1,
          validityDynamicDurationHours: 2,
          validityDynamicDurationMinutes: 30,
        }),
        Date.UTC(2030, 4, 10, 10, 0),
      ),
    ).toBe(berlin("2030-06-11T02:29:59", "+02:00"));
  });

  it("across a daylight saving change: the wall clock counts; an end the clocks skip is an hour later", () => {
    // 24 hours from noon before summer time starts end at noon the next day: 23 hours later
    expect(until(dynamic({ validityDynamicDurationHours: 24 }), berlin("2024-03-30T12:00:00", "+01:00"))).toBe(
      berlin("2024-03-31T12:00:00", "+02:00"),
    );
    // 01:45 + 30 minutes is 02:15, which 2024-03-31 skips: 03:15
    expect(until(dynamic({ validityDynamicDurationMinutes: 30 }), berlin("2024-03-31T01:45:00", "+01:00"))).toBe(
      berlin("2024-03-31T03:15:00", "+02:00"),
    );
    // 02:50 is there twice on 2024-10-27: the first (summer time) counts
    expect(until(dynamic({ validityDynamicDurationMinutes: 60 }), berlin("2024-10-27T01:50:00", "+02:00"))).toBe(
      berlin("2024-10-27T02:50:00", "+02:00"),
    );
  });

  it("validityStart: the purchase, or the buyer's start when the product allows it (not past, within the day limit)", () => {
    const later = NOW + 30 * 86_400_000;
    expect(validityStart(dynamic({}), NOW, later)).toBe(NOW);
    expect(validityStart(dynamic({ validityDynamicStartChoice: true }), NOW, later)).toBe(later);
    expect(validityStart(dynamic({ validityDynamicStartChoice: true }), NOW, NOW - HOUR)).toBe(NOW);
    expect(validityStart(dynamic({ validityDynamicStartChoice: true }), NOW, null)).toBe(NOW);
    expect(
      validityStart(dynamic({ validityDynamicStartChoice: true, validityDynamicStartChoiceDayLimit: 24 }), NOW, later),
    ).toBe(NOW + 24 * 86_400_000);
    expect(validityStart(dynamic({ validityDynamicStartChoiceDayLimit: 24 }), NOW, later)).toBe(NOW);
  });
});

describe("nextExitAllAt: pretix's automatic exit a day later across daylight saving changes (test_auto_check_out_dst)", () => {
  const berlin = (iso: string, offset: "+01:00" | "+02:00") => Date.parse(`${iso}${offset}`);
  /** The firings after `at`, each moved from the one before as the event object moves them. */
  function firings(at: number, n: number): number[] {
    const out: number[] = [];
    let meant: number | null = null;
    for (let i = 0; i < n; i++) {
      const wall = nextExitAllWall(at, TZ, meant);
      const next = nextExitAllAt(at, TZ, meant);
      expect(next).toBe(instantOfWallClock(wall, TZ, 1));
      out.push(next);
      [at, meant] = [next, wall];
    }
    return out;
  }

  it("a time the change does not touch keeps its local time", () => {
    expect(firings(berlin("2021-03-28T01:00:00", "+01:00"), 1)).toEqual([berlin("2021-03-29T01:00:00", "+02:00")]);
  });

  it("a time the day repeats: its second occurrence, then the same local time", () => {
    expect(firings(berlin("2021-10-30T02:30:00", "+02:00"), 2)).toEqual([
      berlin("2021-10-31T02:30:00", "+01:00"),
      berlin("2021-11-01T02:30:00", "+01:00"),
    ]);
  });

  it("a time the day skips: an hour later that day, then back to the configured local time", () => {
    expect(firings(berlin("2021-03-27T02:30:00", "+01:00"), 3)).toEqual([
      berlin("2021-03-28T03:30:00", "+02:00"),
      berlin("2021-03-29T02:30:00", "+02:00"),
      berlin("2021-03-30T02:30:00", "+02:00"),
    ]);
    // without the remembered time, the shifted one would stay (what a list set to 03:30 gets)
    expect(nextExitAllAt(berlin("2021-03-28T03:30:00", "+02:00"), TZ)).toBe(berlin("2021-03-29T03:30:00", "+02:00"));
  });
});
