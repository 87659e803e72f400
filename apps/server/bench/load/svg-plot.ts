/** One line of a panel: its label, colour and points (x = concurrency, y = the measure). */
export interface Series {
  label: string;
  color: string;
  points: Array<[number, number]>;
}

export interface Panel {
  title: string;
  yLabel: string;
  series: Series[];
}

const W = 300;
const H = 210;
const M = { left: 52, right: 10, top: 26, bottom: 38 };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A "nice" axis maximum: 1, 2 or 5 times a power of ten at or above `v`. */
function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map((m) => m * p).find((m) => m >= v) ?? 10 * p;
}

/** One panel: x on a log2 scale (the concurrency steps double), y linear from 0. */
function panel(p: Panel, ox: number, oy: number): string {
  const xs = [...new Set(p.series.flatMap((s) => s.points.map(([x]) => x)))].sort((a, b) => a - b);
  const ymax = niceMax(Math.max(0, ...p.series.flatMap((s) => s.points.map(([, y]) => y))));
  const lx = (x: number) => Math.log2(x);
  const [x0, x1] = [lx(xs[0] ?? 1), lx(xs[xs.length - 1] ?? 2)];
  const px = (x: number) => ox + M.left + ((lx(x) - x0) / Math.max(1e-9, x1 - x0)) * (W - M.left - M.right);
  const py = (y: number) => oy + H - M.bottom - (y / ymax) * (H - M.top - M.bottom);
  const out: string[] = [];
  out.push(`<text x="${ox + W / 2}" y="${oy + 16}" text-anchor="middle" font-weight="bold">${esc(p.title)}</text>`);
  out.push(`<line x1="${px(xs[0] ?? 1)}" y1="${py(0)}" x2="${ox + W - M.right}" y2="${py(0)}" stroke="#333"/>`);
  out.push(`<line x1="${ox + M.left}" y1="${py(0)}" x2="${ox + M.left}" y2="${oy + M.top}" stroke="#333"/>`);
  for (const x of xs) {
    out.push(`<text x="${px(x)}" y="${py(0) + 14}" text-anchor="middle" font-size="10">${x}</text>`);
  }
  for (let i = 0; i <= 4; i++) {
    const y = (ymax * i) / 4;
    out.push(`<line x1="${ox + M.left}" y1="${py(y)}" x2="${ox + W - M.right}" y2="${py(y)}" stroke="#ddd"/>`);
    out.push(`<text x="${ox + M.left - 4}" y="${py(y) + 3}" text-anchor="end" font-size="10">${Number(y.toPrecision(3))}</text>`);
  }
  out.push(`<text x="${ox + W / 2 + 20}" y="${oy + H - 6}" text-anchor="middle" font-size="10">concurrent clients</text>`);
  out.push(`<text transform="translate(${ox + 12},${oy + H / 2}) rotate(-90)" text-anchor="middle" font-size="10">${esc(p.yLabel)}</text>`);
  for (const s of p.series) {
    if (s.points.length === 0) continue;
    const d = s.points.map(([x, y], i) => `${i ? 'L' : 'M'}${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"/>`);
    for (const [x, y] of s.points) out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="2.5" fill="${s.color}"/>`);
  }
  return out.join('\n');
}

/** Panels in a grid (`columns` wide) with one legend for all series labels. */
export function svgPlot(title: string, panels: Panel[], columns: number): string {
  const rows = Math.ceil(panels.length / columns);
  const legend = [...new Map(panels.flatMap((p) => p.series.map((s) => [s.label, s.color] as const))).entries()];
  const width = columns * W;
  const height = rows * H + 50;
  const parts = panels.map((p, i) => panel(p, (i % columns) * W, 30 + Math.floor(i / columns) * H));
  const keys = legend.map(
    ([label, color], i) =>
      `<rect x="${10 + i * 190}" y="${height - 16}" width="12" height="4" fill="${color}"/><text x="${28 + i * 190}" y="${height - 11}" font-size="11">${esc(label)}</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${esc(title)}</text>`,
    ...parts,
    ...keys,
    '</svg>',
  ].join('\n');
}
