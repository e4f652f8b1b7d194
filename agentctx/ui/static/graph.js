// A force-directed layout (Fruchterman-Reingold with a cooling schedule), written for the dashboard's graph view.
// Deterministic: nodes start on a golden-angle spiral, so the same graph always lays out the same way.
"use strict";
window.AgentctxGraph = (() => {
  function layout(ids, edges, width, height, iterations) {
    const n = ids.length;
    const index = new Map(ids.map((id, i) => [id, i]));
    const x = new Float64Array(n), y = new Float64Array(n), dx = new Float64Array(n), dy = new Float64Array(n);
    const cx = width / 2, cy = height / 2;
    for (let i = 0; i < n; i++) {
      const r = 12 * Math.sqrt(i + 1), a = i * 2.399963229728653;
      x[i] = cx + r * Math.cos(a); y[i] = cy + r * Math.sin(a);
    }
    const pairs = [];
    for (const [s, t] of edges) {
      const a = index.get(s), b = index.get(t);
      if (a !== undefined && b !== undefined && a !== b) pairs.push([a, b]);
    }
    const k = Math.sqrt((width * height) / Math.max(n, 1)) * 1.1;
    const k2 = k * k;
    const steps = iterations || (n > 400 ? 120 : 220);
    let temp = Math.min(width, height) / 8;
    const cool = temp / (steps + 1);
    for (let step = 0; step < steps; step++) {
      dx.fill(0); dy.fill(0);
      for (let i = 0; i < n; i++) {          // repulsion between every pair: O(n²), fine for a few hundred nodes
        for (let j = i + 1; j < n; j++) {
          let ex = x[i] - x[j], ey = y[i] - y[j];
          let d2 = ex * ex + ey * ey;
          if (d2 < 0.01) { ex = 0.1 * ((i % 7) - 3); ey = 0.1 * ((j % 5) - 2); d2 = ex * ex + ey * ey + 0.01; }
          const f = k2 / d2;
          dx[i] += ex * f; dy[i] += ey * f; dx[j] -= ex * f; dy[j] -= ey * f;
        }
      }
      for (const [a, b] of pairs) {          // attraction along links
        const ex = x[a] - x[b], ey = y[a] - y[b];
        const d = Math.sqrt(ex * ex + ey * ey) + 0.01;
        const f = d / k;
        dx[a] -= ex * f; dy[a] -= ey * f; dx[b] += ex * f; dy[b] += ey * f;
      }
      for (let i = 0; i < n; i++) {          // gravity keeps unlinked records on screen
        dx[i] += (cx - x[i]) * 0.02 * k / 10; dy[i] += (cy - y[i]) * 0.02 * k / 10;
        const d = Math.sqrt(dx[i] * dx[i] + dy[i] * dy[i]) + 1e-9;
        const m = Math.min(d, temp);
        x[i] += (dx[i] / d) * m; y[i] += (dy[i] / d) * m;
      }
      temp = Math.max(temp - cool, 0.5);
    }
    // Fit into the box with a margin. Each axis may stretch up to 1.6 times the other: a wide box gets a wide
    // drawing (room for the labels, which run sideways) without distorting the layout much.
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (let i = 0; i < n; i++) { minX = Math.min(minX, x[i]); maxX = Math.max(maxX, x[i]); minY = Math.min(minY, y[i]); maxY = Math.max(maxY, y[i]); }
    const mx = 90, my = 24;  // labels run sideways: more room left and right than above and below
    const fx = (width - 2 * mx) / Math.max(maxX - minX, 1), fy = (height - 2 * my) / Math.max(maxY - minY, 1);
    const sx = Math.min(fx, 1.6 * fy, 3), sy = Math.min(fy, 1.6 * fx, 3);
    const out = {};
    for (let i = 0; i < n; i++) {
      out[ids[i]] = [mx + (x[i] - minX) * sx + (width - 2 * mx - (maxX - minX) * sx) / 2,
        my + (y[i] - minY) * sy + (height - 2 * my - (maxY - minY) * sy) / 2];
    }
    return out;
  }
  return { layout };
})();
