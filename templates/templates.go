// Package templates holds the files skillpack renders: the scaffold of a new
// skill, the HTML catalog, and what `skillpack init` writes. It only embeds
// them; the code that renders them lives in packages scaffold and catalog,
// and in the init command.
package templates

import "embed"

// Scaffold is the tree `skillpack new` copies, with "{{.Name}}"-style
// placeholders rendered by text/template. File names ending in ".tmpl" lose
// that suffix.
//
//go:embed scaffold
var Scaffold embed.FS

// Catalog is the html/template of the bundle's index.html (index.html),
// the stylesheet and the script the page inlines (catalog.css, filter.js:
// its search box), rendered by package catalog.
//
//go:embed catalog
var Catalog embed.FS

// Init is what `skillpack init` writes: a commented skillpack.yaml
// (skillpack.yaml, valid as it is and with its examples uncommented) and,
// with --ci github, a workflow (github-workflow.yml, whose word SKILLS is
// replaced by the skills' folder).
//
//go:embed init
var Init embed.FS
