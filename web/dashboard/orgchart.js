// The org chart: the company's agents grouped by the cluster node they run
// on, in tiers (CEO; planner and judge; employees; workers), each with its
// state, model, tokens and dollars.
import { el, replaceKids, usd, count } from './dom.js';

const TIERS = [
  ['ceo', 'CEO'],
  ['system', 'Planner and judge'],
  ['employee', 'Employees'],
  ['worker', 'Workers'],
];

function tierOf(role) {
  if (role === 'ceo') return 'ceo';
  if (role === 'planner' || role === 'judge') return 'system';
  if (role === 'employee') return 'employee';
  return 'worker';
}

function card(a) {
  const model = a.model ? a.model : a.role;
  return el(
    'div',
    { class: 'agent', 'data-testid': 'agent-card', 'data-placed': a.placed === false ? 'false' : null, dataset: { role: a.role || '', state: a.state || '', name: a.name || '' } },
    el('div', { class: 'agent-name', text: a.name }),
    el('div', { class: 'agent-meta', text: [a.role, a.state !== 'active' && a.state !== 'hired' ? a.state : '', a.placed === false ? 'not placed' : '', model].filter(Boolean).join(' · ') }),
    el(
      'div',
      { class: 'agent-nums' },
      el('span', { title: 'tokens in / out', text: count(a.tokens_in) + ' / ' + count(a.tokens_out) + ' tok' }),
      el('span', { title: 'dollars', text: usd(a.usd) }),
    ),
  );
}

export function renderOrg(root, agents, countNode) {
  const byNode = new Map();
  for (const a of agents) {
    const node = a.node || '';
    if (!byNode.has(node)) byNode.set(node, []);
    byNode.get(node).push(a);
  }
  const groups = [];
  for (const [node, list] of byNode) {
    const tiers = TIERS.map(([tier, title]) => {
      const members = list.filter((a) => tierOf(a.role) === tier);
      if (!members.length) return null;
      return el('div', { class: 'tier', 'aria-label': title }, members.map(card));
    });
    groups.push(el('div', { class: 'node-group', dataset: { node } }, el('div', { class: 'node-title', text: node ? 'node ' + node : 'this server' }), tiers));
  }
  if (!groups.length) groups.push(el('p', { class: 'empty', text: 'No agents yet.' }));
  replaceKids(root, groups);
  const hired = agents.filter((a) => a.role === 'employee' && a.state === 'hired').length;
  countNode.textContent = agents.length + ' agents, ' + hired + ' hired';
}
