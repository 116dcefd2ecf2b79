// Package skill is the model of an Agent Skill on disk: discovery of skill
// folders (and ReadAll, the one parallel read of them), SKILL.md parsed
// with positions, its frontmatter as ordered YAML and as JSON, the
// collection of a skill's files (junk, .skillignore, symlinks, exec bits;
// Identical, whether two folders publish the same files),
// what a Markdown link names (ResolveLink, the one classifier lint's link
// rules and the catalog share), and the bounds within which every parse of
// a skill's Markdown stays (markdown.go).
//
// It reads; it never writes. It must not know of lint rules, archives,
// documents or bundles, so that every other package can depend on it
// cheaply.
package skill
