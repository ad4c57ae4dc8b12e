// A task's structure, from its strategy's tree builder (the same tree as
// `kaisha history TASK --tree`): drawings of the nodes that carry a key, with
// edges from the keys in their `after` (effgen's subtask DAG, HiVA's graph
// with its routed edges, HALO's search tree, the pyramid's call tree), and
// the whole tree as an outline below them.
import { el, svg, replaceKids, usd, count, duration } from './dom.js';

// The drawings in a tree: the keyed nodes under one unkeyed node form one
// (effgen's plan, each HiVA iteration's graph, HALO's searches, the
// pyramid's calls), each node with an edge from every key in its `after`.
function drawings(tree) {
  const groups = new Map(); // container node -> its keyed nodes
  const walk = (n, container) => {
    if (n.key) {
      if (!groups.has(container)) groups.set(container, []);
      groups.get(container).push(n);
    }
    for (const c of n.children || []) walk(c, n.key ? container : n);
  };
  walk(tree, tree);
  return [...groups].map(([container, nodes]) => ({ title: container === tree ? '' : container.label, nodes }));
}

function statusOf(n, taskStatus) {
  if (n.status === 'rejected' || n.status === 'failed' || n.status === 'refused') return 'failed';
  if (n.status === 'skipped') return 'skipped';
  if (n.status === 'not run') return taskStatus === 'running' ? 'waiting' : 'skipped';
  if (n.ms !== null && n.ms !== undefined && n.ms >= 0) return 'done';
  return taskStatus === 'running' ? 'running' : 'done';
}

function clip(text, max) {
  const chars = Array.from(text || '');
  return chars.length > max ? chars.slice(0, max - 1).join('') + '…' : chars.join('');
}

// A node's first line: effgen's subtask and its worker; an agent (HiVA's,
// HALO's search nodes) by its name; else the node's own label.
function headline(n) {
  if (n.kind === 'subtask' && n.agent && n.agent !== n.key) return n.key + ' · ' + n.agent;
  if (n.kind === 'agent' && n.agent) return n.agent;
  return n.label || n.key;
}

let markers = 0; // each drawing's arrowheads get ids of their own

function graph(nodes, taskStatus, title) {
  const byKey = new Map(nodes.map((n) => [n.key, n]));
  const level = new Map();
  const depth = (n, seen = new Set()) => {
    if (level.has(n.key)) return level.get(n.key);
    if (seen.has(n.key)) return 0;
    seen.add(n.key);
    let d = 0;
    for (const k of n.after || []) if (byKey.has(k)) d = Math.max(d, depth(byKey.get(k), seen) + 1);
    level.set(n.key, d);
    return d;
  };
  nodes.forEach((n) => depth(n));
  const columns = [];
  for (const n of nodes) (columns[level.get(n.key)] ||= []).push(n);
  const W = 170, H = 50, GX = 56, GY = 16, PAD = 12;
  const rows = Math.max(...columns.map((c) => c.length));
  const width = PAD * 2 + columns.length * W + (columns.length - 1) * GX;
  const height = PAD * 2 + rows * H + (rows - 1) * GY;
  const pos = new Map();
  columns.forEach((col, ci) => {
    const offset = ((rows - col.length) * (H + GY)) / 2;
    col.forEach((n, ri) => pos.set(n.key, { x: PAD + ci * (W + GX), y: PAD + offset + ri * (H + GY) }));
  });
  const id = 'arrow-' + ++markers;
  const edges = [];
  for (const n of nodes)
    for (const k of n.after || []) {
      if (!pos.has(k)) continue;
      const a = pos.get(k), b = pos.get(n.key);
      const routed = (n.routed || []).includes(k);
      // An edge within one column (a graph with a cycle) bends out to the right.
      const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x - 4, y2 = b.y + H / 2, mx = x2 > x1 ? (x1 + x2) / 2 : x1 + GX / 2;
      edges.push(
        svg('path', {
          class: 'dag-edge' + (routed ? ' routed' : ''),
          'data-from': k,
          'data-to': n.key,
          'data-routed': routed ? 'true' : null,
          d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`,
          'marker-end': `url(#${id})`,
        }),
      );
    }
  const boxes = nodes.map((n) => {
    const p = pos.get(n.key);
    const status = statusOf(n, taskStatus);
    const nums = [n.ms >= 0 ? duration(n.ms) : '', n.usd ? usd(n.usd) : ''].filter(Boolean).join(' · ');
    return svg(
      'g',
      { class: 'dag-node', 'data-key': n.key, 'data-kind': n.kind || '', 'data-status': status, transform: `translate(${p.x},${p.y})` },
      svg('title', { text: n.label }),
      svg('rect', { width: W, height: H, rx: 9 }),
      svg('text', { x: 10, y: 20, text: clip(headline(n), 24) }),
      svg('text', { x: 10, y: 38, class: 'sub', text: clip(nums || status, 28) }),
    );
  });
  const defs = svg('defs', {}, svg('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, svg('path', { class: 'dag-arrow', d: 'M0,0 L10,5 L0,10 z' })));
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title || 'task graph' }, defs, edges, boxes);
  chart.style.maxWidth = width + 'px'; // through CSSOM: the page's policy refuses style attributes
  return el('figure', { class: 'dag-figure', 'data-testid': 'dag-figure' }, title ? el('figcaption', { class: 'muted', text: title }) : null, chart);
}

// The latest few drawings (a long HiVA run has one per iteration; the
// outline below holds them all).
const MAX_DRAWINGS = 3;

export function renderDag(root, tree, taskStatus) {
  const all = tree ? drawings(tree) : [];
  if (!all.length) return replaceKids(root);
  const shownDrawings = all.slice(-MAX_DRAWINGS);
  const note = all.length > shownDrawings.length ? el('p', { class: 'muted', text: `The last ${shownDrawings.length} of ${all.length} drawings; the outline below holds every one.` }) : null;
  replaceKids(root, note, shownDrawings.map((d) => graph(d.nodes, taskStatus, d.title)));
}

// A long task's outline is shown in pages: a node's children 50 at a time,
// and at most ROWS rows in all (a long HASHIRU task asks thousands of times),
// the rest behind "more" buttons that show the next page.
const CHILD_PAGE = 50;
const ROWS = 250;
const shown = { task: '', pages: new Map(), extra: 0 }; // node path -> children shown; rows added by "more"

function outline(n, path, ctx) {
  ctx.left--;
  const nums = [];
  if (n.tokens_in || n.tokens_out) nums.push(count(n.tokens_in) + '/' + count(n.tokens_out) + ' tok');
  if (n.usd) nums.push(usd(n.usd));
  if (n.ms !== null && n.ms !== undefined && n.ms >= 0) nums.push(duration(n.ms));
  const row = el(
    'div',
    { class: 'tree-row', 'data-kind': n.kind || '' },
    el('span', { class: 'tree-kind', text: n.kind || '' }),
    el('span', { class: 'tree-label', text: n.label || '' }),
    n.status ? el('span', { class: 'tree-status', text: n.status }) : null,
    nums.length ? el('span', { class: 'tree-nums', text: nums.join(' · ') }) : null,
  );
  const children = n.children || [];
  const limit = shown.pages.get(path) || CHILD_PAGE;
  const kids = [];
  for (let i = 0; i < children.length && i < limit && ctx.left > 0; i++) kids.push(outline(children[i], path + '/' + i, ctx));
  if (kids.length < children.length) {
    const rest = children.length - kids.length;
    const from = kids.length;
    kids.push(
      el(
        'li',
        { class: 'tree-more' },
        el('button', {
          type: 'button',
          'data-testid': 'tree-more',
          text: `${Math.min(rest, CHILD_PAGE)} more of ${rest}`,
          onclick: () => {
            shown.pages.set(path, from + CHILD_PAGE);
            shown.extra += CHILD_PAGE;
            ctx.redraw();
          },
        }),
      ),
    );
  }
  return el('li', { 'data-testid': 'tree-node' }, row, kids.length ? el('ul', {}, kids) : null);
}

export function renderTree(root, tree, task = '') {
  if (!tree) return replaceKids(root, el('p', { class: 'empty', text: 'Pick a task to see its structure.' }));
  if (task !== shown.task) Object.assign(shown, { task, pages: new Map(), extra: 0 });
  const ctx = { left: ROWS + shown.extra, redraw: () => renderTree(root, tree, task) };
  replaceKids(root, el('ul', {}, outline(tree, '0', ctx)));
}
