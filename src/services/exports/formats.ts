/**
 * File formats of the exports, written in pieces (one per job step) with a state that is kept
 * between steps: CSV in pretix's three dialects, XLSX (a workbook with one sheet per list,
 * written as a ZIP of XML parts, src/lib/zip.ts), and a JSON document. Each writer returns the
 * bytes to append to the file.
 */
import { beginEntry, concatBytes, endEntry, entry, finishZip, newZip, writeEntry, type ZipState } from "../../lib/zip";

/** A cell of a list: text, a number, a decimal (money, rates: a number in XLSX), or empty. */
export type Cell = string | number | null | { decimal: string };

export const decimal = (value: string): Cell => ({ decimal: value });

/** pretix's CSV dialects: `default` (commas, every text quoted), `excel` (quoted when needed), `semicolon`. */
export type CsvDialect = "default" | "excel" | "semicolon";

export type FileFormat = { kind: "csv"; dialect: CsvDialect } | { kind: "xlsx" } | { kind: "json" };

export const CONTENT_TYPES = {
  csv: "text/csv",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  json: "application/json",
} as const;

/** Rows an XLSX sheet holds at most (Excel's limit). */
export const XLSX_MAX_ROWS = 1_048_576;

const encoder = new TextEncoder();

// ---- CSV ----

/**
 * Text that a spreadsheet would read as a formula is prefixed with an apostrophe (as pretix's
 * defusedcsv does), so an exported value typed by a customer cannot run in the reader's program.
 */
function defuse(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

function csvCell(cell: Cell, dialect: CsvDialect, delimiter: string): string {
  if (cell === null) return dialect === "default" ? '""' : "";
  if (typeof cell === "number") return String(cell);
  // a decimal is a number (a negative amount is no formula), as pretix's defusedcsv leaves numbers alone
  const text = typeof cell === "string" ? defuse(cell) : cell.decimal;
  const quote = dialect === "default" || text.includes(delimiter) || /["\r\n]/.test(text) || text !== text.trim();
  return quote ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRows(rows: readonly Cell[][], dialect: CsvDialect): Uint8Array {
  const delimiter = dialect === "semicolon" ? ";" : ",";
  let out = "";
  for (const row of rows) out += `${row.map((c) => csvCell(c, dialect, delimiter)).join(delimiter)}\r\n`;
  return encoder.encode(out);
}

// ---- XLSX ----

export type XlsxState = { zip: ZipState; sheets: string[]; row: number };

export function newXlsx(now: number): XlsxState {
  return { zip: newZip(now), sheets: [], row: 0 };
}

function xmlText(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 forbids these characters
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
  );
}

function columnName(index: number): string {
  let name = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function xlsxCell(cell: Cell, ref: string): string {
  if (cell === null || cell === "") return "";
  if (typeof cell === "number") return `<c r="${ref}"><v>${cell}</v></c>`;
  if (typeof cell === "object") return `<c r="${ref}"><v>${cell.decimal}</v></c>`;
  return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${xmlText(cell)}</t></is></c>`;
}

/** A sheet name Excel accepts: at most 31 characters, none of []:*?/\ . */
function sheetName(title: string, taken: readonly string[]): string {
  const base =
    title
      .replace(/[[\]:*?/\\]/g, " ")
      .slice(0, 31)
      .trim() || "Sheet";
  let name = base;
  for (let i = 2; taken.includes(name); i++) name = `${base.slice(0, 28)} ${i}`;
  return name;
}

const SHEET_HEAD =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';

export function xlsxBeginSheet(x: XlsxState, title: string): Uint8Array {
  x.sheets.push(sheetName(title, x.sheets));
  x.row = 0;
  const n = x.sheets.length;
  return concatBytes([beginEntry(x.zip, `xl/worksheets/sheet${n}.xml`), writeEntry(x.zip, encoder.encode(SHEET_HEAD))]);
}

export function xlsxRows(x: XlsxState, rows: readonly Cell[][]): Uint8Array {
  let xml = "";
  for (const row of rows) {
    const r = ++x.row;
    xml += `<row r="${r}">${row.map((c, i) => xlsxCell(c, `${columnName(i)}${r}`)).join("")}</row>`;
  }
  return writeEntry(x.zip, encoder.encode(xml));
}

export function xlsxEndSheet(x: XlsxState): Uint8Array {
  return concatBytes([writeEntry(x.zip, encoder.encode("</sheetData></worksheet>")), endEntry(x.zip)]);
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** The workbook's other parts and the archive's directory. */
export function xlsxFinish(x: XlsxState): Uint8Array {
  const sheets = x.sheets;
  const contentTypes =
    `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
    '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
    sheets
      .map(
        (_, i) =>
          `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
      )
      .join("") +
    "</Types>";
  const rootRels =
    `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>' +
    "</Relationships>";
  const workbook =
    `${XML_HEAD}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>` +
    sheets.map((name, i) => `<sheet name="${xmlText(name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join("") +
    "</sheets></workbook>";
  const workbookRels =
    `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
    sheets
      .map(
        (_, i) =>
          `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
      )
      .join("") +
    `<Relationship Id="rId${sheets.length + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
    "</Relationships>";
  const styles =
    `${XML_HEAD}<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
    '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>' +
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
    "</styleSheet>";
  const z = x.zip;
  return concatBytes([
    entry(z, "[Content_Types].xml", encoder.encode(contentTypes)),
    entry(z, "_rels/.rels", encoder.encode(rootRels)),
    entry(z, "xl/workbook.xml", encoder.encode(workbook)),
    entry(z, "xl/_rels/workbook.xml.rels", encoder.encode(workbookRels)),
    entry(z, "xl/styles.xml", encoder.encode(styles)),
    finishZip(z),
  ]);
}
