// Package skill is the model of an Agent Skill on disk: discovery of skill
// folders, SKILL.md parsing with positions, and the collection of a skill's
// files (junk, .skillignore, symlinks, exec bits).
//
// It reads; it never writes. It knows nothing of lint rules, archives or
// indexes, so every other package can depend on it cheaply.
package skill
