// The yardstick for `skillpack serve`'s MCP: the official TypeScript SDK's
// own skills server (@modelcontextprotocol/server 2.x, its ext/skills), as a
// user could deploy it instead, serving a folder of skills over stateless
// streamable HTTP at 2026-07-28 (and the 2025 handshake, statelessly).
//
//   node server.mjs SKILLS PORT
//
// It prints "listening on http://127.0.0.1:PORT/mcp" once ready. bench/mcp.sh
// runs it; the packages come from .ci/mcp/package.json.
import http from "node:http";
import { McpServer, createMcpHandler } from "@modelcontextprotocol/server";
import { loadSkills } from "@modelcontextprotocol/server/ext/skills/node";

const [root, port] = process.argv.slice(2);
// The same freshness skillpack gives (ttlMs of 5 minutes, public).
const skills = await loadSkills(root, {
  cacheHint: { ttlMs: 300_000, cacheScope: "public" },
  onWarning: () => {},
});
const handler = createMcpHandler(() => {
  const mcp = new McpServer({ name: "sdk-skills", version: "0" }, { capabilities: { resources: {} } });
  skills.attach(mcp);
  return mcp;
});

// node:http to the handler's fetch face and back.
const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const response = await handler.fetch(new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
  }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) {
    for await (const c of response.body) res.write(c);
  }
  res.end();
});
server.keepAliveTimeout = 60_000;
server.listen(Number(port), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/mcp`);
});
