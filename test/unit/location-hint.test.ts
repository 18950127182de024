/** The event object's location hint: the Durable Object region nearest the venue. */
import { describe, expect, it } from "vitest";
import { LOCATION_HINTS, locationHintFor } from "../../src/rules/location-hint";

describe("locationHintFor", () => {
  it.each([
    ["Berlin", 52.52, 13.4, "weur"],
    ["London", 51.5, -0.12, "weur"],
    ["Lisbon", 38.72, -9.14, "weur"],
    ["Warsaw", 52.23, 21.01, "eeur"],
    ["Athens", 37.98, 23.73, "eeur"],
    ["New York", 40.71, -74.0, "enam"],
    ["Mexico City", 19.43, -99.13, "enam"],
    ["Vancouver", 49.25, -123.1, "wnam"],
    ["Honolulu", 21.3, -157.86, "wnam"],
    ["Rio de Janeiro", -22.91, -43.17, "sam"],
    ["Dubai", 25.2, 55.27, "me"],
    ["Nairobi", -1.29, 36.82, "afr"],
    ["Cape Town", -33.92, 18.42, "afr"],
    ["Tokyo", 35.68, 139.69, "apac"],
    ["Bangkok", 13.75, 100.5, "apac"],
    ["Sydney", -33.87, 151.21, "oc"],
    ["Wellington", -41.29, 174.78, "oc"],
  ] as const)("%s → %s", (_name, lat, lon, hint) => {
    expect(locationHintFor(lat, lon)).toBe(hint);
  });

  it("no coordinates, or impossible ones: no hint", () => {
    expect(locationHintFor(null, 13.4)).toBeNull();
    expect(locationHintFor(52.5, null)).toBeNull();
    expect(locationHintFor(undefined, undefined)).toBeNull();
    expect(locationHintFor(91, 0)).toBeNull();
    expect(locationHintFor(0, 200)).toBeNull();
    expect(locationHintFor(Number.NaN, 0)).toBeNull();
  });

  it("every hint is one of Cloudflare's Durable Object regions", () => {
    for (let lat = -80; lat <= 80; lat += 20)
      for (let lon = -180; lon <= 180; lon += 30) expect(LOCATION_HINTS).toContain(locationHintFor(lat, lon));
  });
});
