// Package templates holds the files skillpack renders: the scaffold of a new
// skill and the HTML catalog. It only embeds them; the code that renders
// them lives in packages scaffold and catalog.
package templates

import "embed"

// Scaffold is the tree `skillpack new` copies, with "{{.Name}}"-style
// placeholders rendered by text/template. File names ending in ".tmpl" lose
// that suffix.
//
//go:embed scaffold
var Scaffold embed.FS

// Catalog is the html/template of the bundle's index.html (index.html) and
// the stylesheet the page inlines (catalog.css), rendered by package catalog.
//
//go:embed catalog
var Catalog embed.FS
