// A ledger over time: what was used after each journaled entry, as a line,
// with the budget (the ledger's total) as a dashed line above it.
import { el, svg, replaceKids, usd, clock } from './dom.js';

export function renderLedger(root, { title, points, total, used, money }) {
  const fmt = money ? usd : (v) => (Number(v) || 0).toFixed(1);
  const last = points.length ? points[points.length - 1] : null;
  const now = last ? last.used : used || 0;
  const head = el(
    'div',
    { class: 'chart-title' },
    el('span', { text: title }),
    el('strong', { 'data-testid': 'ledger-last', 'data-value': String(now), 'data-total': String(total || 0), text: fmt(now) + (total ? ' of ' + fmt(total) : '') }),
  );
  if (!points.length) return replaceKids(root, head, el('p', { class: 'empty', text: 'Nothing charged yet.' }));
  const W = 320, H = 120, L = 34, R = 8, T = 8, B = 18;
  const t0 = points[0].at_ms, t1 = Math.max(points[points.length - 1].at_ms, t0 + 1);
  // The budget sets the scale unless spending is a sliver of it: then the
  // spending does, and the budget line sits at the top, marked off scale.
  const most = Math.max(...points.map((p) => p.used));
  const offScale = total > 0 && most < total * 0.2;
  const top = (offScale ? most * 1.25 : Math.max(total || 0, most) * 1.08) || 1;
  const x = (t) => L + ((t - t0) / (t1 - t0)) * (W - L - R);
  const y = (v) => T + (1 - v / top) * (H - T - B);
  let d = '';
  points.forEach((p, i) => {
    // a step line: the amount holds until the next entry
    if (i) d += ` L${x(p.at_ms).toFixed(1)},${y(points[i - 1].used).toFixed(1)}`;
    d += `${i ? ' L' : 'M'}${x(p.at_ms).toFixed(1)},${y(p.used).toFixed(1)}`;
  });
  const area = `${d} L${x(t1).toFixed(1)},${y(0)} L${x(t0).toFixed(1)},${y(0)} Z`;
  const parts = [
    svg('line', { class: 'axis', x1: L, y1: y(0), x2: W - R, y2: y(0) }),
    svg('text', { class: 'axis-text', x: 2, y: y(0) + 3, text: fmt(0) }),
    svg('text', { class: 'axis-text', x: 2, y: T + 8, text: fmt(offScale ? most : top / 1.08) }),
    svg('text', { class: 'axis-text', x: L, y: H - 4, text: clock(t0) }),
    svg('text', { class: 'axis-text', x: W - R, y: H - 4, 'text-anchor': 'end', text: clock(t1) }),
    svg('path', { class: 'series-area', d: area }),
    svg('path', { class: 'series', d }),
  ];
  if (total) {
    const by = offScale ? T : y(total);
    parts.push(svg('line', { class: 'budget-line', 'data-testid': 'budget-line', x1: L, y1: by, x2: W - R, y2: by }));
    parts.push(svg('text', { class: 'axis-text', x: W - R, y: by + 11, 'text-anchor': 'end', text: 'budget ' + fmt(total) + (offScale ? ' (above the scale)' : '') }));
  }
  const lp = points[points.length - 1];
  parts.push(svg('circle', { class: 'last-dot', 'data-testid': 'ledger-point', cx: x(lp.at_ms), cy: y(lp.used), r: 3.5 }));
  replaceKids(root, head, svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title + ' over time' }, parts));
}
