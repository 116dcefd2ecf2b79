// Package lint checks skills against the Agent Skills specification and the
// practical rules beyond it. Rules are data (ID, title, severity,
// explanation, examples, check) in one registry that drives checking,
// --list-rules, --explain, SARIF and the rule table of docs/rules.md.
//
// lint reads skills through package skill and reports Findings; it never
// writes files.
package lint
