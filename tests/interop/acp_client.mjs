// Drives an ACP server (IBM/BeeAI Agent Communication Protocol, OpenAPI
// 0.2.0) with the npm `acp-sdk` 1.0.3 client, whose zod schemas also
// validate every response. Usage: node acp_client.mjs BASE_URL
// The server is kaisha's ACP adapter over the interop fixture company
// (protocol_fixture_server), or `kaisha serve` on the real company with a
// mock CEO scripted alike (serve_company.yaml): agent "kaisha" answers
// "echo: <input>", "slow..." runs keep working until cancelled, "fail..." runs fail.
// Covers every endpoint and mode: ping, agents, agent, runs sync/async/stream,
// run status, events, cancel, resume, sessions, error mapping. Exits 1 on
// the first mismatch.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// The ESM build of acp-sdk imports its package.json without an import
// attribute and fails on Node 20/22; the CJS build works.
const { Client } = createRequire(import.meta.url)('acp-sdk');

const base = process.argv[2];
if (!base) { console.error('usage: node acp_client.mjs BASE_URL'); process.exit(2); }
const step = (name) => console.log('ok -', name);
const textOf = (run) => run.output.flatMap((m) => m.parts).map((p) => p.content ?? '').join('');
const c = new Client({ baseUrl: base });

await c.ping();
step('ping');
const agents = await c.agents();
assert.deepEqual(agents.map((a) => a.name), ['kaisha']);
const manifest = await c.agent('kaisha');
assert.deepEqual(manifest.input_content_types, ['text/plain']);
step('agents, agent(kaisha)');

// sync: the finished run.
const sync = await c.runSync('kaisha', 'Hello sync');
assert.equal(sync.status, 'completed');
assert.equal(textOf(sync), 'echo: Hello sync');
assert.match(sync.output[0].role, /^agent\/kaisha$/);
step('runSync -> completed with the answer');

// async: accepted, then readable by id with its events.
const started = await c.runAsync('kaisha', 'Hello async');
assert.ok(['created', 'in-progress', 'completed'].includes(started.status), started.status);
let status = await c.runStatus(started.run_id);
for (let i = 0; i < 50 && status.status !== 'completed'; i++) {
  await new Promise((r) => setTimeout(r, 100));
  status = await c.runStatus(started.run_id);
}
assert.equal(status.status, 'completed');
assert.equal(textOf(status), 'echo: Hello async');
const events = (await c.runEvents(started.run_id)).map((e) => e.type);
assert.equal(events[0], 'run.created');
assert.equal(events.at(-1), 'run.completed');
step(`runAsync -> ${started.status}; runStatus -> completed; runEvents -> ${events.join(',')}`);

// stream: events in order, parts concatenate to the output.
const streamed = [];
let parts = '', final;
for await (const e of c.runStream('kaisha', 'Hello stream')) {
  streamed.push(e.type);
  if (e.type === 'message.part') parts += e.part.content;
  if (e.type.startsWith('run.')) final = e.run;
}
assert.equal(streamed[0], 'run.created');
assert.equal(streamed.at(-1), 'run.completed');
for (const t of ['run.in-progress', 'message.created', 'message.part', 'message.completed'])
  assert.ok(streamed.includes(t), `stream has ${t}: ${streamed}`);
assert.equal(parts, 'echo: Hello stream');
assert.equal(textOf(final), parts);
step(`runStream -> ${streamed.join(',')}`);

// cancel: a slow run goes cancelling -> cancelled; a second cancel is refused.
const slow = await c.runAsync('kaisha', 'slow job');
const cancelling = await c.runCancel(slow.run_id);
assert.equal(cancelling.status, 'cancelling');
let after = await c.runStatus(slow.run_id);
for (let i = 0; i < 50 && after.status !== 'cancelled'; i++) {
  await new Promise((r) => setTimeout(r, 100));
  after = await c.runStatus(slow.run_id);
}
assert.equal(after.status, 'cancelled');
await assert.rejects(c.runCancel(slow.run_id));
assert.equal((await c.runEvents(slow.run_id)).at(-1).type, 'run.cancelled');
step('runCancel -> cancelling -> cancelled; cancelling again -> error');

// failure: the run fails with the company's reason in its error.
const failed = await c.runSync('kaisha', 'fail please');
assert.equal(failed.status, 'failed');
assert.equal(failed.error.code, 'server_error');
assert.match(failed.error.message, /fails on request/);
step('runSync of a failing task -> failed run with the reason');

// resume: kaisha's runs never await; each mode is refused with the reason.
const resume = { type: 'message', message: { role: 'user', parts: [{ content_type: 'text/plain', content: 'more' }] } };
await assert.rejects(c.runResumeSync(sync.run_id, resume), /cannot be resumed/);
await assert.rejects(c.runResumeAsync(sync.run_id, resume), /cannot be resumed/);
await assert.rejects((async () => { for await (const _ of c.runResumeStream(sync.run_id, resume)); })(), /cannot be resumed/);
step('runResume{Sync,Async,Stream} of a completed run -> refused with the reason');

// sessions: the client's session id travels with each run.
const sid = await c.withSession(async (s) => (await s.runSync('kaisha', 'in a session')).session_id);
assert.match(sid, /^[0-9a-f-]{36}$/);
step('withSession -> session_id echoed');

// errors: unknown agent and run -> 404 not_found (ACPError); bad body -> 400.
await assert.rejects(c.agent('nope'), (e) => e.constructor.name === 'ACPError' && /not found/.test(e.message));
await assert.rejects(c.runStatus('00000000-0000-4000-8000-000000000000'), /not found/);
const bad = await fetch(base + '/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"agent_name":"kaisha","input":"x"}' });
assert.equal(bad.status, 400);
assert.equal((await bad.json()).code, 'invalid_input');
step('unknown agent/run -> not_found; malformed run -> 400 invalid_input');
console.log('acp interop: all checks passed');
