/**
 * The fonts of generated PDFs (tickets, invoices), by script. They are not bundled with the Worker
 * (too large): `npm run fonts` (src/cli/fonts.ts) copies the TTF files from their npm packages into
 * R2 under `fonts/`; a document loads the faces its text needs and embeds a subset of each. A
 * character no face has (emoji, scripts not listed) is drawn as the face's empty box (docs/documents.md).
 */

/** A font face: a family in a style. */
export const FONT_FACES = {
  sans: { file: "NotoSans_400Regular.ttf", pkg: "@expo-google-fonts/noto-sans", dir: "400Regular" },
  "sans-bold": { file: "NotoSans_700Bold.ttf", pkg: "@expo-google-fonts/noto-sans", dir: "700Bold" },
  "sans-italic": {
    file: "NotoSans_400Regular_Italic.ttf",
    pkg: "@expo-google-fonts/noto-sans",
    dir: "400Regular_Italic",
  },
  "sans-bold-italic": {
    file: "NotoSans_700Bold_Italic.ttf",
    pkg: "@expo-google-fonts/noto-sans",
    dir: "700Bold_Italic",
  },
  hebrew: { file: "NotoSansHebrew_400Regular.ttf", pkg: "@expo-google-fonts/noto-sans-hebrew", dir: "400Regular" },
  "hebrew-bold": { file: "NotoSansHebrew_700Bold.ttf", pkg: "@expo-google-fonts/noto-sans-hebrew", dir: "700Bold" },
  // not Noto Sans Arabic: it draws letters as skeletons plus separate dots, which leaves the
  // text layer (glyph to character) wrong; IBM Plex Sans Arabic has a glyph per letter form
  arabic: {
    file: "IBMPlexSansArabic_400Regular.ttf",
    pkg: "@expo-google-fonts/ibm-plex-sans-arabic",
    dir: "400Regular",
  },
  "arabic-bold": {
    file: "IBMPlexSansArabic_700Bold.ttf",
    pkg: "@expo-google-fonts/ibm-plex-sans-arabic",
    dir: "700Bold",
  },
  cjk: { file: "NotoSansSC_400Regular.ttf", pkg: "@expo-google-fonts/noto-sans-sc", dir: "400Regular" },
  "cjk-bold": { file: "NotoSansSC_700Bold.ttf", pkg: "@expo-google-fonts/noto-sans-sc", dir: "700Bold" },
  korean: { file: "NotoSansKR_400Regular.ttf", pkg: "@expo-google-fonts/noto-sans-kr", dir: "400Regular" },
  "korean-bold": { file: "NotoSansKR_700Bold.ttf", pkg: "@expo-google-fonts/noto-sans-kr", dir: "700Bold" },
  thai: { file: "NotoSansThai_400Regular.ttf", pkg: "@expo-google-fonts/noto-sans-thai", dir: "400Regular" },
  "thai-bold": { file: "NotoSansThai_700Bold.ttf", pkg: "@expo-google-fonts/noto-sans-thai", dir: "700Bold" },
} as const;

export type FontFace = keyof typeof FONT_FACES;
export type FontFamily = "sans" | "hebrew" | "arabic" | "cjk" | "korean" | "thai";
export type FontStyle = { bold?: boolean; italic?: boolean };

/** Where a face lies in the R2 bucket. */
export const FONT_PREFIX = "fonts/";
export function fontObjectKey(face: FontFace): string {
  return `${FONT_PREFIX}${FONT_FACES[face].file}`;
}

/** The face of a family in a style (only the Latin family has italics; others stay upright). */
export function faceOf(family: FontFamily, style: FontStyle = {}): FontFace {
  if (family === "sans") {
    if (style.bold && style.italic) return "sans-bold-italic";
    if (style.bold) return "sans-bold";
    if (style.italic) return "sans-italic";
    return "sans";
  }
  return (style.bold ? `${family}-bold` : family) as FontFace;
}

const inRange = (cp: number, ranges: readonly (readonly [number, number])[]) =>
  ranges.some(([a, b]) => cp >= a && cp <= b);

const HEBREW = [
  [0x0590, 0x05ff],
  [0xfb1d, 0xfb4f],
] as const;
const ARABIC = [
  [0x0600, 0x06ff],
  [0x0750, 0x077f],
  [0x0870, 0x08ff],
  [0xfb50, 0xfdff],
  [0xfe70, 0xfeff],
] as const;
/** Hangul: jamo, compatibility jamo, extended jamo, syllables. */
const HANGUL = [
  [0x1100, 0x11ff],
  [0x3130, 0x318f],
  [0xa960, 0xa97f],
  [0xac00, 0xd7ff],
] as const;
const THAI = [[0x0e00, 0x0e7f]] as const;
const CJK = [
  [0x2e80, 0x2fdf],
  [0x3000, 0x303f],
  [0x3040, 0x30ff],
  [0x3100, 0x312f],
  [0x31a0, 0x31ff],
  [0x3200, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xffef],
  [0x20000, 0x3134f],
] as const;

/** Right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms). */
const RTL = [
  [0x0590, 0x08ff],
  [0xfb1d, 0xfdff],
  [0xfe70, 0xfeff],
] as const;

/** The family that draws a code point; null for characters any family draws (spaces, digits, punctuation). */
export function familyOf(cp: number): FontFamily | null {
  if (inRange(cp, HEBREW)) return "hebrew";
  if (inRange(cp, ARABIC)) return "arabic";
  if (inRange(cp, HANGUL)) return "korean";
  if (inRange(cp, THAI)) return "thai";
  if (inRange(cp, CJK)) return "cjk";
  return isNeutral(cp) ? null : "sans";
}

/** Direction class of a code point: right-to-left, left-to-right (letters, digits), or neutral. */
export function directionOf(cp: number): "rtl" | "ltr" | "neutral" {
  if (inRange(cp, RTL)) return isNeutral(cp) ? "neutral" : "rtl";
  if (/[\p{L}\p{N}\p{M}]/u.test(String.fromCodePoint(cp))) return "ltr";
  return "neutral";
}

function isNeutral(cp: number): boolean {
  return /[\s\p{P}\p{S}\p{Z}\p{Nd}]/u.test(String.fromCodePoint(cp)) && !/[\p{L}]/u.test(String.fromCodePoint(cp));
}

/** Whether a line may break after this code point (spaces, and between CJK characters). */
export function breaksAfter(cp: number): boolean {
  return cp === 0x20 || cp === 0x3000 || cp === 0x2d || (inRange(cp, CJK) && cp > 0x3000);
}
