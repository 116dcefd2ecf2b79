package skill

import "testing"

func TestResolveLink(t *testing.T) {
	for _, c := range []struct {
		dir, dest string
		kind      LinkKind
		path      string
	}{
		{"", "references/a.md", LinkInside, "references/a.md"},
		{"", "./references/a.md#part", LinkInside, "references/a.md"},
		{"", "a%20b.md?x=1#y", LinkInside, "a b.md"},
		{"", "bad%zz.md", LinkInside, "bad%zz.md"},
		{"", "references/", LinkInside, "references"},
		{"references", "../scripts/x.py", LinkInside, "scripts/x.py"},
		{"references", "b.md", LinkInside, "references/b.md"},
		{"", "../x.md", LinkOutside, "../x.md"},
		{"", "a/../../x.md", LinkOutside, "../x.md"},
		{"", "..", LinkOutside, ".."},
		{"", "..x.md", LinkInside, "..x.md"},
		{"", "/etc/x", LinkAbsolute, ""},
		{"", `C:\x.md`, LinkAbsolute, ""},
		{"", "c:/x.md", LinkAbsolute, ""},
		{"", `\x.md`, LinkAbsolute, ""},
		{"", "~/x.md", LinkAbsolute, ""},
		{"", "FILE:///x.md", LinkAbsolute, ""},
		{"", `scripts\x.py`, LinkBackslash, ""},
		{"", "https://x.example/a.md", LinkNone, ""},
		{"", "mailto:a@b.c", LinkNone, ""},
		{"", "//cdn.example/x.png", LinkNone, ""},
		{"", "#top", LinkNone, ""},
		{"", "?q", LinkNone, ""},
		{"references", "${CLAUDE_SKILL_DIR}/scripts/x.py", LinkInside, "scripts/x.py"},
		{"", "$CLAUDE_SKILL_DIR/jobs/a.md", LinkInside, "jobs/a.md"},
		{"", "{baseDir}/references/a.md", LinkInside, "references/a.md"},
		{"", "${CLAUDE_SKILL_DIR}/../x.md", LinkOutside, "../x.md"},
		{"", "${CLAUDE_PLUGIN_ROOT}/scripts", LinkPlugin, "scripts"},
		{"", "${CLAUDE_PLUGIN_ROOT}/../x", LinkNone, ""},
		{"", "${CLAUDE_PLUGIN_DATA}/cache.json", LinkNone, ""},
		{"", "{public reviews URL}", LinkNone, ""},
		{"", "/hookify:writing-rules", LinkNone, ""},
		{"", "/c:/x.md", LinkAbsolute, ""},
		{"", "", LinkNone, ""},
	} {
		kind, p := ResolveLink(c.dir, c.dest)
		if kind != c.kind || p != c.path {
			t.Errorf("ResolveLink(%q, %q) = %d %q, want %d %q", c.dir, c.dest, kind, p, c.kind, c.path)
		}
	}
}
