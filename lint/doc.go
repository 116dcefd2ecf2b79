// Package lint checks skills against the Agent Skills specification and
// the practical rules beyond it. It owns the rule registry (rules are
// data: ID, title, severity, explanation, examples, check; one registry
// drives checking, --list-rules, --explain, SARIF and the rule table of
// docs/rules.md), Finding and its output formats, profiles, the
// Settings it takes (package config reads them from skillpack.yaml), the
// baseline, suppressions, --fix, Scope (which skills lint and the build
// both take) and the verdicts the build keeps (CheckSkill).
//
// It reads skills through package skill. It takes from layout only the
// limits the bundle's readers set, and must not write a file but --fix's
// edits (a baseline goes to the writer it is given).
package lint
