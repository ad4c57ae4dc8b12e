// The dashboard of `kaisha serve --http` in Debian's headless Chromium,
// driven by playwright-core: two real servers over the scripted mock LLM
// (company.yaml), one running effgen and one hashiru, each with a bearer
// token, and a cluster of two `kaisha node` processes (its CEO node serving
// the page) over real ZeroMQ. Assertions are on the DOM; each test saves a screenshot under
// $SCREENSHOT_DIR, and any console error or uncaught page error fails it.
//
//   KAISHA_EXE=build/cli/kaisha SCREENSHOT_DIR=build/browser node --test dashboard.test.mjs
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const KAISHA = process.env.KAISHA_EXE;
const SHOTS = process.env.SCREENSHOT_DIR || join(here, 'screenshots');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TOKEN = 'dashboard-test-token';
const EFFGEN_TASK =
  'Research the three largest cloud providers, compare their pricing for GPU instances, analyze the security and ' +
  'compliance certifications of each, calculate the total cost of a 6 month training run on each, and synthesize a ' +
  'recommendation report with a table and a chart for the finance team.';

const work = mkdtempSync(join(tmpdir(), 'kaisha-browser-'));
const children = [];
let context;
let mockUrl;
const servers = {};

// Starts a child and resolves with the first match of `pattern` in its output.
function start(name, args, pattern, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(args[0], args.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let log = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${log}`)), 30000);
    const onData = (d) => {
      log += d;
      const m = log.match(pattern);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m, log: () => log });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${name} exited (${code}):\n${log}`)));
  });
}

function writeConfig(name, strategy, { mock = mockUrl, ceo = 'ceo-model', budget } = {}) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const effgen =
    strategy === 'effgen'
      ? 'strategy: effgen\neffgen:\n  planner_model: openai:planner-7b\n  worker_model: gemini-2.0-flash\n  max_concurrent: 4\njudge:\n  model: openai:judge-7b\n'
      : '';
  const config =
    `store: ${join(dir, 'kaisha.db')}\n` +
    `ceo:\n  model: openai:${ceo}\n` +
    'providers:\n' +
    `  ollama: { base_url: ${mock}, timeout_ms: 90000 }\n` +
    `  gemini: { base_url: ${mock}/v1beta, api_key: mock-key, timeout_ms: 90000 }\n` +
    `  openai: { base_url: ${mock}/v1, api_key: mock-key, timeout_ms: 90000 }\n` +
    'retry:\n  max_attempts: 1\n' +
    // hashiru: too few resource units to hire a local model (a refusal)
    (budget ||
      `budget:\n  resource_mode: fixed\n  resource_total: ${strategy === 'effgen' ? 400 : 5}\n  expense_total: 2\n`) +
    'telemetry:\n  traces:\n    include_text: true\n' +
    // hashiru: each client's session with a budget of its own
    (strategy === 'hashiru' ? 'serve:\n  session_budget: per_session\n' : '') +
    effgen;
  const path = join(dir, 'config.yaml');
  writeFileSync(path, config);
  return path;
}

async function startServer(name, strategy, address = '127.0.0.1:0', options = {}) {
  const config = servers[name] ? servers[name].config : writeConfig(name, strategy, options);
  const env = { KAISHA_HTTP_TOKEN: TOKEN, KAISHA_MODEL: '', KAISHA_DB: '', OPENAI_API_KEY: '', GEMINI_API_KEY: '' };
  const s = await start(name, [KAISHA, 'serve', '--http', address, '--config', config], /MCP at (http:\/\/[^\s]+)\/mcp/, env);
  servers[name] = { url: s.match[1], config, log: s.log, child: s.child };
}

// A loopback port free now, for a node's ZeroMQ socket. Drawn below Linux's ephemeral range
// (32768-60999): a port from listen(0) goes back to the kernel when closed, which may hand it to
// an outgoing connection of a parallel test before the node binds it (tests/loopback_port.hpp).
async function freePort() {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 12768);
    const free = await new Promise((resolve) => {
      const srv = createServer();
      srv.on('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free loopback port in 20000-32767');
}

// A cluster as the multi-process e2e tests write it (tests/e2e/cluster_fixture.hpp): plaintext on
// loopback, the first node the seed; the CEO node lists only its own model, so the
// employees' model (llama3.2) is placed on the worker.
async function writeCluster() {
  const dir = join(work, 'cluster');
  mkdirSync(dir, { recursive: true });
  const company = join(dir, 'company.yaml');
  writeFileSync(
    company,
    `store: ${join(dir, 'kaisha.db')}\n` +
      'ceo:\n  model: openai:cluster-ceo\n' +
      'providers:\n' +
      `  ollama: { base_url: ${mockUrl}, timeout_ms: 90000 }\n` +
      `  openai: { base_url: ${mockUrl}/v1, api_key: mock-key, timeout_ms: 90000 }\n` +
      'retry:\n  max_attempts: 1\n' +
      'budget:\n  resource_mode: fixed\n  resource_total: 400\n  expense_total: 2\n',
  );
  const [ceo, w1, w2] = [await freePort(), await freePort(), await freePort()];
  const yaml =
    `company: ${company}\n` +
    `cluster:\n  allow_plaintext: true\n  seeds: [tcp://127.0.0.1:${ceo}]\n` +
    '  heartbeat_ms: 200\n  suspect_after_ms: 1000\n  down_after_ms: 2000\n  rehire_lost_agents: false\n' +
    'nodes:\n' +
    `  ceo:\n    bind: tcp://127.0.0.1:${ceo}\n    ceo: true\n    models: [cluster-ceo]\n    resource_units: 100\n` +
    `  w1:\n    bind: tcp://127.0.0.1:${w1}\n    models: [llama3.2]\n    resource_units: 100\n` +
    // listed, never started
    `  w2:\n    bind: tcp://127.0.0.1:${w2}\n    models: [qwen2.5]\n    resource_units: 50\n`;
  const path = join(dir, 'cluster.yaml');
  writeFileSync(path, yaml);
  return path;
}

// The load of the scale test: a HASHIRU company whose CEO hires 200 employees
// in its first turn and asks each of them once in each of the next
// SCALE_ROUNDS turns, over a mock LLM of its own. Four events per ask and
// three per hire: about 11,000, more than the 10,000 the server's log holds.
const SCALE_AGENTS = 200;
const SCALE_ROUNDS = 13;
const scaleName = (i) => 'Agent' + String(i).padStart(3, '0');

function writeScaleScript() {
  const names = Array.from({ length: SCALE_AGENTS }, (_, i) => scaleName(i));
  const rules = [
    {
      name: 'scale-ceo-hires',
      match: { model: 'scale-ceo', turn: 0 },
      reply: { tool_calls: names.map((n) => ({ name: 'AgentCreator', arguments: { agent_name: n, base_model: 'gemini-2.0-flash', system_prompt: 'You count.', description: 'Counts' } })) },
    },
  ];
  for (let t = 1; t <= SCALE_ROUNDS; t++)
    rules.push({
      name: 'scale-ceo-asks-' + t,
      match: { model: 'scale-ceo', turn: t },
      reply: { tool_calls: names.map((n) => ({ name: 'AskAgent', arguments: { agent_name: n, prompt: 'Count to ' + t } })) },
    });
  rules.push({ name: 'scale-ceo-answers', match: { model: 'scale-ceo' }, reply: { text: 'Everyone counted.' } });
  rules.push({ name: 'scale-employee', match: { model: 'gemini-2.0-flash' }, reply: { text: 'counted', usage: { input_tokens: 10, output_tokens: 2 } } });
  const path = join(work, 'scale-mock.yaml');
  writeFileSync(path, JSON.stringify({ rules })); // JSON is YAML
  return path;
}

// Starts the scale test's server and gives it its task, which runs while the other tests do.
async function startScaleLoad() {
  const mock = await start('scale mock', [KAISHA, 'mock-llm', '--script', writeScaleScript(), '--port', '0'], /listening on (http:\/\/[^\s]+)/);
  const budget = 'budget:\n  resource_mode: fixed\n  resource_total: 100000\n  expense_total: 1000\n';
  await startServer('scale', 'hashiru', '127.0.0.1:0', { mock: mock.match[1], ceo: 'scale-ceo', budget });
  const res = await fetch(servers.scale.url + '/dashboard/api/tasks', {
    method: 'POST',
    headers: { Authorization: 'Bearer ' + TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ input: 'Everyone counts' }),
  });
  assert.equal(res.status, 202, 'the scale task was taken');
  servers.scale.task = (await res.json()).task;
}

async function apiGet(server, path) {
  const res = await fetch(server.url + path, { headers: { Authorization: 'Bearer ' + TOKEN } });
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return res.json();
}

async function waitFor(what, fn, timeoutMs = 30000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error('timed out waiting for ' + what);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// A page on `server` signed in with the token, whose console errors are collected.
async function openPage(server, { token = TOKEN, width = 1280, height = 800, init } = {}) {
  const page = await context.newPage();
  open.add(page);
  if (init) await page.addInitScript(init);
  await page.setViewportSize({ width, height });
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url + '/');
  await page.evaluate(() => sessionStorage.clear());
  await page.locator('#token-dialog[open]').waitFor();
  await page.fill('#token-input', token);
  await page.click('#token-form button[type=submit]');
  return { page, errors };
}

// A test that failed before finish(): its page's screenshot, its console and the servers' logs.
const open = new Set();
afterEach(async (t) => {
  for (const page of open) {
    const name = 'failed-' + t.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
    await page.screenshot({ path: join(SHOTS, name + '.png'), fullPage: true }).catch(() => {});
    await page.close().catch(() => {});
    for (const [server, s] of Object.entries(servers)) console.log(`--- ${server} server log ---\n${s.log().slice(-4000)}`);
  }
  open.clear();
});

async function finish({ page, errors }, name, { allowErrors = [] } = {}) {
  open.delete(page);
  await page.screenshot({ path: join(SHOTS, name + '.png'), fullPage: true });
  const unexpected = errors.filter((e) => !allowErrors.some((re) => re.test(e)));
  await page.close();
  assert.deepEqual(unexpected, [], 'console errors on the page');
}

async function noHorizontalOverflow(page) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  assert.ok(scroll <= client, `horizontal overflow: scrollWidth ${scroll} > clientWidth ${client}`);
}

function stopChild(child) {
  return new Promise((resolve) => {
    const hard = setTimeout(() => child.kill('SIGKILL'), 10000);
    child.once('exit', () => {
      clearTimeout(hard);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

before(async () => {
  assert.ok(KAISHA, 'KAISHA_EXE must name the kaisha binary');
  mkdirSync(SHOTS, { recursive: true });
  const mock = await start('mock', [KAISHA, 'mock-llm', '--script', join(here, 'company.yaml'), '--port', '0'], /listening on (http:\/\/[^\s]+)/);
  mockUrl = mock.match[1];
  await Promise.all([startServer('effgen', 'effgen'), startServer('hashiru', 'hashiru'), startScaleLoad()]);
  const profile = join(work, 'chromium-profile');
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

after(async () => {
  if (context) await context.close();
  // Wait for every child to exit: a server still writing its journal while the
  // directory is removed makes the removal fail with ENOTEMPTY.
  await Promise.all(children.filter((c) => c.exitCode === null && c.signalCode === null).map(stopChild));
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
});

test('effgen: the org chart, the subtask DAG and the ledger as the task runs to its end', async () => {
  const s = servers.effgen;
  const p = await openPage(s);
  const { page } = p;
  await page.locator('#link[data-state=live]').waitFor();
  await page.fill('#submit-input', EFFGEN_TASK);
  await page.click('#submit-form button[type=submit]');
  // The DAG: the plan's four subtasks and its four dependency edges.
  await page.locator('[data-testid=dag] .dag-node').nth(3).waitFor({ timeout: 30000 });
  const keys = await page.locator('[data-testid=dag] .dag-node').evaluateAll((ns) => ns.map((n) => n.dataset.key).sort());
  assert.deepEqual(keys, ['prices', 'report', 'research', 'security']);
  const edges = await page.locator('[data-testid=dag] .dag-edge').evaluateAll((ns) => ns.map((n) => n.dataset.from + '>' + n.dataset.to).sort());
  assert.deepEqual(edges, ['prices>report', 'research>prices', 'research>security', 'security>report']);
  // The task ends; its journal row says done.
  await page.locator('[data-testid=task-item][data-status=done]').first().waitFor({ timeout: 60000 });
  await page.locator('#task-status[data-status=done]').waitFor();
  await waitFor('every subtask done in the DAG', () => page.locator('.dag-node[data-status=done]').count().then((n) => n === 4));
  // The org chart shows the workers effgen hired.
  const agents = await apiGet(s, '/dashboard/api/agents');
  const hired = agents.agents.filter((a) => a.role === 'employee').map((a) => a.name).sort();
  assert.ok(hired.length >= 1, 'effgen hired workers');
  await waitFor('the hired workers in the org chart', async () => {
    const shown = await page.locator('[data-testid=agent-card][data-role=employee]').evaluateAll((ns) => ns.map((n) => n.dataset.name).sort());
    return JSON.stringify(shown) === JSON.stringify(hired);
  });
  // The ledger's last point equals `kaisha budget` once the final event is in.
  const budget = JSON.parse(execFileSync(KAISHA, ['budget', '--config', s.config, '--json']).toString());
  const spent = budget.budget.current_expense;
  assert.ok(spent > 0, 'the workers cost something');
  await waitFor('the ledger chart at the budget total', async () => {
    const v = await page.locator('[data-testid=ledger-expense] [data-testid=ledger-last]').getAttribute('data-value');
    return Math.abs(Number(v) - spent) < 1e-9;
  });
  await page.locator('[data-testid=ledger-expense] [data-testid=budget-line]').waitFor({ state: 'attached' });
  await noHorizontalOverflow(page);
  await finish(p, 'effgen-1280x800');
});

test('effgen: the phone layout has no horizontal overflow and the dark theme switches', async () => {
  const p = await openPage(servers.effgen, { width: 390, height: 844 });
  const { page } = p;
  await page.locator('[data-testid=task-item]').first().waitFor();
  await page.locator('[data-testid=dag] .dag-node').first().waitFor();
  await noHorizontalOverflow(p.page);
  const before = await page.evaluate(() => document.documentElement.dataset.theme);
  await page.click('#theme-button');
  const afterTheme = await page.evaluate(() => document.documentElement.dataset.theme);
  assert.notEqual(before, afterTheme);
  await noHorizontalOverflow(p.page);
  await finish(p, 'effgen-390x844');
});

test('hashiru: a refusal is an alert, and markup from a model or an agent name renders as text', async () => {
  const s = servers.hashiru;
  const p = await openPage(s);
  const { page } = p;
  await page.locator('#link[data-state=live]').waitFor();
  await page.fill('#submit-input', 'Tell me about rivers');
  await page.click('#submit-form button[type=submit]');
  await page.locator('[data-testid=task-item][data-status=done]').first().waitFor({ timeout: 60000 });
  const alert = page.locator('[data-testid=alert][data-kind=refusal]').first();
  await alert.waitFor({ timeout: 20000 });
  assert.match(await alert.textContent(), /Mizu/);
  await page.locator('[data-testid=agent-card][data-name=Kawa]').waitFor();
  await page.click('#tab-transcript');
  // The hire under a name full of markup, as the CEO's tool call and its error.
  const transcript = page.locator('[data-testid=transcript]');
  await waitFor('the refused name in the transcript', async () => {
    const all = await transcript.textContent();
    return all.includes('<img src=x onerror=') && all.includes('川😀שלום');
  });
  const answer = page.locator('[data-testid=final-answer]');
  await answer.waitFor({ timeout: 20000 });
  const text = await answer.textContent();
  assert.match(text, /<script>window.__pwned=3<\/script>/);
  assert.match(text, /信濃川 🌊 مرحبا بالعالم/);
  const injected = await page.evaluate(() => ({
    pwned: window.__pwned === undefined ? null : window.__pwned,
    scripts: [...document.querySelectorAll('script')].map((s) => s.getAttribute('src')),
    images: [...document.querySelectorAll('img')].map((i) => i.getAttribute('src')),
    handlers: document.querySelectorAll('[onerror]').length,
  }));
  assert.deepEqual(injected, { pwned: null, scripts: ['/dashboard/app.js'], images: ['/dashboard/favicon.svg'], handlers: 0 });
  await noHorizontalOverflow(page);
  await finish(p, 'hashiru-alerts-and-text');
});

test('hashiru: cancel from the page ends the task canceled', async () => {
  const s = servers.hashiru;
  const p = await openPage(s);
  const { page } = p;
  await page.locator('#link[data-state=live]').waitFor();
  await page.fill('#submit-input', 'slow');
  await page.click('#submit-form button[type=submit]');
  const row = page.locator('[data-testid=task-item]', { hasText: 'slow' }).first();
  await row.locator('[data-testid=cancel]').waitFor({ timeout: 20000 });
  const id = await row.getAttribute('data-task');
  await row.locator('[data-testid=cancel]').click();
  await page.locator(`[data-testid=task-item][data-task="${id}"][data-status=canceled]`).waitFor({ timeout: 20000 });
  await waitFor('the journal to say canceled', async () => {
    const t = await apiGet(s, '/dashboard/api/tasks?q=' + encodeURIComponent(id));
    return t.tasks.length === 1 && t.tasks[0].status === 'canceled';
  });
  await finish(p, 'hashiru-canceled');
});

test('a wrong token gets no data', async () => {
  const s = servers.hashiru;
  const p = await openPage(s, { token: 'not-the-token' });
  const { page } = p;
  await page.locator('#token-error:not([hidden])').waitFor();
  await page.waitForTimeout(300);
  assert.equal(await page.locator('[data-testid=task-item][data-task]').count(), 0);
  assert.equal(await page.locator('[data-testid=agent-card]').count(), 0);
  assert.equal(await page.locator('#link').getAttribute('data-state'), 'off');
  // The browser reports the refused request itself as a console error.
  await finish(p, 'wrong-token', { allowErrors: [/401 \(Unauthorized\)/] });
});

test('a page from another origin gets nothing', async () => {
  const s = servers.hashiru;
  const page = await context.newPage();
  await page.route('http://evil.example/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>evil</title><p>evil</p>' }),
  );
  await page.goto('http://evil.example/');
  const before = (await apiGet(s, '/dashboard/api/tasks')).total;
  const results = await page.evaluate(
    async ({ base, token }) => {
      const out = {};
      const attempt = async (name, fn) => {
        try {
          const r = await fn();
          out[name] = r.type === 'opaque' ? 'opaque' : r.status + ':' + (await r.text()).slice(0, 80);
        } catch (e) {
          out[name] = 'blocked';
        }
      };
      await attempt('tasks', () => fetch(base + '/dashboard/api/tasks', { headers: { Authorization: 'Bearer ' + token } }));
      await attempt('events', () => fetch(base + '/events', { headers: { Authorization: 'Bearer ' + token } }));
      await attempt('plain', () => fetch(base + '/dashboard/api/agents'));
      await attempt('submit', () => fetch(base + '/dashboard/api/tasks', { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: '{"input":"evil"}' }));
      return out;
    },
    { base: s.url, token: TOKEN },
  );
  for (const [name, r] of Object.entries(results)) assert.ok(r === 'blocked' || r === 'opaque', `${name}: the other origin read ${r}`);
  const afterTotal = (await apiGet(s, '/dashboard/api/tasks')).total;
  assert.equal(afterTotal, before, 'no task was submitted from the other origin');
  await page.screenshot({ path: join(SHOTS, 'other-origin.png') });
  await page.close();
});

test('the page survives the server restarting: it notices the new event log and reloads from the journal', async () => {
  const s = servers.hashiru;
  const p = await openPage(s);
  const { page } = p;
  await page.locator('#link[data-state=live]').waitFor();
  await waitFor('the session shown', async () => (await page.locator('#session').textContent()).length > 0);
  const address = new URL(s.url).host;
  await new Promise((resolve) => {
    s.child.once('exit', resolve);
    s.child.kill('SIGTERM');
  });
  await page.locator('#link[data-state=retry]').waitFor({ timeout: 10000 });
  await startServer('hashiru', 'hashiru', address);
  const info = await apiGet(servers.hashiru, '/dashboard/api/info');
  await page.locator('#link[data-state=live]').waitFor({ timeout: 20000 });
  await waitFor('the page to show the restarted server\'s session', async () =>
    (await page.locator('#session').textContent()).includes(info.session),
  );
  // It goes on streaming: a task submitted now shows up and ends.
  await page.fill('#submit-input', 'Tell me about rivers again');
  await page.click('#submit-form button[type=submit]');
  await page.locator('[data-testid=task-item]', { hasText: 'rivers again' }).first().waitFor({ timeout: 20000 });
  // The dropped stream and the refused reconnects while the server was down are logged by the browser.
  await finish(p, 'after-restart', { allowErrors: [/ERR_CONNECTION_REFUSED|Failed to load resource|net::ERR/] });
});

test("cluster: the CEO node's page shows both nodes, the employee on the worker, and the worker gone once killed", async () => {
  const config = await writeCluster();
  const env = { KAISHA_HTTP_TOKEN: TOKEN, KAISHA_MODEL: '', KAISHA_DB: '', OPENAI_API_KEY: '', GEMINI_API_KEY: '' };
  const [ceo, worker] = await Promise.all([
    start('ceo node', [KAISHA, 'node', '--config', config, '--name', 'ceo', '--http', '127.0.0.1:0'], /dashboard at (http:\/\/[^\s]+)\//, env),
    start('worker node', [KAISHA, 'node', '--config', config, '--name', 'w1'], /node w1 listening/, env),
  ]);
  servers.cluster = { url: ceo.match[1], config, log: () => ceo.log() + '\n--- worker ---\n' + worker.log(), child: ceo.child };
  const p = await openPage(servers.cluster);
  const { page } = p;
  const w1 = page.locator('[data-testid=cluster-node][data-name=w1]');
  await page.locator('[data-testid=cluster-node][data-name=ceo][data-state=alive]').waitFor({ timeout: 20000 });
  await page.locator('[data-testid=cluster-node][data-name=w1][data-state=alive]').waitFor({ timeout: 20000 });
  await page.locator('#link[data-state=live]').waitFor();
  await page.fill('#submit-input', 'Which thread is strongest?');
  await page.click('#submit-form button[type=submit]');
  await page.locator('[data-testid=task-item][data-status=done]').first().waitFor({ timeout: 60000 });
  // The employee is placed on the worker: in the cluster panel and in the org chart's group of that node.
  await w1.locator('[data-testid=cluster-agent][data-name=Ito]').waitFor({ timeout: 20000 });
  await page.locator('.node-group[data-node=w1] [data-testid=agent-card][data-name=Ito]').waitFor({ timeout: 20000 });
  await page.locator('.node-group[data-node=ceo] [data-testid=agent-card][data-role=ceo]').waitFor();
  const age = Number(await w1.locator('[data-testid=heartbeat-age]').getAttribute('data-ms'));
  assert.ok(age >= 0 && age < 2000, `the worker heard from ${age} ms ago`);
  // The worker's own dropped frames, as it answered the CEO node's status request; the node that never joined.
  await w1.locator('[data-testid=node-dropped][data-total="0"]').waitFor({ timeout: 20000 });
  await page.locator('[data-testid=cluster-node][data-name=w2][data-state="never joined"]').waitFor();
  assert.match(await page.locator('[data-testid=cluster-node][data-name=w2]').textContent(), /never heard from/);
  await noHorizontalOverflow(page);
  await page.screenshot({ path: join(SHOTS, 'cluster-1280x800.png'), fullPage: true });
  // kill -9: the worker vanishes; the panel shows it down, its heartbeat growing stale, its employee lost.
  await new Promise((resolve) => {
    worker.child.once('exit', resolve);
    worker.child.kill('SIGKILL');
  });
  await page.locator('[data-testid=cluster-node][data-name=w1][data-state=down]').waitFor({ timeout: 20000 });
  const stale = Number(await w1.locator('[data-testid=heartbeat-age]').getAttribute('data-ms'));
  assert.ok(stale >= 2000, `the dead worker heard from ${stale} ms ago`);
  await page.locator('.node-group[data-node=w1] [data-testid=agent-card][data-name=Ito][data-state=lost]').waitFor({ timeout: 20000 });
  await finish(p, 'cluster-worker-down');
});

test('hashiru: a question the task asks its user is answered from the page', async () => {
  const s = servers.hashiru;
  const p = await openPage(s);
  const { page } = p;
  await page.locator('#link[data-state=live]').waitFor();
  await page.fill('#submit-input', 'ask me about a river');
  await page.click('#submit-form button[type=submit]');
  const row = page.locator('[data-testid=task-item]', { hasText: 'ask me about a river' }).first();
  await page.locator('[data-testid=task-item][data-status=input_required]', { hasText: 'ask me about a river' }).waitFor({ timeout: 20000 });
  const question = page.locator('[data-testid=alert][data-kind=question]', { has: page.locator('form') }).first();
  await question.waitFor({ timeout: 20000 });
  assert.match(await question.textContent(), /Which river\? 川/);
  await question.locator('input[name=answer]').fill('Shinano 信濃川');
  await question.locator('button[type=submit]').click();
  await page.locator('[data-testid=task-item][data-status=done]', { hasText: 'ask me about a river' }).waitFor({ timeout: 20000 });
  const id = await row.getAttribute('data-task');
  await waitFor('the answer in the journal', async () => {
    const t = await apiGet(s, '/dashboard/api/tasks?q=' + encodeURIComponent(id));
    return t.tasks.length === 1 && t.tasks[0].status === 'done' && t.tasks[0].final_answer.includes('Shinano 信濃川');
  });
  assert.equal(await page.locator('[data-testid=alert][data-kind=question] form').count(), 0, 'the answered question asks no more');
  await finish(p, 'hashiru-question-answered');
});

test('hashiru: the budget is raised from the page, journaled as `kaisha budget --raise-expense` does', async () => {
  const s = servers.hashiru;
  const info = await apiGet(s, '/dashboard/api/info');
  const budgetNow = () => JSON.parse(execFileSync(KAISHA, ['budget', '--config', s.config, '--session', info.session, '--json']).toString()).budget;
  const before = budgetNow().total_expense_budget;
  const p = await openPage(s);
  const { page } = p;
  const last = page.locator('[data-testid=ledger-expense] [data-testid=ledger-last]');
  await waitFor('the expense budget shown', async () => Number(await last.getAttribute('data-total')) === before);
  await page.selectOption('#raise-ledger', 'expense');
  await page.fill('#raise-amount', '1.5');
  await page.click('#raise-form button[type=submit]');
  await waitFor('the raised budget on the chart', async () => Math.abs(Number(await last.getAttribute('data-total')) - (before + 1.5)) < 1e-9);
  assert.ok(Math.abs(budgetNow().total_expense_budget - (before + 1.5)) < 1e-9, 'kaisha budget shows the raise');
  const ledger = await apiGet(s, '/dashboard/api/ledger');
  assert.ok(ledger.points.some((pt) => pt.kind === 'raise' && pt.ledger === 'expense' && pt.amount === 1.5), 'the raise is a journaled ledger entry');
  // A refused raise says why on the page and changes nothing.
  await page.fill('#raise-amount', '-3');
  await page.evaluate(() => document.getElementById('raise-amount').removeAttribute('min'));
  await page.click('#raise-form button[type=submit]');
  await page.locator('#raise-error:not([hidden])').waitFor();
  assert.match(await page.locator('#raise-error').textContent(), /above 0/);
  assert.ok(Math.abs(budgetNow().total_expense_budget - (before + 1.5)) < 1e-9);
  await finish(p, 'hashiru-budget-raised', { allowErrors: [/400 \(Bad Request\)/] });
});

test("hiva: the task's graph shows its agents and the edge the task was routed along", async () => {
  // The HiVA example's scenario (examples/hiva/) on a mock of its own: a task is one forward pass over
  // source -> aggregator.
  const examples = join(here, '..', '..', 'examples', 'hiva');
  const mock = await start('hiva mock', [KAISHA, 'mock-llm', '--script', join(examples, 'scenario.yaml'), '--port', '0'], /listening on (http:\/\/[^\s]+)/);
  const dir = join(work, 'hiva');
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `store: ${join(dir, 'kaisha.db')}\nstrategy: hiva\ncost_table: ${join(examples, 'costs.yaml')}\n` +
      'ceo:\n  model: openai:hiva-4o\nhiva:\n  model: hiva-4o\n  top_k: 2\n' +
      `providers:\n  openai: { base_url: ${mock.match[1]}/v1, api_key: mock-key, timeout_ms: 90000 }\n` +
      'retry:\n  max_attempts: 1\nbudget:\n  resource_total: 300\n  expense_total: 1.0\n',
  );
  servers.hiva = { config };
  await startServer('hiva', 'hiva');
  const p = await openPage(servers.hiva);
  const { page } = p;
  await page.locator('#link[data-state=live]').waitFor();
  await page.fill('#submit-input', 'Write a Python function double(x) that returns twice x.');
  await page.click('#submit-form button[type=submit]');
  await page.locator('[data-testid=task-item][data-status=done]').first().waitFor({ timeout: 60000 });
  const dag = page.locator('[data-testid=dag]');
  await waitFor('both agents in the graph', async () => (await dag.locator('.dag-node').count()) === 2);
  const keys = await dag.locator('.dag-node').evaluateAll((ns) => ns.map((n) => n.dataset.key).sort());
  assert.deepEqual(keys, ['aggregator', 'source']);
  const edges = await dag.locator('.dag-edge').evaluateAll((ns) => ns.map((n) => `${n.dataset.from}>${n.dataset.to}:${n.dataset.routed || ''}`));
  assert.deepEqual(edges, ['source>aggregator:true'], 'the one edge, which the task was routed along');
  assert.match(await dag.locator('figcaption').first().textContent(), /^iteration \d+/);
  await noHorizontalOverflow(page);
  await finish(p, 'hiva-graph');
});

test("hashiru: with a budget per session, a raise from the page raises the chosen task's session's budget", async () => {
  const s = servers.hashiru;
  const info = await apiGet(s, '/dashboard/api/info');
  assert.equal(info.per_session_budget, true);
  // A client's conversation (an A2A contextId) runs in a session, with a budget, of its own.
  const sent = await fetch(s.url + '/a2a', {
    method: 'POST',
    headers: { Authorization: 'Bearer ' + TOKEN, 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm1', contextId: 'ctx-dashboard', role: 'ROLE_USER', parts: [{ text: 'Tell me about rivers, from a client' }] } },
    }),
  });
  assert.equal(sent.status, 200);
  const id = (await sent.json()).result.task.id;
  const row = await waitFor('the client task in the journal', async () => {
    const t = await apiGet(s, '/dashboard/api/tasks?q=' + encodeURIComponent(id));
    return t.tasks.length === 1 && t.tasks[0].status === 'done' && t.tasks[0];
  });
  assert.notEqual(row.session, info.session, 'the client task ran in a session of its own');
  const budgetOf = (session) =>
    JSON.parse(execFileSync(KAISHA, ['budget', '--config', s.config, '--session', session, '--json']).toString()).budget.total_expense_budget;
  const hostBefore = budgetOf(info.session);
  const clientBefore = budgetOf(row.session);
  const p = await openPage(s);
  const { page } = p;
  await page.locator(`[data-testid=task-item][data-task="${id}"]`).click();
  await page.locator(`[data-testid=ledger-session][data-session="${row.session}"]`).waitFor({ timeout: 20000 });
  const last = page.locator('[data-testid=ledger-expense] [data-testid=ledger-last]');
  await waitFor("the client session's budget shown", async () => Number(await last.getAttribute('data-total')) === clientBefore);
  await page.selectOption('#raise-ledger', 'expense');
  await page.fill('#raise-amount', '0.75');
  await page.click('#raise-form button[type=submit]');
  await waitFor('the raised budget on the chart', async () => Math.abs(Number(await last.getAttribute('data-total')) - (clientBefore + 0.75)) < 1e-9);
  assert.ok(Math.abs(budgetOf(row.session) - (clientBefore + 0.75)) < 1e-9, "kaisha budget shows the client session's raise");
  assert.equal(budgetOf(info.session), hostBefore, "the served session's budget is unchanged");
  await finish(p, 'hashiru-session-budget-raised');
});

test('scale: 200 agents and 10,000 events replay without a main-thread task over 200 ms', async () => {
  const s = servers.scale;
  await waitFor('the scale task to end', async () => {
    const t = await apiGet(s, '/dashboard/api/tasks?q=' + encodeURIComponent(s.task));
    if (t.tasks.length && t.tasks[0].status !== 'running') return t.tasks[0].status;
  }, 240000).then((status) => assert.equal(status, 'done'));
  // The browser's long-task timing, from before the page's own scripts run.
  const init = () => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: true });
  };
  const p = await openPage(s, { init });
  const { page } = p;
  // Opened after the task, the page reads the whole log at once: the server holds its last 10,000 events.
  await waitFor('every held event read', async () => (await page.locator('#link').getAttribute('data-events')) === '10000', 60000);
  await waitFor('the 200 employees in the org chart', async () => (await page.locator('[data-testid=agent-card][data-role=employee]').count()) === SCALE_AGENTS, 30000);
  await page.locator('[data-testid=task-item][data-status=done]').first().waitFor();
  // The task's outline: thousands of asks, shown a page at a time.
  const more = page.locator('[data-testid=tree-more]').first();
  await more.waitFor({ timeout: 30000 });
  const rows = await page.locator('[data-testid=tree-node]').count();
  assert.ok(rows <= 400, `the outline shows ${rows} rows at once`);
  await more.click();
  await waitFor('the next page of the outline', async () => (await page.locator('[data-testid=tree-node]').count()) > rows);
  await page.waitForTimeout(1000); // drawing and reloads settle
  const long = await page.evaluate(() => window.__longTasks);
  console.log(`scale: ${long.length} long tasks (over 50 ms), longest ${Math.max(0, ...long)} ms: [${long.join(', ')}]`);
  assert.ok(long.every((ms) => ms <= 200), `main-thread tasks over 200 ms: ${long.filter((ms) => ms > 200).join(', ')} ms`);
  await noHorizontalOverflow(page);
  await finish(p, 'scale-200-agents');
});
