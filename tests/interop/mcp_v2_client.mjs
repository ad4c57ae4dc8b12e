// Drives `kaisha serve --fixture conformance` with the official TypeScript
// client, @modelcontextprotocol/client 2.x, in each of its version
// negotiation modes, over Streamable HTTP and stdio, and checks what comes
// back. Usage:
//   node mcp_v2_client.mjs http URL
//   node mcp_v2_client.mjs stdio KAISHA
// Modes: 'legacy' (initialize, 2025-11-25), 'auto' (probes, then 2026-07-28
// with kaisha), {pin: '2026-07-28'}. Each lists, calls a tool, reads a
// resource, gets a prompt, answers an elicitation (a server->client request
// on legacy, an InputRequiredResult on 2026-07-28), and, modern, hears a
// tools/list_changed on a subscriptions/listen stream. Exits 1 on the first
// mismatch.
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [kind, target] = process.argv.slice(2);
if (!['http', 'stdio'].includes(kind) || !target) {
  console.error('usage: node mcp_v2_client.mjs (http URL | stdio KAISHA)');
  process.exit(2);
}

const transport = () =>
  kind === 'http'
    ? new StreamableHTTPClientTransport(new URL(target))
    : new StdioClientTransport({ command: target, args: ['serve', '--mcp-stdio', '--fixture', 'conformance'] });

const text = (r) => r.content.map((c) => c.text ?? '').join('');

async function exercise(label, mode, expectedVersion) {
  const client = new Client(
    { name: 'kaisha-interop-v2', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode } }
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Alice' } }));
  await client.connect(transport());
  const version = client.getNegotiatedProtocolVersion();
  assert.equal(version, expectedVersion, `${label}: negotiated version`);
  assert.equal(client.getServerVersion()?.name, 'kaisha-conformance-fixture', `${label}: server info`);

  const tools = await client.listTools();
  assert.ok(tools.tools.some((t) => t.name === 'test_simple_text'), `${label}: tools/list`);
  assert.equal(text(await client.callTool({ name: 'test_simple_text', arguments: {} })),
               'This is a simple text response for testing.', `${label}: tools/call`);
  const resource = await client.readResource({ uri: 'test://static-text' });
  assert.equal(resource.contents[0].text, 'This is the content of the static text resource.', `${label}: resources/read`);
  const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
  assert.match(prompt.messages[0].content.text, /arg1='a', arg2='b'/, `${label}: prompts/get`);
  const asked = await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
  assert.equal(text(asked), 'Hello, Alice!', `${label}: a tool asking for input`);

  if (version === '2026-07-28') {
    let heard;
    const changed = new Promise((resolve) => { heard = resolve; });
    client.setNotificationHandler('notifications/tools/list_changed', () => heard());
    const sub = await client.listen({ toolsListChanged: true });
    assert.equal(sub.honoredFilter.toolsListChanged, true, `${label}: subscription acknowledged`);
    await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
    await Promise.race([changed, new Promise((_, no) => setTimeout(() => no(new Error(`${label}: no list_changed`)), 20000))]);
    await sub.close();
  }
  await client.close();
  console.log(`ok - ${kind} ${label}: ${version}`);
}

try {
  await exercise('legacy', 'legacy', '2025-11-25');
  await exercise('auto', 'auto', '2026-07-28');
  await exercise('pin 2026-07-28', { pin: '2026-07-28' }, '2026-07-28');
} catch (e) {
  console.error(`FAIL: ${e?.stack ?? e}`);
  process.exit(1);
}
process.exit(0);
