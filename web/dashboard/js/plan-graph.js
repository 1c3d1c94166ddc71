// The dependency graph of a plan as SVG: steps as nodes, depends_on as edges (prerequisite → step), laid
// out by dagre. Cycles come from the service (violations of code `cycle` name one cycle per strongly
// connected component); every edge inside such a component lies on a cycle and is marked.
import dagre from '/dashboard/vendor/dagre.esm.js';
import { isBound } from './plan-source.js';

const SVG = 'http://www.w3.org/2000/svg';
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const NODE_W = 210;
const NODE_H = 66;
const PAD = 10;

export const PHASES = ['activation', 'demonstration', 'application', 'integration', 'feedback', 'consolidate'];
const PHASE_COLOURS = {
  activation: ['#d6e6ff', '#1f5fbf'],
  demonstration: ['#e8ddff', '#5b3fb0'],
  application: ['#d4f3dc', '#1a7f37'],
  integration: ['#ffe2c4', '#a04d00'],
  feedback: ['#fff0a6', '#7a6400'],
  consolidate: ['#f8d6e7', '#9c2f6b'],
};
const NO_PHASE = ['#f1f3f6', '#7d8796'];
const UNKNOWN_AGENT = ['#eceef2', '#5b6575'];
const AGENT_COLOURS = [
  ['#dbe8fb', '#2457c5'],
  ['#fde4cc', '#b35c00'],
  ['#d6f2e4', '#16704f'],
  ['#f7dbeb', '#a8396f'],
  ['#fff1b8', '#7d6300'],
  ['#e4ddf6', '#5b3fb0'],
  ['#d3eff4', '#12707f'],
  ['#ecdfd2', '#7a5230'],
];
const agentColour = (i) => AGENT_COLOURS[i] ?? [`hsl(${(i * 47) % 360} 60% 90%)`, `hsl(${(i * 47) % 360} 55% 32%)`];

export const EDGE_KINDS = {
  dep: { label: 'depends on (prerequisite → step)', colour: '#6b7585' },
  cycle: { label: 'on a dependency cycle', colour: '#b3261e' },
  'loop-back': { label: 'repeat edge of a bounded loop', colour: '#6b4fd6' },
  dangling: { label: 'depends on a missing step', colour: '#b3261e' },
};

const MISSING = '\u0000missing:';
const LOOP = '\u0000loop:';

/**
 * The graph of `plan` (from plan-source.js) with what the service said about it (`res`, the
 * /validate-plan answer): nodes, edges with their kind, per-step phases, loops.
 */
export function buildModel(plan, res) {
  const steps = [];
  const byId = new Map();
  for (const s of plan.steps) {
    if (byId.has(s.id)) continue;
    byId.set(s.id, s);
    steps.push(s);
  }
  const rank = new Map();
  plan.execution_order.forEach((id, k) => {
    if (byId.has(id) && !rank.has(id)) rank.set(id, k);
  });
  let next = plan.execution_order.length;
  for (const s of steps) if (!rank.has(s.id)) rank.set(s.id, next++);

  const edges = new Map();
  const missing = new Map();
  for (const s of plan.steps) {
    for (const dep of s.depends_on) {
      const from = byId.has(dep) ? dep : MISSING + dep;
      if (!byId.has(dep) && !missing.has(from)) missing.set(from, dep);
      const key = `${from}\u0001${s.id}`;
      if (!edges.has(key)) edges.set(key, { from, to: s.id, kind: byId.has(dep) ? 'dep' : 'dangling' });
    }
  }

  // Which edges lie on a cycle: the components the service named (bounded loops are not cycles to it);
  // should it name none although it gated on `cycle`, every component outside a bounded loop.
  const named = new Set((res.violations ?? []).filter((v) => v.code === 'cycle' && Array.isArray(v.cycle)).flatMap((v) => v.cycle));
  const gatedOnCycle = res.gate?.reasons?.includes('cycle') ?? false;
  const bounded = plan.loops.filter((l) => isBound(l.max_iterations)).map((l) => new Set(l.nodes));
  const g = new dagre.graphlib.Graph();
  for (const s of steps) g.setNode(s.id);
  for (const e of edges.values()) if (e.kind === 'dep') g.setEdge(e.from, e.to);
  const component = new Map();
  for (const members of dagre.graphlib.alg.tarjan(g)) {
    if (members.length === 1 && !g.hasEdge(members[0], members[0])) continue;
    const set = new Set(members);
    const onCycle = members.some((m) => named.has(m)) || (named.size === 0 && gatedOnCycle && !bounded.some((loop) => members.every((m) => loop.has(m))));
    for (const m of members) component.set(m, { set, onCycle });
  }
  for (const e of edges.values()) {
    if (e.kind !== 'dep') continue;
    const c = component.get(e.from);
    if (!c?.set.has(e.to)) continue;
    if (c.onCycle) e.kind = 'cycle';
    else if (rank.get(e.to) <= rank.get(e.from)) e.kind = 'loop-back';
  }

  const phases = new Map();
  for (const p of res.components?.ped?.steps ?? []) if (!phases.has(p.step)) phases.set(p.step, p);
  const agents = plan.agents.map((a) => a.id);
  return {
    steps,
    edges: [...edges.values()],
    missing,
    rank,
    loops: plan.loops,
    agents,
    phases,
    roles: new Map(plan.agents.map((a) => [a.id, a.role])),
    cycles: (res.violations ?? []).filter((v) => v.code === 'cycle' && Array.isArray(v.cycle)).map((v) => v.cycle),
  };
}

/** Fill and stroke of a step under the colouring `by` ('agent' or 'phase'). */
function colours(model, step, by) {
  if (by === 'phase') {
    const first = PHASES.find((p) => model.phases.get(step.id)?.phases.includes(p));
    return first ? PHASE_COLOURS[first] : NO_PHASE;
  }
  const i = model.agents.indexOf(step.agent);
  return i < 0 ? UNKNOWN_AGENT : agentColour(i);
}

/** What the legend shows: [fill, stroke, label, kind] per entry. */
export function legend(model, by) {
  const items = [];
  if (by === 'phase') {
    for (const p of PHASES) items.push({ fill: PHASE_COLOURS[p][0], stroke: PHASE_COLOURS[p][1], label: p, kind: 'node' });
    items.push({ fill: NO_PHASE[0], stroke: NO_PHASE[1], label: 'no phase detected', kind: 'node' });
  } else {
    model.agents.forEach((id, i) => {
      const [fill, stroke] = agentColour(i);
      const role = model.roles.get(id);
      items.push({ fill, stroke, label: role ? `${id} — ${role}` : id, kind: 'node' });
    });
    const unknown = [...new Set(model.steps.map((s) => s.agent).filter((a) => !model.agents.includes(a)))];
    if (unknown.length) items.push({ fill: UNKNOWN_AGENT[0], stroke: UNKNOWN_AGENT[1], label: `unknown agent: ${unknown.join(', ')}`, kind: 'node' });
  }
  const kinds = new Set(model.edges.map((e) => e.kind));
  kinds.add('dep');
  for (const k of Object.keys(EDGE_KINDS)) if (kinds.has(k)) items.push({ stroke: EDGE_KINDS[k].colour, label: EDGE_KINDS[k].label, kind: `edge-${k}` });
  if (model.missing.size) items.push({ fill: '#fdecea', stroke: '#b3261e', label: 'missing step (named in depends_on)', kind: 'missing' });
  if (model.loops.length) items.push({ stroke: '#6b4fd6', label: 'declared loop (id · max iterations)', kind: 'loop' });
  return items;
}

function layout(model, rankdir) {
  const g = new dagre.graphlib.Graph({ compound: true });
  g.setGraph({ rankdir, nodesep: 28, ranksep: 56, edgesep: 14, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const s of model.steps) g.setNode(s.id, { width: NODE_W, height: NODE_H });
  for (const key of model.missing.keys()) g.setNode(key, { width: NODE_W, height: NODE_H });
  for (const e of model.edges) g.setEdge(e.from, e.to);
  // A loop becomes a dagre cluster, so its steps are laid out together. Clusters cannot overlap: a loop
  // sharing a step with an earlier one is outlined by the box around its steps instead.
  const clustered = new Set();
  model.loops.forEach((loop, i) => {
    const members = [...new Set(loop.nodes.filter((n) => model.rank.has(n)))];
    if (members.length === 0 || members.some((m) => clustered.has(m))) return;
    g.setNode(LOOP + i, {});
    for (const m of members) {
      clustered.add(m);
      g.setParent(m, LOOP + i);
    }
  });
  dagre.layout(g);
  // Back edges may be routed outside the nodes' box: the drawing's box covers every point.
  let x0 = Number.POSITIVE_INFINITY;
  let y0 = Number.POSITIVE_INFINITY;
  let x1 = Number.NEGATIVE_INFINITY;
  let y1 = Number.NEGATIVE_INFINITY;
  const cover = (x, y, w = 0, h = 0) => {
    x0 = Math.min(x0, x - w / 2);
    x1 = Math.max(x1, x + w / 2);
    y0 = Math.min(y0, y - h / 2);
    y1 = Math.max(y1, y + h / 2);
  };
  for (const n of g.nodes()) {
    const v = g.node(n);
    cover(v.x, v.y, v.width, v.height);
  }
  for (const e of g.edges()) for (const p of g.edge(e).points) cover(p.x, p.y, 8, 8);
  if (!Number.isFinite(x0)) x0 = y0 = x1 = y1 = 0;
  return { g, rankdir, x0, y0, width: x1 - x0, height: y1 - y0 };
}

/** d3's curveBasis through dagre's points, ending on the last point (where the arrow is). */
function basis(points) {
  const f = (n) => Math.round(n * 10) / 10;
  if (points.length < 3) return `M${points.map((p) => `${f(p.x)},${f(p.y)}`).join('L')}`;
  let d = `M${f(points[0].x)},${f(points[0].y)}`;
  let [x0, y0, x1, y1] = [points[0].x, points[0].y, points[1].x, points[1].y];
  d += `L${f((5 * x0 + x1) / 6)},${f((5 * y0 + y1) / 6)}`;
  const bezier = (x, y) => {
    d += `C${f((2 * x0 + x1) / 3)},${f((2 * y0 + y1) / 3)} ${f((x0 + 2 * x1) / 3)},${f((y0 + 2 * y1) / 3)} ${f((x0 + 4 * x1 + x) / 6)},${f((y0 + 4 * y1 + y) / 6)}`;
  };
  for (const p of points.slice(2)) {
    bezier(p.x, p.y);
    [x0, y0, x1, y1] = [x1, y1, p.x, p.y];
  }
  bezier(x1, y1);
  d += `L${f(x1)},${f(y1)}`;
  return d;
}

function node(tag, attrs = {}, parent) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) n.setAttribute(k, String(v));
  parent?.append(n);
  return n;
}

const measure = document.createElement('canvas').getContext('2d');
function width(text, font) {
  measure.font = font;
  return measure.measureText(text).width;
}

/** `text` cut to `max` px with an ellipsis. */
function fit(text, font, max) {
  if (width(text, font) <= max) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (width(`${text.slice(0, mid)}…`, font) <= max) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo).trimEnd()}…`;
}

/** At most `lines` lines of `text` within `max` px, the last one cut with an ellipsis if need be. */
function wrap(text, font, max, lines) {
  const words = text.split(/\s+/).filter(Boolean);
  const out = [];
  let line = '';
  while (words.length && out.length < lines) {
    const candidate = line ? `${line} ${words[0]}` : words[0];
    if (width(candidate, font) <= max) {
      line = candidate;
      words.shift();
    } else if (!line) {
      out.push(fit(words.shift(), font, max));
    } else {
      out.push(line);
      line = '';
    }
  }
  if (line && out.length < lines) out.push(line);
  if (words.length && out.length) out[out.length - 1] = fit(`${out[out.length - 1]} ${words.join(' ')}`, font, max);
  return out;
}

const ID_FONT = `600 12.5px ${FONT}`;
const SMALL_FONT = `11px ${FONT}`;
const TEXT_FONT = `11.5px ${FONT}`;
const LOOP_FONT = `600 11px ${FONT}`;

function marker(defs, kind) {
  const m = node(
    'marker',
    { id: `plan-arrow-${kind}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
    defs,
  );
  node('path', { d: 'M0,0L10,5L0,10z', fill: EDGE_KINDS[kind].colour }, m);
}

/** One sentence about a step, for its aria-label and title. */
export function describeStep(model, s) {
  const ph = model.phases.get(s.id);
  const deps = s.depends_on.length ? `depends on ${s.depends_on.join(', ')}` : 'no prerequisites';
  const phases = ph?.phases.length ? `phases ${ph.phases.join(', ')}` : 'no Merrill phase detected';
  return `Step ${s.id}, agent ${s.agent || '(none)'}${s.tool ? `, tool ${s.tool}` : ''}; ${phases}; ${deps}. ${s.instruction}`;
}

/**
 * Draws `model` into `container` (replacing what was there). `direction`: 'auto' picks the layout that
 * needs less shrinking to fit `fitWidth`. `onSelect(step | {missing})` runs when a node gets focus or a click.
 */
export function renderGraph(container, model, { by = 'agent', direction = 'auto', fitWidth = 1200, onSelect = () => {} } = {}) {
  let laid;
  if (direction === 'auto') {
    const lr = layout(model, 'LR');
    const tb = layout(model, 'TB');
    const scale = (l) => Math.min(1, fitWidth / Math.max(1, l.width + 2 * PAD));
    laid = scale(lr) > scale(tb) || (scale(lr) === scale(tb) && lr.height <= tb.height) ? lr : tb;
  } else {
    laid = layout(model, direction);
  }
  const { g } = laid;
  const W = Math.ceil(laid.width + 2 * PAD);
  const H = Math.ceil(laid.height + 2 * PAD);
  const svg = node('svg', {
    class: 'plan-graph',
    width: W,
    height: H,
    viewBox: `0 0 ${W} ${H}`,
    role: 'group',
    'aria-label': `Dependency graph: ${model.steps.length} steps, ${model.edges.length} edges, laid out ${laid.rankdir === 'LR' ? 'left to right' : 'top to bottom'}`,
    'data-rankdir': laid.rankdir,
  });
  const defs = node('defs', {}, svg);
  for (const kind of Object.keys(EDGE_KINDS)) marker(defs, kind);
  const root = node('g', { transform: `translate(${PAD - laid.x0},${PAD - laid.y0})` }, svg);

  // Loops: the cluster dagre laid out, or (a step already in another loop) the box around its steps.
  const loopLayer = node('g', { class: 'loops' }, root);
  const labels = [];
  model.loops.forEach((loop, i) => {
    let box;
    if (g.hasNode(LOOP + i)) {
      const c = g.node(LOOP + i);
      box = { x: c.x - c.width / 2, y: c.y - c.height / 2, w: c.width, h: c.height };
    } else {
      const members = loop.nodes.filter((n) => g.hasNode(n)).map((n) => g.node(n));
      if (members.length === 0) return;
      const xs = members.flatMap((m) => [m.x - m.width / 2, m.x + m.width / 2]);
      const ys = members.flatMap((m) => [m.y - m.height / 2, m.y + m.height / 2]);
      box = { x: Math.min(...xs) - 12, y: Math.min(...ys) - 22, w: Math.max(...xs) - Math.min(...xs) + 24, h: Math.max(...ys) - Math.min(...ys) + 34 };
    }
    const bounded = isBound(loop.max_iterations);
    const grp = node('g', { class: `loop${bounded ? '' : ' unbounded'}`, 'data-loop': loop.id, 'data-bounded': String(bounded) }, loopLayer);
    node('title', {}, grp).textContent =
      `Loop ${loop.id}: ${loop.nodes.join(', ')}; ${bounded ? `at most ${loop.max_iterations} iterations` : 'no positive integer max_iterations'}${loop.exit_condition ? `; exits when ${loop.exit_condition}` : ''}`;
    node('rect', { x: box.x, y: box.y, width: box.w, height: box.h, rx: 10 }, grp);
    const label = `${loop.id} · ${bounded ? `≤ ${loop.max_iterations}×` : 'unbounded'}`;
    // Drawn above the edges (an edge entering the loop may cross its top), on a halo.
    labels.push([
      { x: box.x + 8, y: box.y + 14, class: `loop-label${bounded ? '' : ' unbounded'}`, 'data-loop-label': loop.id },
      fit(label, LOOP_FONT, box.w - 16),
    ]);
  });

  const edgeLayer = node('g', { class: 'edges' }, root);
  const edgeEls = [];
  const order = { dep: 0, 'loop-back': 1, dangling: 2, cycle: 3 };
  for (const e of [...model.edges].sort((a, b) => order[a.kind] - order[b.kind])) {
    const from = e.from.startsWith(MISSING) ? e.from.slice(MISSING.length) : e.from;
    const grp = node(
      'g',
      {
        class: `edge ${e.kind}`,
        'data-edge': `${from}→${e.to}`,
        'data-from': from,
        'data-to': e.to,
        'data-kind': e.kind,
        'data-cycle': String(e.kind === 'cycle'),
      },
      edgeLayer,
    );
    node('title', {}, grp).textContent = `${from} → ${e.to}: ${EDGE_KINDS[e.kind].label}`;
    node('path', { d: basis(g.edge(e.from, e.to).points), 'marker-end': `url(#plan-arrow-${e.kind})` }, grp);
    edgeEls.push({ e, el: grp });
  }

  const labelLayer = node('g', { class: 'loop-labels', 'aria-hidden': 'true' }, root);
  for (const [a, text] of labels) node('text', a, labelLayer).textContent = text;

  const nodeLayer = node('g', { class: 'nodes' }, root);
  const select = (grp, detail, id) => {
    for (const n of nodeLayer.querySelectorAll('.node.active')) n.classList.remove('active');
    grp.classList.add('active');
    for (const { el, e } of edgeEls) el.classList.toggle('incident', e.from === id || e.to === id);
    onSelect(detail);
  };
  const steps = [...model.steps].sort((a, b) => model.rank.get(a.id) - model.rank.get(b.id));
  for (const s of steps) {
    const v = g.node(s.id);
    const [fill, stroke] = colours(model, s, by);
    const ph = model.phases.get(s.id);
    const grp = node(
      'g',
      {
        class: 'node',
        transform: `translate(${v.x - NODE_W / 2},${v.y - NODE_H / 2})`,
        tabindex: 0,
        role: 'button',
        'aria-label': describeStep(model, s),
        'data-step': s.id,
        'data-agent': s.agent,
        'data-phases': ph?.phases.join(' ') ?? '',
      },
      nodeLayer,
    );
    node('title', {}, grp).textContent = describeStep(model, s);
    node('rect', { width: NODE_W, height: NODE_H, rx: 6, fill, stroke }, grp);
    if (by === 'phase' && ph?.phases.length > 1) {
      const seg = (NODE_W - 12) / ph.phases.length;
      ph.phases.forEach((p, k) => {
        node('rect', { x: 6 + k * seg, y: NODE_H - 7, width: seg - 2, height: 4, rx: 2, fill: PHASE_COLOURS[p][1] }, grp);
      });
    }
    const head = node('text', { x: PAD, y: 17, class: 'head' }, grp);
    const idText = fit(s.id, ID_FONT, NODE_W - 2 * PAD);
    node('tspan', { class: 'id' }, head).textContent = idText;
    const room = NODE_W - 2 * PAD - width(idText, ID_FONT) - 6;
    const tag = [s.tool, s.human_input ? 'human input' : ''].filter(Boolean).join(' · ');
    if (tag && room > 30) node('tspan', { class: 'tool', dx: 6 }, head).textContent = fit(tag, SMALL_FONT, room);
    wrap(s.instruction, TEXT_FONT, NODE_W - 2 * PAD, 3).forEach((line, k) => {
      node('text', { x: PAD, y: 33 + k * 14, class: 'instr' }, grp).textContent = line;
    });
    grp.addEventListener('focus', () => select(grp, { step: s }, s.id));
    grp.addEventListener('click', () => grp.focus());
  }
  for (const [key, id] of model.missing) {
    const v = g.node(key);
    const label = `Missing step ${id}: named in depends_on of ${model.edges
      .filter((e) => e.from === key)
      .map((e) => e.to)
      .join(', ')}, but no step has this id`;
    const grp = node(
      'g',
      {
        class: 'node missing',
        transform: `translate(${v.x - NODE_W / 2},${v.y - NODE_H / 2})`,
        tabindex: 0,
        role: 'button',
        'aria-label': label,
        'data-missing': id,
      },
      nodeLayer,
    );
    node('title', {}, grp).textContent = label;
    node('rect', { width: NODE_W, height: NODE_H, rx: 6 }, grp);
    node('text', { x: PAD, y: 24, class: 'head' }, grp).textContent = fit(`missing: ${id}`, ID_FONT, NODE_W - 2 * PAD);
    node('text', { x: PAD, y: 44, class: 'instr' }, grp).textContent = 'no step has this id';
    grp.addEventListener('focus', () => select(grp, { missing: id, label }, key));
    grp.addEventListener('click', () => grp.focus());
  }
  container.replaceChildren(svg);
  return svg;
}
