// uPlot helpers for the run page (and the legend swatches of the trace page): per-step line charts that keep their width, with labelled axes and a
// legend that shows each series' value under the cursor.
import uPlot from '/dashboard/vendor/uPlot.esm.js';

// Whole steps only on the x axis.
const STEP_INCRS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 20_000, 50_000, 100_000];

const HEIGHT = 240;

const fixed = (digits) => (_u, v) => (v === null || v === undefined ? '–' : v.toFixed(digits));

/** A legend swatch drawn like its line: dashed for a dashed series (uPlot draws every swatch solid). */
export const dashedMarker = (u, i) => (u.series[i].dash ? 'dashed' : 'solid');

/** A series drawn as points only (no line), e.g. markers. */
export const pointsOnly = () => null;

// The y axis drawn (its label and range), on the chart's figure, for tests and scripts (the canvas hides it).
function recordYAxis(u) {
  const figure = u.root.closest('figure');
  if (!figure) return;
  figure.dataset.yLabel = u.axes[1].label;
  figure.dataset.y = `${u.scales.y.min},${u.scales.y.max}`;
}

/**
 * A uPlot chart in `host` over data [steps, ...series]. `yLabel` names the y axis with its unit; `digits`
 * formats legend values and ticks. The chart follows the host's width.
 */
export function stepChart(host, { yLabel, series, digits = 3, yRange, hooks, data }) {
  const width = () => Math.max(300, host.clientWidth);
  const opts = {
    width: width(),
    height: HEIGHT,
    scales: { x: { time: false }, y: yRange ? { range: yRange } : {} },
    axes: [
      { label: 'training step', labelSize: 20, incrs: STEP_INCRS, values: (_u, ticks) => ticks.map((t) => String(t)), stroke: '#1d2430' },
      { label: yLabel, labelSize: 20, size: 56, values: (_u, ticks) => ticks.map((t) => +t.toFixed(digits)), stroke: '#1d2430' },
    ],
    series: [{ label: 'step', value: (_u, v) => (v === null || v === undefined ? '–' : String(v)) }, ...series.map((s) => ({ value: fixed(digits), ...s }))],
    legend: { live: true, markers: { dash: dashedMarker } },
    cursor: { drag: { x: true, y: false } },
    hooks: { ...hooks, draw: [...(hooks?.draw ?? []), recordYAxis] },
  };
  const u = new uPlot(opts, data, host);
  const resize = new ResizeObserver(() => {
    if (Math.abs(u.width - width()) > 1) u.setSize({ width: width(), height: HEIGHT });
  });
  resize.observe(host);
  return {
    plot: u,
    /** New data; the x range follows the data unless the user zoomed in (then the zoom is kept). */
    update(next) {
      const zoomed = u.scales.x.min !== undefined && u.data[0].length > 0 && (u.scales.x.min > u.data[0][0] || u.scales.x.max < u.data[0].at(-1));
      if (zoomed) {
        const { min, max } = u.scales.x;
        u.setData(next, false);
        u.setScale('x', { min, max });
      } else u.setData(next);
      // How many steps the chart holds, for tests and scripts (the canvas hides it).
      const figure = host.closest('figure');
      if (figure) figure.dataset.points = String(u.data[0].length);
    },
    destroy() {
      resize.disconnect();
      u.destroy();
    },
  };
}

/** A plugin-less hook: vertical dashed lines at the given x values, each in its colour. */
export function verticalMarkers(markers) {
  return {
    draw: [
      (u) => {
        const { ctx } = u;
        const { top, height } = u.bbox;
        ctx.save();
        ctx.lineWidth = 1.5 * devicePixelRatio;
        ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
        for (const { x, color } of markers()) {
          const px = Math.round(u.valToPos(x, 'x', true));
          if (px < u.bbox.left || px > u.bbox.left + u.bbox.width) continue;
          ctx.strokeStyle = color;
          ctx.beginPath();
          ctx.moveTo(px, top);
          ctx.lineTo(px, top + height);
          ctx.stroke();
        }
        ctx.restore();
      },
    ],
  };
}

export const stepped = () => uPlot.paths.stepped({ align: 1 });
