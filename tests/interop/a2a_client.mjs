// Drives an A2A server with the official @a2a-js/sdk 1.3.0 client and checks
// what comes back. Usage: node a2a_client.mjs BASE_URL
// The server is kaisha's A2A adapter over the interop fixture company
// (protocol_fixture_server), or `kaisha serve` on the real company with a
// mock CEO scripted alike (serve_company.yaml): "echo: <input>" answers,
// "slow..." tasks keep working until canceled, "fail..." tasks fail.
// Covers: card discovery, v1.0 SendMessage / SendStreamingMessage / GetTask /
// CancelTask through the SDK, the same through the SDK's v0.3 transport, and
// raw v0.3 method names on the same endpoint. Exits 1 on the first mismatch.
import assert from 'node:assert/strict';
import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

const base = process.argv[2];
if (!base) { console.error('usage: node a2a_client.mjs BASE_URL'); process.exit(2); }

const textPart = (s) => ({ content: { $case: 'text', value: s }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const request = (text, configuration = undefined) => ({
  tenant: '', configuration, metadata: {},
  message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [textPart(text)], taskId: '', contextId: '',
             extensions: [], metadata: {}, referenceTaskIds: [] },
});
const textOf = (parts) => parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
const taskOf = (r) => r?.payload?.value ?? r;   // sendMessage answers a Task or a Message
const step = (name) => console.log('ok -', name);

async function exercise(client, era) {
  // SendMessage (blocking): the finished task with its answer artifact.
  const sent = taskOf(await client.sendMessage(request('hello from the sdk')));
  assert.equal(sent.status.state, TaskState.TASK_STATE_COMPLETED, `${era} send: state`);
  assert.equal(textOf(sent.artifacts[0].parts), 'echo: hello from the sdk', `${era} send: answer`);
  step(`${era} SendMessage -> completed task with the answer artifact`);

  // GetTask: the same task, read back.
  const got = await client.getTask({ tenant: '', id: sent.id, historyLength: 10 });
  assert.equal(got.id, sent.id);
  assert.equal(got.status.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(textOf(got.history[0].parts), 'hello from the sdk', `${era} get: history`);
  step(`${era} GetTask -> completed, history holds the input`);

  // SendStreamingMessage: task first, then updates, the artifact, completion.
  const kinds = [];
  let artifact = '', last;
  for await (const ev of client.sendMessageStream(request('stream this'))) {
    kinds.push(ev.payload?.$case);
    if (ev.payload?.$case === 'artifactUpdate') artifact += textOf(ev.payload.value.artifact.parts);
    last = ev.payload;
  }
  assert.equal(kinds[0], 'task', `${era} stream: first event`);
  assert.ok(kinds.includes('statusUpdate') && kinds.includes('artifactUpdate'), `${era} stream: ${kinds}`);
  assert.equal(last.$case, 'statusUpdate');
  assert.equal(last.value.status.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(artifact, 'echo: stream this');
  step(`${era} SendStreamingMessage -> ${kinds.join(',')}`);

  // CancelTask: a task left working is canceled; canceling again is refused.
  const slow = taskOf(await client.sendMessage(request('slow job', { returnImmediately: true, acceptedOutputModes: [], historyLength: 0, taskPushNotificationConfig: undefined, blocking: false })));
  assert.notEqual(slow.status.state, TaskState.TASK_STATE_COMPLETED, `${era} slow task should still run`);
  const canceled = await client.cancelTask({ tenant: '', id: slow.id, metadata: {} });
  assert.equal(canceled.status.state, TaskState.TASK_STATE_CANCELED, `${era} cancel: state`);
  await assert.rejects(client.cancelTask({ tenant: '', id: slow.id, metadata: {} }), `${era} second cancel must fail`);
  step(`${era} CancelTask -> canceled; canceling again -> error`);

  // A failing task and an unknown task.
  const failed = taskOf(await client.sendMessage(request('fail please')));
  assert.equal(failed.status.state, TaskState.TASK_STATE_FAILED);
  assert.match(textOf(failed.status.message.parts), /fails on request/);
  await assert.rejects(client.getTask({ tenant: '', id: 'no-such-task', historyLength: 0 }));
  step(`${era} failed task carries its reason; unknown task -> error`);
}

async function raw(method, params, headers = {}) {
  const r = await fetch(base + '/a2a', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 42, method, params }),
  });
  return r.json();
}

// v1.0 through the SDK's default factory (it reads the card and picks 1.0).
const v1 = await new ClientFactory().createFromUrl(base);
await exercise(v1, 'v1.0');

// v0.3 through the SDK's legacy transport: the card with only its 0.3 interface.
const cardJson = await (await fetch(base + '/.well-known/agent-card.json')).json();
assert.ok(cardJson.supportedInterfaces.some((i) => i.protocolVersion === '0.3'), 'card lists a 0.3 interface');
assert.ok(cardJson.skills.some((s) => s.id === 'company'), 'card lists the company skill');
const legacyCard = { ...cardJson, supportedInterfaces: cardJson.supportedInterfaces.filter((i) => i.protocolVersion === '0.3') };
const legacyMethods = new Set();
const recordingFetch = async (url, init) => {
  legacyMethods.add(JSON.parse(init.body).method);
  return fetch(url, init);
};
const legacyFactory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true }, fetchImpl: recordingFetch })],
}));
const v03 = await legacyFactory.createFromAgentCard(legacyCard);
await exercise(v03, 'v0.3');
for (const m of ['message/send', 'message/stream', 'tasks/get', 'tasks/cancel'])
  assert.ok(legacyMethods.has(m), `the v0.3 transport used ${m} (saw ${[...legacyMethods]})`);
step(`the SDK's v0.3 transport spoke ${[...legacyMethods].join(', ')}`);

// Raw v0.3 method names and shapes, no A2A-Version header.
const send03 = await raw('message/send', { message: { kind: 'message', messageId: 'r1', role: 'user', parts: [{ kind: 'text', text: 'raw legacy' }] } });
assert.equal(send03.result.kind, 'task');
assert.equal(send03.result.status.state, 'completed');
const get03 = await raw('tasks/get', { id: send03.result.id });
assert.equal(get03.result.artifacts[0].parts[0].text, 'echo: raw legacy');
const cancel03 = await raw('tasks/cancel', { id: send03.result.id });
assert.equal(cancel03.error.code, -32002);
step('raw v0.3 message/send, tasks/get, tasks/cancel (not cancelable) on the same endpoint');

// Version and error handling.
const bad = await raw('SendMessage', { message: { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'x' }] } }, { 'A2A-Version': '9.9' });
assert.equal(bad.error.code, -32009);
const parse = await (await fetch(base + '/a2a', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' })).json();
assert.equal(parse.error.code, -32700);
step('unsupported A2A-Version -> -32009; malformed body -> -32700');
console.log('a2a interop: all checks passed');
