/**
 * The language of a scan's texts (src/rules/checkin-texts.ts): pretix's English and German texts
 * of the validity window (decideScan) and of the check-in rules' explanation, with each
 * language's short date formats; any other language is English.
 */
import { describe, expect, it } from "vitest";
import { decideScan, type ListConfig, type ScanRequest, type TicketFacts } from "../../src/rules/checkin";
import { evaluateRules, type RuleFacts } from "../../src/rules/checkin-rules";
import { shortDateTime, text, textLanguage, weekdayName } from "../../src/rules/checkin-texts";

const TZ = "Europe/Berlin";

describe("texts", () => {
  it("German for de and its variants, English for every other language", () => {
    expect(["de", "de-informal", "DE-at"].map(textLanguage)).toEqual(["de", "de", "de"]);
    expect(["en", "fr", "nl-informal", "", null, undefined].map(textLanguage)).toEqual([
      "en",
      "en",
      "en",
      "en",
      "en",
      "en",
    ]);
  });

  it("a text with its placeholders filled; a text without a German entry stays English", () => {
    expect(text("de", "This ticket is only valid after {datetime}.", { datetime: "X" })).toBe("Erst ab X gültig.");
    expect(text("en", "This ticket is only valid after {datetime}.", { datetime: "X" })).toBe(
      "This ticket is only valid after X.",
    );
    expect(text("de", "Always false")).toBe("Always false");
    expect(text("de", "Wrong entrance gate")).toBe("Falscher Eingang");
    expect(text("de", "Maximum {variable} exceeded", { variable: text("de", "number of entries") })).toBe(
      "Maximale Anzahl Eintritte überschritten",
    );
  });

  it("short date and time: Y-m-d H:i in English, d.m.Y H:i in German; week days", () => {
    const wall = Date.UTC(2020, 0, 2, 9, 5);
    expect(shortDateTime(wall, "en")).toBe("2020-01-02 09:05");
    expect(shortDateTime(wall, "de")).toBe("02.01.2020 09:05");
    expect([weekdayName(6, "en"), weekdayName(6, "de"), weekdayName(7, "de")]).toEqual([
      "Saturday",
      "Samstag",
      "Sonntag",
    ]);
  });
});

describe("decideScan writes the validity window in its locale", () => {
  const list: ListConfig = {
    id: 1,
    eventId: 1,
    name: "Entrance",
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
  };
  const ticket = (over: Partial<TicketFacts>): TicketFacts => ({
    id: 1,
    secret: "s",
    orderCode: "ABC12",
    addonTo: null,
    itemId: 1,
    variationId: null,
    subeventId: null,
    canceled: false,
    validFrom: null,
    validUntil: null,
    answers: [],
    blocked: false,
    ...over,
  });
  const scan: ScanRequest = {
    type: "entry",
    datetime: Date.parse("2020-01-01T10:45:00Z"),
    force: false,
    ignoreUnpaid: false,
    nonce: null,
    questionsSupported: true,
    canceledSupported: true,
    answers: {},
    deviceId: null,
  };
  const explained = (t: TicketFacts, locale: string) => {
    const v = decideScan({
      list,
      ticket: t,
      order: {
        code: "ABC12",
        status: "p",
        requireApproval: false,
        validIfPending: false,
        checkinAttention: false,
        salesChannel: "web",
        locale: "de",
      },
      questions: [],
      passages: [],
      scan,
      timezone: TZ,
      locale,
      rules: () => ({ ok: true }),
    });
    return v.kind === "refuse" ? [v.reason, v.explanation] : [v.kind];
  };

  it("pretix's texts in English and German (base/test_checkin.py test_checkin_valid_from / _until)", () => {
    const early = ticket({ validFrom: Date.parse("2020-01-01T12:00:00+01:00") });
    const late = ticket({ validUntil: Date.parse("2020-01-01T09:00:00+01:00") });
    expect(explained(early, "en")).toEqual(["invalid_time", "This ticket is only valid after 2020-01-01 12:00."]);
    expect(explained(early, "de")).toEqual(["invalid_time", "Erst ab 01.01.2020 12:00 gültig."]);
    expect(explained(late, "en")).toEqual(["invalid_time", "This ticket was only valid before 2020-01-01 09:00."]);
    expect(explained(late, "de")).toEqual(["invalid_time", "Nur gültig bis 01.01.2020 09:00."]);
    expect(explained(early, "fr")).toEqual(["invalid_time", "This ticket is only valid after 2020-01-01 12:00."]);
  });
});

describe("the rules' explanation in its locale", () => {
  const facts = (over: Partial<RuleFacts> = {}): RuleFacts => ({
    now: Date.parse("2020-01-01T10:00:00Z"),
    timezone: TZ,
    product: 1,
    variation: null,
    gate: null,
    event: { dateFrom: Date.parse("2020-01-01T11:00:00Z"), dateTo: null, dateAdmission: null },
    entries: [],
    exits: [],
    ...over,
  });
  const explanation = (rules: unknown, over: Partial<RuleFacts>) => {
    const r = evaluateRules(rules, facts(over));
    if (r.ok || r.reason !== "rules") throw new Error(JSON.stringify(r));
    return r.explanation;
  };
  const now = { var: "now" };

  it("times, products, counts and week days, as pretix's German catalogue has them", () => {
    const after = { isAfter: [now, { buildTime: ["date_from"] }, null] };
    expect(explanation(after, {})).toBe("Only allowed after 12:00");
    expect(explanation(after, { locale: "de" })).toBe("Erst erlaubt ab 12:00");
    const far = { isBefore: [now, { buildTime: ["custom", "2019-12-30T18:00:00Z"] }, null] };
    expect(explanation(far, { locale: "de" })).toBe("Nur erlaubt bis 30.12.2019 19:00");
    expect(explanation(far, { locale: "en" })).toBe("Only allowed before 2019-12-30 19:00");
    const product = { inList: [{ var: "product" }, { objectList: [{ lookup: ["product", "2", "Other"] }] }] };
    expect(explanation(product, { locale: "de" })).toBe("Ticketart nicht erlaubt");
    const entries = { "<": [{ var: "entries_number" }, 1] };
    const entered = { entries: [Date.parse("2020-01-01T09:00:00Z")] };
    expect(explanation(entries, { ...entered, locale: "de" })).toBe("Maximale Anzahl Eintritte überschritten");
    expect(explanation(entries, entered)).toBe("Maximum number of entries exceeded");
    const saturday = { "==": [{ var: "now_isoweekday" }, 6] };
    expect(explanation(saturday, {})).toBe("week day is not Saturday");
    expect(explanation(saturday, { locale: "de" })).toBe("Wochentag ist nicht Samstag");
  });
});
