// Package plugin is the model of a plugin on disk: an Agent Plugins 1.0
// package (plugin.json at its root, skills/<name>/SKILL.md, mcp.json) or a
// client's plugin folder (.claude-plugin/, .codex-plugin/, .cursor-plugin/,
// .github/plugin/). Read gives its name, manifests and skills; Validate
// checks plugin.json and mcp.json against the published 1.0.0 schemas,
// embedded (schemas/), each problem with its line and column.
//
// Discovery finds plugin folders (skill.FindTree's Plugins): this package
// reads the folders it is given. It reports problems as data and judges
// nothing: lint's plugin rules turn them into findings. It must not import
// skill, lint or anything that writes.
package plugin
