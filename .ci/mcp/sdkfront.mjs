// How the official TypeScript SDK reads SKILL.md files: skillEntry, which
// MCP servers built on the SDK list skills with, runs the SDK's YAML
// subset reader and its entry rules. Reads a JSON array of SKILL.md texts
// on stdin and prints a JSON array of what it made of each:
// {"ok": true, "frontmatter": {...}} or {"ok": false, "error": "..."}.
// build's TestMCPEntriesTheSDKReads compares them with the bundle's MCP
// documents.
import { skillEntry } from "@modelcontextprotocol/server/ext/skills";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const out = [];
for (const text of JSON.parse(input)) {
  const name = /^name: *([a-z0-9-]+)/m.exec(text)?.[1] ?? "x";
  try {
    const entry = await skillEntry(name, { "SKILL.md": text });
    out.push({ ok: true, frontmatter: entry.frontmatter });
  } catch (err) {
    out.push({ ok: false, error: String(err?.message ?? err) });
  }
}
process.stdout.write(JSON.stringify(out));
