package skillpack_test

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// TestDocsLinks follows every relative link and image of README.md and
// docs/ to the file it names, and a fragment to a heading of that file, as
// GitHub renders them: the docs were one README, and a section moved to
// another page leaves links behind that still point at the old place.
func TestDocsLinks(t *testing.T) {
	files := []string{"README.md"}
	err := filepath.WalkDir("docs", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, filepath.ToSlash(p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{} // by file, read when first linked
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		a := headingAnchors(parseMarkdown(src), src)
		anchors[file] = a
		return a
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		doc := parseMarkdown(src)
		err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			var dest string
			switch n := n.(type) {
			case *ast.Link:
				dest = string(n.Destination)
			case *ast.Image:
				dest = string(n.Destination)
			default:
				return ast.WalkContinue, nil
			}
			u, err := url.Parse(dest)
			if err != nil {
				t.Errorf("%s: link %q: %v", file, dest, err)
				return ast.WalkContinue, nil
			}
			if u.Scheme != "" || u.Host != "" {
				return ast.WalkContinue, nil // not this repository's
			}
			target := file
			if u.Path != "" {
				target = path.Join(path.Dir(file), u.Path)
				if strings.HasPrefix(u.Path, "/") || strings.HasPrefix(target, "../") {
					t.Errorf("%s: link %q leaves the repository; link a file in it, relative to %s", file, dest, file)
					return ast.WalkContinue, nil
				}
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q: no file %s; fix the path, relative to %s", file, dest, target, file)
					return ast.WalkContinue, nil
				}
			}
			if u.Fragment != "" && strings.HasSuffix(target, ".md") && !anchorsOf(target)[u.Fragment] {
				t.Errorf("%s: link %q: %s has no heading whose anchor is #%s", file, dest, target, u.Fragment)
			}
			return ast.WalkContinue, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// parseMarkdown parses src as GitHub does for links: tables hold links too.
func parseMarkdown(src []byte) ast.Node {
	return goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
}

// headingAnchors are the anchors GitHub gives the headings of doc: the
// text lower-cased, spaces made hyphens, punctuation but - and _ dropped,
// and -1, -2, ... after a repeat.
func headingAnchors(doc ast.Node, src []byte) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		var b strings.Builder
		for _, r := range strings.ToLower(plainText(h, src)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			out[a+"-"+strconv.Itoa(k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
		return ast.WalkSkipChildren, nil
	})
	return out
}

// plainText is the text of n and its descendants, code spans included.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Segment.Value(src))
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
