// The dashboard: loads what the journal holds, then follows the company's
// events and reloads the parts they touch. Reloads are coalesced per part
// and drawing happens once per animation frame.
import { api, auth, EventStream, HttpError } from './api.js';
import { el, replaceKids, usd, count, duration, clock } from './dom.js';
import { renderOrg } from './orgchart.js';
import { renderDag, renderTree } from './structure.js';
import { renderLedger } from './ledger.js';
import { renderCluster } from './cluster.js';

const PAGE = 20;
const TRANSCRIPT_PAGE = 100;
const MAX_ALERTS = 200;
const CLUSTER_POLL_MS = 2000; // heartbeat ages change without an event
const $ = (id) => document.getElementById(id);

const state = {
  info: null,
  agents: [],
  tasks: { total: 0, tasks: [] },
  page: 0,
  query: '',
  selected: '', // task id shown
  follow: true, // show each new task as it starts
  tree: null,
  transcript: { task: '', steps: [], total: 0, text: false },
  ledger: null,
  cluster: null,
  alerts: [],
  live: new Map(), // task id -> status seen on the stream
  tab: 'structure',
  budgetWarned: false,
  tasksRetries: 0,
  unlisted: new Set(), // tasks seen starting, not in the list yet
  events: 0, // events read from the stream since the page opened
};

// ---- drawing, batched ----------------------------------------------------
const dirty = new Set();
let frame = 0;
function mark(...parts) {
  parts.forEach((p) => dirty.add(p));
  if (!frame) frame = requestAnimationFrame(draw);
}
// The parts in the order they are drawn. A frame that has taken FRAME_MS
// leaves the rest to the next one, so that a large company's panels (200
// agent cards, a long task's outline, thousands of ledger entries) are not
// all drawn in one long task.
const PARTS = {
  stream: () => ($('link').dataset.events = String(state.events)),
  tasks: () => drawTasks(),
  task: () => drawTask(),
  alerts: () => drawAlerts(),
  ledger: () => drawLedger(),
  cluster: () => renderCluster($('cluster'), $('cluster-note'), state.cluster),
  transcript: () => drawTranscript(),
  org: () => renderOrg($('org'), state.agents, $('org-count')),
};
const FRAME_MS = 30;
function draw() {
  frame = 0;
  const start = performance.now();
  for (const [part, drawPart] of Object.entries(PARTS)) {
    if (!dirty.has(part)) continue;
    if (performance.now() - start > FRAME_MS) break;
    dirty.delete(part);
    drawPart();
  }
  if (dirty.size) frame = requestAnimationFrame(draw);
}

// ---- loading, coalesced --------------------------------------------------
const loaders = {
  async info() {
    state.info = await api('/dashboard/api/info');
    $('session').textContent = 'session ' + state.info.session + (state.info.strategy ? ' · ' + state.info.strategy : '');
  },
  async agents() {
    state.agents = (await api('/dashboard/api/agents')).agents || [];
    mark('org');
  },
  async tasks() {
    const q = new URLSearchParams({ limit: PAGE, offset: state.page * PAGE });
    if (state.query) q.set('q', state.query);
    state.tasks = await api('/dashboard/api/tasks?' + q);
    if (!state.selected && state.tasks.tasks.length) select(state.tasks.tasks[0].id, false);
    if (state.ledger && budgetSession() && state.ledger.session !== budgetSession()) schedule('ledger', 0);
    // A task that started may not be journaled yet, and a slow one sends no
    // further event for a while: look again shortly, a bounded number of times.
    for (const t of state.tasks.tasks) state.unlisted.delete(t.id);
    if (state.unlisted.size && state.page === 0 && !state.query && state.tasksRetries++ < 40) schedule('tasks', 500);
    else if (!state.unlisted.size) state.tasksRetries = 0;
    mark('tasks', 'task');
  },
  async tree() {
    if (!state.selected) return;
    const id = state.selected;
    const t = await api('/dashboard/api/tasks/' + encodeURIComponent(id) + '/tree');
    if (t.pending) return schedule('tree', 500); // not journaled yet
    if (id === state.selected) state.tree = t;
    mark('task');
  },
  async transcript() {
    if (!state.selected) return;
    const id = state.selected;
    const t = await api(`/dashboard/api/tasks/${encodeURIComponent(id)}/transcript?offset=0&limit=${TRANSCRIPT_PAGE}`);
    if (t.pending) return schedule('transcript', 500);
    if (id !== state.selected) return;
    state.transcript = { task: id, steps: t.steps, total: t.total, text: t.text_included, input: t.input, answer: t.final_answer };
    mark('transcript');
  },
  async cluster() {
    try {
      state.cluster = await api('/dashboard/api/cluster');
      mark('cluster');
    } finally {
      if (state.cluster && state.cluster.cluster) schedule('cluster', CLUSTER_POLL_MS);
    }
  },
  async ledger() {
    const session = budgetSession();
    const l = await api('/dashboard/api/ledger' + (session ? '?session=' + encodeURIComponent(session) : ''));
    if (session !== budgetSession()) return schedule('ledger', 0); // another task chosen meanwhile
    state.ledger = l;
    checkBudget();
    mark('ledger');
  },
};

const timers = new Map();
function schedule(part, delay = 250) {
  if (timers.has(part)) return;
  timers.set(
    part,
    setTimeout(async () => {
      timers.delete(part);
      const start = performance.now();
      try {
        await loaders[part]();
      } catch (e) {
        failed(e);
      }
      const end = performance.now();
      pace.until = Math.max(pace.until, end + PACE * (end - start));
    }, delay),
  );
}

// Reloads that events ask for are paced by what the last ones cost: after a
// load that took T ms, the next such reload waits until 19 T have passed,
// so that the larger a task's tree or ledger grows, the less often it is
// asked for (under a steady stream of events, about one twentieth of the
// time). Opening the page, choosing a task and acting are never held back.
const PACE = 19;
const pace = { until: 0 };
function follow(part, delay) {
  schedule(part, Math.max(delay, pace.until - performance.now()));
}
function reloadAll() {
  for (const part of Object.keys(loaders)) schedule(part, 0);
}

function failed(e) {
  if (e instanceof HttpError && e.status === 401) return askForToken('The server refused the token.');
  console.warn('dashboard:', e.message || e);
}

// ---- the task shown --------------------------------------------------------
function select(id, byUser) {
  if (byUser) state.follow = false;
  if (id === state.selected) return;
  state.selected = id;
  state.tree = null;
  state.transcript = { task: '', steps: [], total: 0, text: false };
  schedule('tree', 0);
  if (state.tab === 'transcript') schedule('transcript', 0);
  if (state.info && state.info.per_session_budget) schedule('ledger', 0);
  mark('task', 'tasks', 'transcript');
}

function selectedRow() {
  return state.tasks.tasks.find((t) => t.id === state.selected);
}

const ENDED = new Set(['done', 'failed', 'canceled', 'interrupted']);
function statusOf(task) {
  if (ENDED.has(task.status)) return task.status; // the journal's word is final
  return state.live.get(task.id) || task.status;
}

function drawTask() {
  const row = selectedRow();
  const tree = state.tree && state.tree.task === state.selected ? state.tree : null;
  const status = row ? statusOf(row) : tree ? tree.status : '';
  $('task-status').textContent = status;
  $('task-status').dataset.status = status;
  $('task-input').textContent = row ? row.input : state.selected ? state.selected : 'No task yet: submit one below.';
  renderDag($('dag'), tree && tree.tree, status);
  renderTree($('tree'), tree && tree.tree, tree ? tree.task : '');
}

function stepText(step) {
  const p = step.payload;
  if (p === undefined) return '';
  if (typeof p === 'string') return p;
  for (const key of ['text', 'content', 'answer', 'prompt', 'message'])
    if (p && typeof p[key] === 'string' && Object.keys(p).length <= 3) return p[key];
  return JSON.stringify(p, null, 2);
}

function drawTranscript() {
  const t = state.transcript;
  $('transcript-note').textContent = !t.task
    ? 'Pick a task.'
    : t.text
      ? `${t.total} journaled steps.`
      : `${t.total} journaled steps. Prompts and answers are hidden by the server's settings (telemetry.traces.include_text).`;
  const items = t.steps.map((s) =>
    el(
      'li',
      { class: 'step', 'data-kind': s.kind },
      el(
        'div',
        { class: 'step-head' },
        el('span', { class: 'who', text: s.agent }),
        el('span', { class: 'badge', text: s.kind }),
        el('span', { class: 'muted', text: '#' + s.seq + ' · ' + clock(s.at_ms) }),
        s.tokens_in || s.tokens_out ? el('span', { class: 'muted', text: count(s.tokens_in) + '/' + count(s.tokens_out) + ' tok · ' + usd(s.usd) }) : null,
      ),
      s.payload !== undefined ? el('pre', { text: stepText(s) }) : null,
    ),
  );
  if (t.task && t.answer) items.push(el('li', { class: 'step', 'data-kind': 'final' }, el('div', { class: 'step-head' }, el('span', { class: 'who', text: 'Answer' })), el('pre', { 'data-testid': 'final-answer', text: t.answer })));
  replaceKids($('transcript-list'), items);
  $('transcript-more').hidden = !(t.task && t.steps.length < t.total);
}

async function moreTranscript() {
  const t = state.transcript;
  try {
    const next = await api(`/dashboard/api/tasks/${encodeURIComponent(t.task)}/transcript?offset=${t.steps.length}&limit=${TRANSCRIPT_PAGE}`);
    if (next.task !== state.selected) return;
    t.steps = t.steps.concat(next.steps);
    t.total = next.total;
    mark('transcript');
  } catch (e) {
    failed(e);
  }
}

// ---- ledgers and alerts ----------------------------------------------------
function drawLedger() {
  const l = state.ledger;
  if (!l) return;
  const b = l.budget || {};
  const pts = (name) => l.points.filter((p) => p.ledger === name && p.session === l.session);
  $('ledger-session').textContent = state.info && state.info.per_session_budget ? 'session ' + l.session : '';
  $('ledger-session').dataset.session = l.session || '';
  renderLedger($('ledger-expense'), { title: 'Expense ($)', points: pts('expense'), total: b.expense_budget_enabled === false ? 0 : b.total_expense_budget, used: b.current_expense, money: true });
  renderLedger($('ledger-resource'), { title: 'Resource units', points: pts('resource'), total: b.resource_budget_enabled === false ? 0 : b.total_resource_budget, used: b.current_resource_usage, money: false });
}

// With a budget per session (serve.session_budget: per_session), the ledgers
// shown and raised are those of the chosen task's session; otherwise the
// one budget every session charges.
function budgetSession() {
  if (!state.info || !state.info.per_session_budget) return '';
  const row = selectedRow();
  if (row && row.session) return row.session;
  return state.tree && state.tree.task === state.selected && state.tree.session ? state.tree.session : '';
}

function checkBudget() {
  const b = (state.ledger && state.ledger.budget) || {};
  const total = b.total_expense_budget || 0;
  if (!total || b.expense_budget_enabled === false || state.budgetWarned) return;
  if (b.current_expense >= 0.8 * total) {
    state.budgetWarned = true;
    alert_('budget', 'bad', { text: `Expense at ${usd(b.current_expense)} of ${usd(total)} (80% or more of the budget)`, at_ms: Date.now() });
  }
}

function alert_(kind, level, e) {
  // A refusal's data names whom it was about (the agent not hired or not asked).
  const about = e.data && typeof e.data.agent === 'string' ? e.data.agent : e.agent || '';
  state.alerts.unshift({ kind, level, text: e.text || '', agent: about, task: e.task || '', at: e.at_ms || Date.now() });
  if (state.alerts.length > MAX_ALERTS) state.alerts.length = MAX_ALERTS;
  mark('alerts');
}

function drawAlerts() {
  $('alert-count').textContent = state.alerts.length ? String(state.alerts.length) : '';
  if (!state.alerts.length) return replaceKids($('alerts'), el('li', { class: 'empty', text: 'No refusals or budget alerts.' }));
  replaceKids(
    $('alerts'),
    state.alerts.map((a) => {
      const answer =
        a.kind === 'question' && state.live.get(a.task) === 'input_required'
          ? el(
              'form',
              { onsubmit: (ev) => answerQuestion(ev, a.task) },
              el('input', { name: 'answer', 'aria-label': 'Answer', placeholder: 'Answer', required: true }),
              el('button', { type: 'submit', class: 'primary', text: 'Send' }),
            )
          : null;
      return el(
        'li',
        { class: 'alert', 'data-testid': 'alert', 'data-kind': a.kind, 'data-level': a.level },
        el('div', { class: 'alert-head' }, el('span', { text: a.kind }), a.agent ? el('span', { text: a.agent }) : null, el('span', { text: clock(a.at) })),
        el('div', { class: 'alert-text', text: a.text }),
        answer,
      );
    }),
  );
}

async function answerQuestion(ev, task) {
  ev.preventDefault();
  const text = new FormData(ev.target).get('answer');
  try {
    await api(`/dashboard/api/tasks/${encodeURIComponent(task)}/input`, { method: 'POST', body: { text } });
    state.live.set(task, 'running');
    mark('alerts', 'tasks', 'task');
  } catch (e) {
    failed(e);
  }
}

async function raiseBudget(ev) {
  ev.preventDefault();
  const ledger = $('raise-ledger').value;
  const amount = Number($('raise-amount').value);
  $('raise-error').hidden = true;
  try {
    const session = state.ledger && state.info && state.info.per_session_budget ? state.ledger.session : '';
    await api('/dashboard/api/budget/raise', { method: 'POST', body: session ? { ledger, amount, session } : { ledger, amount } });
    $('raise-amount').value = '';
    state.budgetWarned = false;
    schedule('ledger', 0);
  } catch (e) {
    $('raise-error').textContent = e.message;
    $('raise-error').hidden = false;
    failed(e);
  }
}

// ---- the task list -------------------------------------------------------
function drawTasks() {
  const { total, tasks } = state.tasks;
  if (!tasks.length)
    replaceKids($('task-list'), el('li', { class: 'empty', text: state.query ? 'No task matches.' : 'No tasks yet.' }));
  else
    replaceKids(
      $('task-list'),
      tasks.map((t) => {
        const status = statusOf(t);
        const running = status === 'running' || status === 'input_required';
        return el(
          'li',
          { class: 'task-item', 'data-testid': 'task-item', 'data-task': t.id, 'data-status': status, 'aria-current': t.id === state.selected ? 'true' : 'false', onclick: () => select(t.id, true) },
          el('span', { class: 'badge', 'data-status': status, text: status }),
          el('span', { class: 'input', title: t.input, text: t.input }),
          el('span', { class: 'nums', text: [count(t.tokens_in + t.tokens_out) + ' tok', usd(t.usd), duration(t.wall_ms)].filter(Boolean).join(' · ') }),
          running ? el('button', { type: 'button', class: 'danger', 'data-testid': 'cancel', text: 'Cancel', onclick: (ev) => cancel(ev, t.id) }) : el('span'),
        );
      }),
    );
  const pages = Math.max(1, Math.ceil(total / PAGE));
  $('page-info').textContent = `page ${state.page + 1} of ${pages} · ${total} tasks`;
  $('page-prev').disabled = state.page === 0;
  $('page-next').disabled = state.page + 1 >= pages;
}

async function cancel(ev, id) {
  ev.stopPropagation();
  ev.target.disabled = true;
  try {
    await api(`/dashboard/api/tasks/${encodeURIComponent(id)}/cancel`, { method: 'POST', body: {} });
  } catch (e) {
    failed(e);
    alert_('cancel', 'bad', { text: e.message, task: id });
  }
}

async function submitTask(ev) {
  ev.preventDefault();
  const input = $('submit-input').value.trim();
  if (!input) return;
  $('submit-error').hidden = true;
  try {
    const r = await api('/dashboard/api/tasks', { method: 'POST', body: { input } });
    $('submit-input').value = '';
    state.follow = true;
    // Its events may have come in already (a quick task ends before this answer).
    if (!state.live.has(r.task)) state.live.set(r.task, 'running');
    state.unlisted.add(r.task);
    select(r.task, false);
    schedule('tasks', 0);
  } catch (e) {
    $('submit-error').textContent = e.message;
    $('submit-error').hidden = false;
    failed(e);
  }
}

// ---- events ----------------------------------------------------------------
const AGENT_KINDS = new Set(['hire', 'fire', 'answer', 'usage', 'placed', 'rehire', 'node_down']);
const CLUSTER_KINDS = new Set(['placed', 'rehire', 'node_down', 'fire']);
const LEDGER_KINDS = new Set(['usage', 'answer', 'hire', 'fire', 'refusal', 'ledgers']);
const ENDS = { final: 'done', canceled: 'canceled' };

function onEvent(e) {
  state.events++;
  const kind = e.event;
  if (kind === 'task') {
    state.live.set(e.task, 'running');
    state.unlisted.add(e.task);
    if (state.follow) select(e.task, false);
    follow('tasks', 300);
  }
  if (e.task && e.task === state.selected) {
    follow('tree', 500);
    if (state.tab === 'transcript') follow('transcript', 800);
  }
  if (AGENT_KINDS.has(kind)) follow('agents', 600);
  if (CLUSTER_KINDS.has(kind)) follow('cluster', 300);
  if (LEDGER_KINDS.has(kind)) follow('ledger', 600);
  if (kind === 'refusal') alert_('refusal', /budget/i.test(e.text) ? 'bad' : 'warn', e);
  if (kind === 'input_required') {
    state.live.set(e.task, 'input_required');
    alert_('question', 'ask', e);
    mark('tasks');
  }
  const ended = ENDS[kind] || (kind === 'error' && e.data && e.data.wall_ms !== undefined ? 'failed' : '');
  if (ended) {
    state.live.set(e.task, ended);
    if (ended === 'failed') alert_('failed', 'bad', e);
    for (const part of ['tasks', 'tree', 'ledger', 'agents']) follow(part, 150);
    if (state.tab === 'transcript') follow('transcript', 150);
    mark('tasks', 'task', 'alerts');
  }
}

const stream = new EventStream({
  onEvent,
  onBatch: () => mark('stream'),
  onState(s) {
    const link = $('link');
    link.dataset.state = s === 'live' ? 'live' : s === 'retry' ? 'retry' : 'off';
    link.textContent = s === 'live' ? 'live' : s === 'retry' ? 'reconnecting' : 'signed out';
    if (s === 'unauthorized') askForToken('The server refused the token.');
  },
  onMissed: reloadAll,
  onEpoch: reloadAll,
});

// ---- authentication and start ----------------------------------------------
function askForToken(why) {
  stream.stop();
  $('token-error').textContent = why || '';
  $('token-error').hidden = !why;
  $('token-input').value = '';
  if (!$('token-dialog').open) $('token-dialog').showModal();
}

async function connect() {
  try {
    if (!auth.token) {
      const r = await fetch('/dashboard/auth', { cache: 'no-store', credentials: 'omit' });
      if (r.ok && (await r.json()).token_required) return askForToken('');
    }
    state.info = await api('/dashboard/api/info');
  } catch (e) {
    if (e instanceof HttpError && e.status === 401) return askForToken(auth.token ? 'The server refused the token.' : '');
    $('link').textContent = 'offline';
    $('link').dataset.state = 'off';
    return setTimeout(connect, 3000);
  }
  reloadAll();
  stream.start();
}

function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
}

function init() {
  const saved = localStorage.getItem('kaisha-theme');
  const dark = window.matchMedia('(prefers-color-scheme: dark)');
  applyTheme(saved || (dark.matches ? 'dark' : 'light'));
  dark.addEventListener('change', (m) => {
    if (!localStorage.getItem('kaisha-theme')) applyTheme(m.matches ? 'dark' : 'light');
  });
  $('theme-button').addEventListener('click', () => {
    const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
    localStorage.setItem('kaisha-theme', next);
    applyTheme(next);
  });
  $('token-button').addEventListener('click', () => askForToken(''));
  $('token-form').addEventListener('submit', () => {
    auth.set($('token-input').value.trim());
    connect();
  });
  $('tab-structure').addEventListener('click', () => tab('structure'));
  $('tab-transcript').addEventListener('click', () => tab('transcript'));
  $('transcript-more').addEventListener('click', moreTranscript);
  $('submit-form').addEventListener('submit', submitTask);
  $('raise-form').addEventListener('submit', raiseBudget);
  let search = 0;
  $('task-search').addEventListener('input', (ev) => {
    clearTimeout(search);
    search = setTimeout(() => {
      state.query = ev.target.value.trim();
      state.page = 0;
      schedule('tasks', 0);
    }, 250);
  });
  $('page-prev').addEventListener('click', () => {
    state.page = Math.max(0, state.page - 1);
    schedule('tasks', 0);
  });
  $('page-next').addEventListener('click', () => {
    state.page += 1;
    schedule('tasks', 0);
  });
  mark('org', 'task', 'alerts', 'tasks', 'transcript');
  connect();
}

function tab(name) {
  state.tab = name;
  $('tab-structure').setAttribute('aria-selected', String(name === 'structure'));
  $('tab-transcript').setAttribute('aria-selected', String(name === 'transcript'));
  $('structure').hidden = name !== 'structure';
  $('transcript').hidden = name !== 'transcript';
  if (name === 'transcript') schedule('transcript', 0);
}

init();
