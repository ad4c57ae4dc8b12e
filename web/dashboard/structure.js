// A task's structure, from its strategy's tree builder (the same tree as
// `kaisha history TASK --tree`): a graph of the nodes that carry a key and
// the keys they waited for (effgen's subtask DAG), and the whole tree as an
// outline below it.
import { el, svg, replaceKids, usd, count, duration } from './dom.js';

function graphNodes(tree) {
  const out = [];
  const walk = (n) => {
    if (n.key) out.push(n);
    for (const c of n.children || []) walk(c);
  };
  walk(tree);
  return out;
}

function statusOf(n, taskStatus) {
  if (n.status === 'rejected' || n.status === 'failed' || n.status === 'refused') return 'failed';
  if (n.status === 'not run') return taskStatus === 'running' ? 'waiting' : 'skipped';
  if (n.ms !== null && n.ms !== undefined && n.ms >= 0) return 'done';
  return taskStatus === 'running' ? 'running' : 'done';
}

function clip(text, max) {
  const chars = Array.from(text || '');
  return chars.length > max ? chars.slice(0, max - 1).join('') + '…' : chars.join('');
}

export function renderDag(root, tree, taskStatus) {
  const nodes = tree ? graphNodes(tree) : [];
  if (!nodes.length) return replaceKids(root);
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
  const edges = [];
  for (const n of nodes)
    for (const k of n.after || []) {
      if (!pos.has(k)) continue;
      const a = pos.get(k), b = pos.get(n.key);
      const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x - 4, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
      edges.push(svg('path', { class: 'dag-edge', 'data-from': k, 'data-to': n.key, d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`, 'marker-end': 'url(#arrow)' }));
    }
  const boxes = nodes.map((n) => {
    const p = pos.get(n.key);
    const status = statusOf(n, taskStatus);
    const who = n.agent ? n.agent : status;
    const nums = [n.ms >= 0 ? duration(n.ms) : '', n.usd ? usd(n.usd) : ''].filter(Boolean).join(' · ');
    return svg(
      'g',
      { class: 'dag-node', 'data-key': n.key, 'data-status': status, transform: `translate(${p.x},${p.y})` },
      svg('title', { text: n.label }),
      svg('rect', { width: W, height: H, rx: 9 }),
      svg('text', { x: 10, y: 20, text: clip(n.key + ' · ' + who, 24) }),
      svg('text', { x: 10, y: 38, class: 'sub', text: clip(nums || status, 28) }),
    );
  });
  const defs = svg('defs', {}, svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, svg('path', { class: 'dag-arrow', d: 'M0,0 L10,5 L0,10 z' })));
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'subtask graph' }, defs, edges, boxes);
  chart.style.maxWidth = width + 'px'; // through CSSOM: the page's policy refuses style attributes
  replaceKids(root, chart);
}

function outline(n) {
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
  const kids = (n.children || []).map(outline);
  return el('li', { 'data-testid': 'tree-node' }, row, kids.length ? el('ul', {}, kids) : null);
}

export function renderTree(root, tree) {
  if (!tree) return replaceKids(root, el('p', { class: 'empty', text: 'Pick a task to see its structure.' }));
  replaceKids(root, el('ul', {}, outline(tree)));
}
