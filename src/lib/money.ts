/**
 * Money and other two-place decimals (tax rates, percentages) are integers of hundredths in
 * memory and in the database, decimal strings on the wire. No float ever touches them.
 */

export type Cents = number;

const DECIMAL = /^([+-])?(\d+)(?:\.(\d*))?$/;

/**
 * Parses a decimal string (or a JSON number, read through its decimal text) into hundredths.
 * Returns null for anything that is not a number with at most two decimal places.
 */
export function parseDecimal(value: unknown, places = 2): Cents | null {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return null;
    text = String(value);
    if (/e/i.test(text)) return null;
  } else if (typeof value === "string") {
    text = value.trim();
  } else {
    return null;
  }
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const frac = (m[3] ?? "").replace(/0+$/, "");
  if (frac.length > places) return null;
  const digits = m[2]!.replace(/^0+(?=\d)/, "") + frac.padEnd(places, "0");
  if (digits.length > 15) return null;
  const n = Number(digits);
  return m[1] === "-" ? -n || 0 : n;
}

/** Hundredths to a decimal string with exactly `places` places ("12.50"). */
export function formatDecimal(cents: Cents, places = 2): string {
  const neg = cents < 0;
  const abs = String(Math.abs(cents)).padStart(places + 1, "0");
  const s = places === 0 ? abs : `${abs.slice(0, -places)}.${abs.slice(-places)}`;
  return neg ? `-${s}` : s;
}

export function formatMoney(cents: Cents): string;
export function formatMoney(cents: Cents | null | undefined): string | null;
export function formatMoney(cents: Cents | null | undefined): string | null {
  return cents === null || cents === undefined ? null : formatDecimal(cents);
}

/** Integer division rounding half away from zero, exact for any integers. */
export function divRound(numerator: number | bigint, denominator: number | bigint): number {
  const n = BigInt(numerator),
    d = BigInt(denominator);
  if (d === 0n) throw new RangeError("division by zero");
  const sign = n < 0n !== d < 0n ? -1n : 1n;
  const an = n < 0n ? -n : n,
    ad = d < 0n ? -d : d;
  const q = (2n * an + ad) / (2n * ad);
  return Number(sign * q);
}

/** `amount * percent / 100` where percent is in hundredths of a percent (19.00 % = 1900). */
export function percentOf(amount: Cents, percentHundredths: number): Cents {
  return divRound(BigInt(amount) * BigInt(percentHundredths), 10000n);
}

/** ISO 4217 minor units that differ from two. */
const CURRENCY_PLACES: Record<string, number> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
};

export function currencyPlaces(currency: string): number {
  return CURRENCY_PLACES[currency.toUpperCase()] ?? 2;
}

/** Rounds hundredths to what the currency can express (JPY: whole units). */
export function roundToCurrency(cents: Cents, currency: string): Cents {
  const places = currencyPlaces(currency);
  if (places >= 2) return cents;
  const step = 10 ** (2 - places);
  return divRound(cents, step) * step;
}

export const ISO_4217 = /^[A-Z]{3}$/;
