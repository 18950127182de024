/**
 * The limits D1 enforces in production, checked on every statement the tests run (installed
 * for the whole suite by test/setup.ts), so that a green test means a statement production
 * takes too (developers.cloudflare.com/d1/platform/limits/):
 *
 * - at most 100 bound parameters per statement;
 * - LIKE and GLOB patterns of at most 50 bytes;
 * - SQL statements of at most 100,000 bytes;
 * - at most 32 arguments per SQL function.
 *
 * A statement over a limit is refused with the error text D1 answers, before it reaches the
 * local database. (The local database of this workerd enforces the first three by itself and
 * allows 127 function arguments; the check here holds whatever the local version does.)
 */

export const D1_LIMITS = {
  boundParameters: 100,
  likePatternBytes: 50,
  statementBytes: 100_000,
  functionArguments: 32,
} as const;

type Token =
  | { t: "word"; v: string; at: number }
  | { t: "quoted"; at: number }
  | { t: "str"; v: string; at: number }
  | { t: "param"; n: number; at: number }
  | { t: "punct"; v: string; at: number };

const bytes = (s: string) => new TextEncoder().encode(s).length;

/** SQL tokens: words, quoted identifiers, string literals, parameters (numbered as SQLite does) and punctuation. */
function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let highest = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === "'") {
      let j = i + 1;
      let v = "";
      while (j < sql.length) {
        if (sql[j] === "'" && sql[j + 1] === "'") {
          v += "'";
          j += 2;
        } else if (sql[j] === "'") break;
        else v += sql[j++];
      }
      out.push({ t: "str", v, at: i });
      i = j + 1;
    } else if (c === '"' || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c;
      let j = i + 1;
      while (j < sql.length && !(sql[j] === close && sql[j + 1] !== close)) j += sql[j] === close ? 2 : 1;
      out.push({ t: "quoted", at: i });
      i = j + 1;
    } else if (c === "?") {
      const m = /^\?(\d*)/.exec(sql.slice(i))!;
      const n = m[1] ? Number(m[1]) : highest + 1;
      highest = Math.max(highest, n);
      out.push({ t: "param", n, at: i });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))!;
      out.push({ t: "word", v: m[0], at: i });
      i += m[0].length;
    } else if (c === "|" && sql[i + 1] === "|") {
      out.push({ t: "punct", v: "||", at: i });
      i += 2;
    } else {
      out.push({ t: "punct", v: c, at: i });
      i++;
    }
  }
  return out;
}

/** Words that may stand before "(" without being a function call. */
const NOT_FUNCTIONS = new Set(
  (
    "in values exists as over filter using on and or not where select from join when then else is like glob between set returning by " +
    "conflict key unique check default into table limit offset having escape collate distinct all union except intersect with recursive " +
    "references index view trigger case match regexp primary foreign do update insert replace delete window partition"
  ).split(" "),
);
/** Words after which a name followed by "(" is a table or index definition, not a call. */
const DEFINES = new Set(["into", "table", "exists", "index", "view", "on", "references", "trigger"]);

/** D1's error for the first limit `sql` with `params` exceeds, or null. */
export function d1LimitViolation(sql: string, params: readonly unknown[]): string | null {
  if (bytes(sql) > D1_LIMITS.statementBytes) return "D1_ERROR: statement too long: SQLITE_TOOBIG";
  const tokens = tokenize(sql);
  const placeholders = tokens.filter((t): t is Extract<Token, { t: "param" }> => t.t === "param");
  const variables = Math.max(params.length, ...placeholders.map((p) => p.n), 0);
  if (variables > D1_LIMITS.boundParameters) {
    const over = placeholders.find((p) => p.n > D1_LIMITS.boundParameters);
    return `D1_ERROR: too many SQL variables at offset ${over?.at ?? 0}: SQLITE_ERROR`;
  }
  // function arguments
  const frames: { fn: string | null; at: number; commas: number; empty: boolean }[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const tok = tokens[k]!;
    const top = frames[frames.length - 1];
    if (top && !(tok.t === "punct" && tok.v === ")")) top.empty = false;
    if (tok.t !== "punct") continue;
    if (tok.v === "(") {
      const prev = tokens[k - 1];
      const before = tokens[k - 2];
      const isCall =
        prev?.t === "word" &&
        !NOT_FUNCTIONS.has(prev.v.toLowerCase()) &&
        !(before?.t === "word" && DEFINES.has(before.v.toLowerCase()));
      frames.push({ fn: isCall ? prev.v : null, at: prev?.at ?? tok.at, commas: 0, empty: true });
    } else if (tok.v === ",") {
      if (top) top.commas++;
    } else if (tok.v === ")") {
      const f = frames.pop();
      const args = f ? (f.empty ? 0 : f.commas + 1) : 0;
      if (f?.fn && args > D1_LIMITS.functionArguments)
        return `D1_ERROR: too many arguments on function ${f.fn} at offset ${f.at}: SQLITE_ERROR`;
    }
  }
  // LIKE / GLOB patterns made of literals and parameters (`'%' || ? || '%'` included)
  for (let k = 0; k < tokens.length; k++) {
    const tok = tokens[k]!;
    if (tok.t !== "word" || !["like", "glob"].includes(tok.v.toLowerCase())) continue;
    let pattern = "";
    let j = k + 1;
    let known = true;
    for (;;) {
      const operand = tokens[j];
      if (operand?.t === "str") pattern += operand.v;
      else if (operand?.t === "param") {
        const v = params[operand.n - 1];
        if (v === null || v === undefined) known = false;
        else pattern += typeof v === "string" ? v : String(v);
      } else {
        known = false;
        break;
      }
      const next = tokens[j + 1];
      if (next?.t === "punct" && next.v === "||") j += 2;
      else break;
    }
    if (known && bytes(pattern) > D1_LIMITS.likePatternBytes)
      return "D1_ERROR: LIKE or GLOB pattern too complex: SQLITE_ERROR";
  }
  return null;
}
