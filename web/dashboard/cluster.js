// The cluster panel: each node of the cluster the company runs on, its state,
// how long ago the CEO node last heard from it, its resource units and the
// agents placed on it, and the frames the CEO node's gateway dropped, by
// reason. A company in one process says so in one line.
import { el, replaceKids, duration } from './dom.js';

function heard(n) {
  if (n.self) return 'this node';
  if (n.heartbeat_age_ms === null || n.heartbeat_age_ms === undefined) return 'never heard from';
  return 'heard ' + duration(n.heartbeat_age_ms) + ' ago';
}

function nodeCard(n) {
  const units = n.resource_units ? `${n.resources_used || 0} of ${n.resource_units} units` : '';
  return el(
    'div',
    { class: 'cluster-node', 'data-testid': 'cluster-node', dataset: { name: n.name, state: n.state } },
    el(
      'div',
      { class: 'cluster-node-head' },
      el('span', { class: 'cluster-node-name', text: n.name + (n.ceo ? ' · CEO' : '') }),
      el('span', { class: 'badge', 'data-status': n.state, text: n.state }),
    ),
    el(
      'div',
      { class: 'muted' },
      el('span', { 'data-testid': 'heartbeat-age', 'data-ms': n.self ? '' : n.heartbeat_age_ms ?? '', text: heard(n) }),
      units ? ' · ' + units : '',
    ),
    n.agents.length
      ? el(
          'ul',
          { class: 'cluster-agents' },
          n.agents.map((a) =>
            el('li', { 'data-testid': 'cluster-agent', dataset: { name: a.name, state: a.state } }, el('span', { text: a.name }), el('span', { class: 'muted', text: [a.model, a.state].filter(Boolean).join(' · ') })),
          ),
        )
      : null,
  );
}

export function renderCluster(root, noteNode, c) {
  if (!c) return;
  if (!c.cluster) {
    noteNode.textContent = '';
    replaceKids(root, el('p', { class: 'muted', 'data-testid': 'single-node', text: 'Single node: this server runs every agent.' }));
    return;
  }
  const alive = c.nodes.filter((n) => n.state === 'alive').length;
  noteNode.textContent = `${alive} of ${c.nodes.length} nodes alive`;
  const dropped = Object.entries(c.dropped_frames || {}).filter(([, v]) => v > 0);
  const total = dropped.reduce((sum, [, v]) => sum + v, 0);
  replaceKids(
    root,
    el('div', { class: 'cluster-nodes' }, c.nodes.map(nodeCard)),
    el('p', {
      class: 'muted',
      'data-testid': 'dropped-frames',
      'data-total': total,
      text: total ? 'Dropped frames: ' + dropped.map(([k, v]) => `${k} ${v}`).join(', ') : 'No dropped frames.',
    }),
  );
}
