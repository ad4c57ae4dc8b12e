// The cluster panel: each node of the cluster the company runs on (those
// cluster.yaml lists that never joined too), its state, how long ago the CEO
// node last heard from it, its resource units, the frames its gateway
// dropped, by reason, and the agents placed on it. A company in one process
// says so in one line.
import { el, replaceKids, duration } from './dom.js';

function droppedTotal(d) {
  return Object.values(d || {}).reduce((sum, v) => sum + (Number(v) || 0), 0);
}

function droppedText(d) {
  if (!d) return 'dropped frames not known yet';
  const total = droppedTotal(d);
  if (!total) return 'no dropped frames';
  const reasons = Object.entries(d).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`);
  return `${total} dropped frames (${reasons.join(', ')})`;
}

function heard(n) {
  if (n.self) return 'this node';
  if (n.state === 'never joined') return 'never heard from';
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
      n.state === 'never joined'
        ? null
        : el('span', {
            'data-testid': 'node-dropped',
            'data-total': n.dropped_frames ? String(droppedTotal(n.dropped_frames)) : '',
            text: ' · ' + droppedText(n.dropped_frames),
          }),
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
  // Every node's that is known (the CEO node's own when no other answered yet).
  const known = c.nodes.filter((n) => n.dropped_frames);
  const total = known.length ? known.reduce((sum, n) => sum + droppedTotal(n.dropped_frames), 0) : droppedTotal(c.dropped_frames);
  const byNode = known.filter((n) => droppedTotal(n.dropped_frames) > 0).map((n) => `${n.name} ${droppedTotal(n.dropped_frames)}`);
  replaceKids(
    root,
    el('div', { class: 'cluster-nodes' }, c.nodes.map(nodeCard)),
    el('p', {
      class: 'muted',
      'data-testid': 'dropped-frames',
      'data-total': total,
      text: total ? 'Dropped frames: ' + (byNode.length ? byNode.join(', ') : total) : 'No dropped frames.',
    }),
  );
}
