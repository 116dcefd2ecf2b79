// Package templates holds the files skillpack renders: the scaffold of a new
// skill and the HTML catalog. It only embeds them; the code that renders
// them lives in package scaffold and the build.
package templates

import "embed"

// Scaffold is the tree `skillpack new` copies, with "{{.Name}}"-style
// placeholders rendered by text/template. File names ending in ".tmpl" lose
// that suffix.
//
//go:embed scaffold
var Scaffold embed.FS
