/**
 * The benchmark's chart (docs/benchmark.md): one SVG per run with a panel per scenario, each
 * showing, second by second over the scenario's own time, the throughput (answers per second)
 * and the latency (p50 solid, p99 dashed) of the scenario's requests, with the trivial
 * endpoint's beside them in grey. Plain SVG, no dependencies.
 */
import { percentile, type Phase, round, type Sample } from "./load.ts";

export type Series = { name: string; color: string; points: { t: number; ms: number }[] };
export type Panel = { title: string; note?: string; series: Series[] };

export const TRIVIAL_COLOR = "#8a8a8a";
export const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];

/** Points of `samples` that passed `ok`, on the clock of `origin` (performance.now() ms), in seconds. */
export function pointsOf(phase: Phase, ok: (s: Sample) => boolean, origin: number): { t: number; ms: number }[] {
  return phase.samples.filter(ok).map((s) => ({ t: (phase.startedAt + s.at - origin) / 1000, ms: s.ms }));
}

type Bucket = { t: number; n: number; p50: number; p99: number };

/** Seconds with answers: their count and latency percentiles. */
function buckets(points: { t: number; ms: number }[]): Bucket[] {
  const by = new Map<number, number[]>();
  for (const p of points) {
    const k = Math.floor(p.t);
    const list = by.get(k) ?? [];
    list.push(p.ms);
    by.set(k, list);
  }
  return [...by.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([t, ms]) => ({ t, n: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99) }));
}

/**
 * Answers per second over the series' active stretches (a gap of more than `gap` seconds ends a
 * stretch), every second counted (0 when none came back), averaged over `window` seconds.
 */
function rates(b: Bucket[], window: number, gap: number): [number, number][][] {
  const out: [number, number][][] = [];
  let stretch: Bucket[] = [];
  const flush = () => {
    if (!stretch.length) return;
    const from = stretch[0]!.t;
    const to = stretch.at(-1)!.t;
    const n = new Map(stretch.map((x) => [x.t, x.n]));
    const line: [number, number][] = [];
    for (let t = from; t <= to; t++) {
      let sum = 0;
      let k = 0;
      for (let u = t - Math.floor(window / 2); u <= t + Math.floor(window / 2); u++) {
        if (u < from || u > to) continue;
        sum += n.get(u) ?? 0;
        k++;
      }
      line.push([t + 0.5, sum / k]);
    }
    out.push(line);
    stretch = [];
  };
  for (const x of b) {
    if (stretch.length && x.t - stretch.at(-1)!.t > gap) flush();
    stretch.push(x);
  }
  flush();
  return out;
}

/** Latency lines, broken where the series was silent for more than `gap` seconds. */
function stretches(b: Bucket[], value: (x: Bucket) => number, gap: number): [number, number][][] {
  const out: [number, number][][] = [];
  let line: [number, number][] = [];
  let last = -Infinity;
  for (const x of b) {
    if (x.t - last > gap && line.length) {
      out.push(line);
      line = [];
    }
    line.push([x.t + 0.5, value(x)]);
    last = x.t;
  }
  if (line.length) out.push(line);
  return out;
}

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const e = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * e >= v) return m * e;
  return 10 * e;
}

const esc = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** One plot (axes, grid, lines): `lines` of [x, y] in data units. */
function plot(
  x0: number,
  y0: number,
  w: number,
  h: number,
  xMax: number,
  yMax: number,
  yLabel: string,
  lines: { pts: [number, number][]; color: string; dash?: boolean }[],
): string {
  const sx = (x: number) => x0 + (x / xMax) * w;
  const sy = (y: number) => y0 + h - (Math.min(y, yMax) / yMax) * h;
  const out: string[] = [];
  out.push(`<rect x="${x0}" y="${y0}" width="${w}" height="${h}" fill="#fff" stroke="#ccc"/>`);
  for (let i = 0; i <= 4; i++) {
    const y = (yMax * i) / 4;
    out.push(`<line x1="${x0}" x2="${x0 + w}" y1="${sy(y)}" y2="${sy(y)}" stroke="#eee"/>`);
    out.push(`<text x="${x0 - 4}" y="${sy(y) + 4}" text-anchor="end" font-size="10" fill="#555">${round(y, 1)}</text>`);
  }
  const step = niceMax(xMax / 8);
  for (let x = 0; x <= xMax + 1e-9; x += step) {
    out.push(`<line x1="${sx(x)}" x2="${sx(x)}" y1="${y0 + h}" y2="${y0 + h + 3}" stroke="#999"/>`);
    out.push(
      `<text x="${sx(x)}" y="${y0 + h + 14}" text-anchor="middle" font-size="10" fill="#555">${round(x, 0)}</text>`,
    );
  }
  out.push(`<text x="${x0}" y="${y0 - 5}" font-size="11" fill="#333">${esc(yLabel)}</text>`);
  for (const l of lines) {
    if (l.pts.length === 0) continue;
    if (l.pts.length === 1) {
      const [x, y] = l.pts[0]!;
      out.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.5" fill="${l.color}"/>`);
      continue;
    }
    const d = l.pts.map(([x, y], i) => `${i ? "L" : "M"}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join("");
    out.push(
      `<path d="${d}" fill="none" stroke="${l.color}" stroke-width="1.6"${l.dash ? ' stroke-dasharray="4 3"' : ""}/>`,
    );
  }
  return out.join("\n");
}

/** The SVG of a run: a title, and per panel throughput (left) and latency (right) over seconds. */
export function chartSvg(title: string, subtitle: string, panels: Panel[]): string {
  const W = 1000;
  const panelH = 250;
  const top = 56;
  const parts: string[] = [];
  parts.push(`<text x="16" y="24" font-size="16" font-weight="bold" fill="#222">${esc(title)}</text>`);
  parts.push(`<text x="16" y="42" font-size="11" fill="#555">${esc(subtitle)}</text>`);
  panels.forEach((panel, i) => {
    const y = top + i * panelH;
    parts.push(`<text x="16" y="${y + 18}" font-size="13" font-weight="bold" fill="#222">${esc(panel.title)}</text>`);
    if (panel.note) parts.push(`<text x="16" y="${y + 33}" font-size="10" fill="#666">${esc(panel.note)}</text>`);
    const series = panel.series.map((s) => ({ ...s, b: buckets(s.points.filter((p) => p.t >= 0)) }));
    const xMax = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p.t))) + 1;
    // long panels: a 5-second average, so that answers coming back in waves read as a rate
    const window = xMax > 40 ? 5 : 1;
    const rateLines = series.map((s) => ({ color: s.color, lines: rates(s.b, window, 5) }));
    const rateMax = niceMax(Math.max(1, ...rateLines.flatMap((r) => r.lines.flatMap((l) => l.map(([, y]) => y)))));
    // latency axis: up to the largest p99 of a busy second (a lone straggler does not flatten the rest)
    const p99s = series.flatMap((s) => s.b.map((b) => b.p99));
    const latMax = niceMax(Math.max(1, percentile(p99s, 95)));
    const plotY = y + 52;
    const plotH = panelH - 96;
    parts.push(
      plot(
        60,
        plotY,
        400,
        plotH,
        xMax,
        rateMax,
        window > 1 ? `answers per second (${window}-second average)` : "answers per second",
        rateLines.flatMap((r) => r.lines.map((pts) => ({ pts, color: r.color }))),
      ),
    );
    parts.push(
      plot(
        540,
        plotY,
        400,
        plotH,
        xMax,
        latMax,
        "latency ms (p50 solid, p99 dashed)",
        series.flatMap((s) => [
          ...stretches(s.b, (b) => b.p50, 5).map((pts) => ({ pts, color: s.color })),
          ...stretches(s.b, (b) => b.p99, 5).map((pts) => ({ pts, color: s.color, dash: true })),
        ]),
      ),
    );
    parts.push(
      `<text x="500" y="${plotY + plotH + 28}" text-anchor="middle" font-size="10" fill="#555">seconds since the scenario started</text>`,
    );
    let lx = 60;
    for (const s of series) {
      parts.push(`<rect x="${lx}" y="${plotY + plotH + 34}" width="12" height="4" fill="${s.color}"/>`);
      parts.push(`<text x="${lx + 16}" y="${plotY + plotH + 40}" font-size="10" fill="#333">${esc(s.name)}</text>`);
      lx += 24 + s.name.length * 5.6;
    }
  });
  const H = top + panels.length * panelH + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif">
<rect width="${W}" height="${H}" fill="#fafafa"/>
${parts.join("\n")}
</svg>
`;
}
