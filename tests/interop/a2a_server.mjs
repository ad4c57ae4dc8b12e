// An A2A agent built with the official @a2a-js/sdk 1.3.0 server (v1.0 with
// v0.3 compatibility, JSON-RPC and REST, streaming): the peer kaisha's A2A
// client hires in the interop test. It answers every message with a task:
// submitted → working → artifact "js agent echo: <text>" → completed.
// Usage: node a2a_server.mjs PORT   (0 = any free port)
// Prints "A2A agent listening at <base-url>", then one "ask: <text>" line per
// message received.
import express from 'express';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, TaskState } from '@a2a-js/sdk';
import { InMemoryTaskStore, DefaultRequestHandler, AgentEvent } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';

const textOf = (msg) => msg.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
const textPart = (s) => ({ content: { $case: 'text', value: s }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const now = () => new Date().toISOString();

class EchoExecutor {
  async cancelTask() {}
  async execute(ctx, bus) {
    const text = textOf(ctx.userMessage);
    console.log('ask: ' + text);
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    bus.publish(AgentEvent.task({ id: ctx.taskId, contextId: ctx.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined },
      artifacts: [], history: [ctx.userMessage], metadata: {} }));
    bus.publish(AgentEvent.statusUpdate({ ...ids,
      status: { state: TaskState.TASK_STATE_WORKING, timestamp: now(), message: undefined }, metadata: {} }));
    bus.publish(AgentEvent.artifactUpdate({ ...ids,
      artifact: { artifactId: crypto.randomUUID(), name: 'echo', description: '', parts: [textPart('js agent echo: ' + text)],
                  metadata: undefined, extensions: [] },
      append: false, lastChunk: true, metadata: undefined }));
    bus.publish(AgentEvent.statusUpdate({ ...ids,
      status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: now(), message: undefined }, metadata: {} }));
    bus.finished();
  }
}

const app = express();
const server = app.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: 'JS Echo Agent', description: 'Echoes text back (an @a2a-js/sdk agent)', version: '1.0.0',
    supportedInterfaces: duplicateInterfacesForLegacy([
      { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    ], ['JSONRPC', 'HTTP+JSON']),
    provider: { organization: 'kaisha interop tests', url: base },
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {}, securityRequirements: [],
    defaultInputModes: ['text'], defaultOutputModes: ['text'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Repeats what it is told', tags: ['echo'], examples: ['hi'],
               inputModes: ['text'], outputModes: ['text'], securityRequirements: [] }],
    documentationUrl: '', signatures: [],
  };
  const rh = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: rh, legacyCompat: { enabled: true } }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: rh, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  app.use('/a2a/rest', restHandler({ requestHandler: rh, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  console.log(`A2A agent listening at ${base}`);
});
