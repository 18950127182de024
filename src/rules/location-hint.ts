/**
 * Where an event's Durable Object should live: the Durable Object region nearest the venue
 * (the event's `geo_lat` / `geo_lon`), so that scanners at the door talk to an object close to
 * them. Cloudflare's location hints name regions, not places; each region is represented here
 * by the cities of its data centres' metro areas, and the hint is the region of the nearest one
 * (great-circle distance). A hint only applies when the object is first created.
 */

export const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;
export type LocationHint = (typeof LOCATION_HINTS)[number];

const ANCHORS: [LocationHint, number, number][] = [
  ["wnam", 34.05, -118.24], // Los Angeles
  ["wnam", 37.77, -122.42], // San Francisco
  ["wnam", 47.61, -122.33], // Seattle
  ["wnam", 39.74, -104.99], // Denver
  ["wnam", 49.28, -123.12], // Vancouver
  ["enam", 39.04, -77.49], // Ashburn
  ["enam", 40.71, -74.01], // New York
  ["enam", 41.88, -87.63], // Chicago
  ["enam", 33.75, -84.39], // Atlanta
  ["enam", 32.78, -96.8], // Dallas
  ["enam", 25.76, -80.19], // Miami
  ["enam", 43.65, -79.38], // Toronto
  ["sam", -23.55, -46.63], // São Paulo
  ["sam", -34.6, -58.38], // Buenos Aires
  ["sam", -33.45, -70.67], // Santiago
  ["sam", 4.71, -74.07], // Bogotá
  ["sam", -12.05, -77.04], // Lima
  ["weur", 51.51, -0.13], // London
  ["weur", 52.37, 4.9], // Amsterdam
  ["weur", 50.11, 8.68], // Frankfurt
  ["weur", 48.86, 2.35], // Paris
  ["weur", 40.42, -3.7], // Madrid
  ["weur", 45.46, 9.19], // Milan
  ["weur", 53.35, -6.26], // Dublin
  ["eeur", 52.23, 21.01], // Warsaw
  ["eeur", 60.17, 24.94], // Helsinki
  ["eeur", 44.43, 26.1], // Bucharest
  ["eeur", 50.45, 30.52], // Kyiv
  ["eeur", 41.01, 28.98], // Istanbul
  ["me", 25.2, 55.27], // Dubai
  ["me", 24.71, 46.68], // Riyadh
  ["me", 32.09, 34.78], // Tel Aviv
  ["me", 35.69, 51.39], // Tehran
  ["afr", -26.2, 28.05], // Johannesburg
  ["afr", 6.52, 3.38], // Lagos
  ["afr", -1.29, 36.82], // Nairobi
  ["afr", 30.04, 31.24], // Cairo
  ["afr", 33.57, -7.59], // Casablanca
  ["apac", 1.35, 103.82], // Singapore
  ["apac", 35.68, 139.69], // Tokyo
  ["apac", 22.32, 114.17], // Hong Kong
  ["apac", 19.08, 72.88], // Mumbai
  ["apac", 37.57, 126.98], // Seoul
  ["apac", 13.08, 80.27], // Chennai
  ["oc", -33.87, 151.21], // Sydney
  ["oc", -37.81, 144.96], // Melbourne
  ["oc", -31.95, 115.86], // Perth
  ["oc", -36.85, 174.76], // Auckland
];

const rad = (d: number) => (d * Math.PI) / 180;

/** Great-circle distance in kilometres. */
function distance(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const a =
    Math.sin(rad(lat2 - lat1) / 2) ** 2 +
    Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lon2 - lon1) / 2) ** 2;
  return 6371 * 2 * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The region nearest the venue; null when the event has no (valid) coordinates. */
export function locationHintFor(lat: number | null | undefined, lon: number | null | undefined): LocationHint | null {
  if (lat === null || lat === undefined || lon === null || lon === undefined) return null;
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  let best: LocationHint | null = null;
  let bestKm = Infinity;
  for (const [hint, aLat, aLon] of ANCHORS) {
    const km = distance(lat, lon, aLat, aLon);
    if (km < bestKm) {
      bestKm = km;
      best = hint;
    }
  }
  return best;
}
