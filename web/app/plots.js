// The page's plots (Chart.js 3, Debian's libjs-chart.js): a chart in a div,
// its legend drawn in HTML (a dashed theory line looks dashed there), its
// numbers as a text alternative on the canvas (role img, aria-label), a
// marker for the current d_k on the sweeps. main.js calls these with the
// engine's values; nothing here computes a statistic, only draws.
'use strict';

const plots = {};
Chart.defaults.animation = false;
Chart.defaults.color = '#222';
Chart.defaults.font.family = 'system-ui, sans-serif';
// Readable from the back of a lecture room: 16 px ticks and axis titles.
Chart.defaults.font.size = 16;
const COLOURS = { raw: '#d62728', scaled: '#1f77b4', theory: '#222', mark: '#2ca02c' };

// Datasets drawn in their order, a later one on top (Chart.js draws the
// first on top unless told); legend and tooltip keep their order.
const byIndex = (a, b) => a.datasetIndex - b.datasetIndex;

function axis(title, more) {
  return Object.assign({ type: 'linear', title: { display: !!title, text: title, font: { size: 16 } } }, more);
}

// The legend in HTML under the canvas: a line as its curve (dashed as it
// is), a filled box for an area; data-dash says which, for the page test.
function legend(el, datasets) {
  const ul = document.createElement('ul');
  ul.className = 'legend';
  for (const ds of datasets) {
    if (ds.legend === false) continue;
    const li = document.createElement('li');
    const svgNS = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(svgNS, 'svg');
    svg.setAttribute('width', '36'); svg.setAttribute('height', '14'); svg.setAttribute('aria-hidden', 'true');
    const dash = (ds.borderDash || []).join(' ');
    if (ds.fill) {
      const r = document.createElementNS(svgNS, 'rect');
      for (const [k, v] of [['x', 2], ['y', 2], ['width', 32], ['height', 10], ['fill', ds.backgroundColor], ['stroke', ds.borderColor]]) r.setAttribute(k, v);
      svg.append(r);
    } else {
      const l = document.createElementNS(svgNS, 'line');
      for (const [k, v] of [['x1', 1], ['y1', 7], ['x2', 35], ['y2', 7], ['stroke', ds.borderColor], ['stroke-width', 3]]) l.setAttribute(k, v);
      if (dash) l.setAttribute('stroke-dasharray', dash);
      svg.append(l);
    }
    li.dataset.dash = dash ? 'dashed' : 'solid';
    li.append(svg, document.createTextNode(' ' + ds.label));
    ul.append(li);
  }
  el.append(ul);
}

// A short text of what a dataset draws: its points when few, else its
// range and peak (a histogram of 60 bins is not read out bin by bin).
function describe(ds) {
  const pts = ds.data.filter((p) => p.y !== null && Number.isFinite(p.y));
  if (!pts.length) return `${ds.label}: no points`;
  if (pts.length <= 12) return `${ds.label}: ` + pts.map((p) => `${fmt(p.x)} → ${fmt(p.y)}`).join(', ');
  const peak = pts.reduce((a, b) => (b.y > a.y ? b : a));
  return `${ds.label}: ${pts.length} points from ${fmt(pts[0].x)} to ${fmt(pts[pts.length - 1].x)}, ` +
    `highest ${fmt(peak.y)} at ${fmt(peak.x)}`;
}

// A chart in the div `id`: a canvas in a box as wide as the panel lets it
// (CSS .chart-box, 300 px high) that Chart.js redraws when the box
// changes size (responsive: a window resized, a phone turned), the title
// on top, the HTML legend below, the text alternative on the canvas.
function plot(id, title, type, datasets, scales, more) {
  const el = $(id);
  if (plots[id]) plots[id].destroy();
  el.textContent = '';
  const box = document.createElement('div');
  box.className = 'chart-box';
  const canvas = document.createElement('canvas');
  canvas.setAttribute('role', 'img');
  box.append(canvas);
  el.append(box);
  const sets = datasets.map((d, i) => Object.assign({ order: -i }, d));
  canvas.setAttribute('aria-label', `${title}. ` + sets.filter((d) => d.legend !== false).map(describe).join('. '));
  plots[id] = new Chart(canvas, Object.assign({
    type, data: { datasets: sets },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      scales,
      plugins: {
        title: { display: true, text: title, font: { size: 17, weight: 'bold' } },
        tooltip: { itemSort: byIndex },
        legend: { display: false },
      },
    },
  }, more));
  legend(el, sets);
  return plots[id];
}
const xy = (xs, ys) => xs.map((x, i) => ({ x, y: ys[i] }));
function barSet(label, xs, ys, colour) {
  return { type: 'bar', label, data: xy(xs, ys), backgroundColor: colour + '66', borderColor: colour, borderWidth: 1,
    barPercentage: 1, categoryPercentage: 0.9, fill: true };
}
function lineSet(label, xs, ys, colour, o) {
  o = o || {};
  return { type: 'line', label, data: xy(xs, ys), borderColor: colour, backgroundColor: o.fill ? colour + '44' : colour,
    borderWidth: o.width || 2, borderDash: o.dash || [], pointRadius: o.points ? 3 : 0,
    pointBackgroundColor: '#fff', pointBorderColor: colour, fill: o.fill ? 'origin' : false, tension: 0, clip: 5,
    stepped: o.stepped || false };
}

// The histogram: raw and scaled on one x axis, as densities (count over
// all scores and the bin's width: the engine's bins of the two differ in
// width), each with its normal curve dashed. bins: [lo, hi, count,
// theory], theory the library's expected count (sv_theory_normal_counts).
function histPlot(id, title, hist, labels) {
  const total = hist.raw.reduce((a, b) => a + b[2], 0) + hist.outside[0];
  const density = (bins, k) => bins.map((b) => (b[k] === null ? null : b[k] / total / (b[1] - b[0])));
  const mid = (bins) => bins.map(([lo, hi]) => (lo + hi) / 2);
  let lo = Math.min(hist.raw[0][0], hist.scaled[0][0]);
  let hi = Math.max(hist.raw[hist.raw.length - 1][1], hist.scaled[hist.scaled.length - 1][1]);
  if (lo < 0 && hi > 0) hi = -(lo = -Math.max(-lo, hi));
  // A raw bell more than 5 times lower than the scaled one (d_k > 25 at
  // 1/√d_k) is drawn against its own axis on the right, else it is a flat line.
  const peak = (ys) => Math.max(...ys.filter((y) => y !== null));
  const rawY = density(hist.raw, 2), scY = density(hist.scaled, 2);
  const ratio = peak(scY) / peak(rawY);
  const own = ratio > 5;
  const onRaw = (ds) => (own ? Object.assign(ds, { yAxisID: 'yRaw' }) : ds);
  const scales = {
    x: axis('score (raw q·k) or logit (scaled)', { min: lo, max: hi, ticks: { includeBounds: false, maxTicksLimit: 9 } }),
    y: axis(own ? 'density, scaled (blue)' : 'density', { beginAtZero: true }),
  };
  if (own) {
    scales.yRaw = axis(`density, raw (red): ${fmt(ratio, 2)}× lower`, { beginAtZero: true, position: 'right',
      grid: { drawOnChartArea: false }, title: { display: true, text: `raw (red), ${fmt(ratio, 2)}× lower`, color: COLOURS.raw },
      ticks: { color: COLOURS.raw, maxTicksLimit: 5 } });
  }
  const chart = plot(id, title, 'line', [
    onRaw(lineSet(labels.raw, mid(hist.raw), rawY, COLOURS.raw, { fill: true, width: 1, stepped: 'middle' })),
    onRaw(lineSet(labels.rawTheory, mid(hist.raw), density(hist.raw, 3), '#7a1010', { dash: [6, 4] })),
    lineSet(labels.scaled, mid(hist.scaled), scY, COLOURS.scaled, { fill: true, width: 1, stepped: 'middle' }),
    lineSet(labels.scaledTheory, mid(hist.scaled), density(hist.scaled, 3), '#0b3d66', { dash: [6, 4] })], scales);
  $(id).dataset.rawAxis = own ? 'right' : 'shared';
  return chart;
}

// A vertical line at x = value (the current d_k, the puzzle's marks).
function markPlugin(marks) {
  return { id: 'marks', afterDatasetsDraw(chart) {
    const c = chart.ctx, area = chart.chartArea;
    for (const m of marks) {
      const px = chart.scales.x.getPixelForValue(m.value);
      if (!(px >= area.left - 0.5 && px <= area.right + 0.5)) continue;
      c.save(); c.strokeStyle = m.colour; c.lineWidth = 2; c.setLineDash(m.dash || []);
      c.beginPath(); c.moveTo(px, area.top); c.lineTo(px, area.bottom); c.stroke();
      if (m.text) { c.fillStyle = m.colour; c.font = '15px system-ui, sans-serif'; c.fillText(m.text, px + 4, area.top + 14); }
      c.restore();
    }
  } };
}

// d_k on a log axis, ticks at 1, 4, 16, ... 1024; the current d_k marked.
const LOG_TICKS = [1, 4, 16, 64, 256, 1024];
function sweepPlot(id, title, rows, series, dk, yTitle) {
  const dks = rows.map((r) => r.summary.dk);
  const chart = plot(id, title, 'line', series.map((s) => lineSet(s.label, dks, rows.map(s.get), s.colour,
    { dash: s.dash, points: !s.dash })), {
    x: { type: 'logarithmic', min: 1, max: 1024, title: { display: true, text: 'd_k (log scale)' },
      afterBuildTicks: (a) => { a.ticks = LOG_TICKS.map((value) => ({ value })); },
      ticks: { callback: (v) => Number(v).toLocaleString('en-US') } },
    y: axis(yTitle || ''),
  }, { plugins: [markPlugin([{ value: dk, colour: COLOURS.mark, dash: [3, 3], text: `d_k = ${dk}` }])] });
  $(id).dataset.markDk = String(dk);
  return chart;
}
