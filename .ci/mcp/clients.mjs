// Drives a released MCP client against skillpack serve: lists every skill,
// gets each, reads every file of every skill, and checks each file's bytes
// against the digest and size its entry names (as well as the client's own
// checks). Exits 1 on the first failure.
//
//   node clients.mjs CLIENT ERA EXPECT (--url URL | --stdio BIN DIST)
//
// CLIENT is sdk (@modelcontextprotocol/client's SkillsClient) or ext
// (@olaservo/ext-skills's client); ERA is modern (2026-07-28, per-request
// _meta) or legacy (the 2025-11-25 initialize handshake); EXPECT is the
// number of skills the bundle holds.
import { createHash } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import * as ext from "@olaservo/ext-skills/client";

const [which, era, expect, how, ...rest] = process.argv.slice(2);
const transport = how === "--url"
  ? new StreamableHTTPClientTransport(new URL(rest[0]))
  : new StdioClientTransport({ command: rest[0], args: ["serve", rest[1], "--stdio", "-q"] });
const client = new Client({ name: "skillpack-ci", version: "0" }, {
  versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" },
});
await client.connect(transport);
// A change of the bundle is announced where the client can hear it: over
// stdio, and over HTTP to a 2026-07-28 client's subscriptions/listen; a
// legacy client's session over stateless HTTP has no stream to hear it on.
const listChanged = client.getServerCapabilities()?.resources?.listChanged === true;
if (listChanged !== (how !== "--url" || era === "modern")) {
  throw new Error(`resources.listChanged is ${listChanged} over ${how === "--url" ? "HTTP" : "stdio"} at ${era}`);
}

const sha256 = (bytes) => "sha256:" + createHash("sha256").update(bytes).digest("hex");
let files = 0;
function check(what, ref, bytes) {
  if (bytes.length !== ref.size || sha256(bytes) !== ref.digest) {
    throw new Error(`${what} ${ref.uri}: ${bytes.length} bytes ${sha256(bytes)}, entry says ${ref.size} bytes ${ref.digest}`);
  }
  files++;
}

let skills;
if (which === "sdk") {
  const sc = new SkillsClient(client);
  if (!sc.supported) throw new Error("the server does not declare io.modelcontextprotocol/skills");
  skills = (await sc.list()).skills;
  for (const listed of skills) {
    const { skill } = await sc.get(listed.uri);
    for (const ref of skill.resources) {
      const f = await sc.read(skill, ref.uri);
      check("read", ref, f.bytes);
    }
  }
} else {
  skills = await ext.listSkills(client);
  for (const listed of skills) {
    const entry = await ext.getSkill(client, listed.uri);
    await ext.readSkill(client, entry); // the frontmatter against the entry's
    for (const ref of ext.manifestOf(entry)) {
      const c = await ext.readSkillResource(client, entry, ref.uri);
      check("read", ref, c.blob !== undefined ? Buffer.from(c.blob, "base64") : Buffer.from(c.text, "utf8"));
    }
  }
}
const version = client.getNegotiatedProtocolVersion?.() ?? "";
await client.close();
if (skills.length !== Number(expect)) {
  throw new Error(`listed ${skills.length} skills, the bundle holds ${expect}`);
}
console.log(`${which} ${how === "--url" ? "http" : "stdio"} ${era} ${version}: ${skills.length} skills, ${files} files, digests checked`);
