package lint

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The spec's budget for SKILL.md: an agent loads the whole body once the
// skill is picked, so everything beyond it costs context on every use.
const (
	maxBodyLines  = 500
	maxBodyTokens = 5000
)

var bodyRules = []*Rule{
	{
		ID:       "body-empty",
		Title:    "SKILL.md has no instructions after the frontmatter",
		Severity: Warning,
		Explain: "The Markdown after the frontmatter is what an agent reads once it picks the skill: the " +
			"instructions themselves. A SKILL.md with frontmatter and nothing (or only blank lines) after it " +
			"is discovered by every client, advertised by its description, and then tells the agent nothing. " +
			"Write the steps, examples and pointers to the skill's files below the closing \"---\" line.",
		Bad:   "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\n",
		Good:  "---\nname: pdf-tools\ndescription: Fill in and merge PDF forms.\n---\n\n# PDF tools\n\nRun `scripts/fill.py FORM DATA`.\n",
		Check: checkBodyEmpty,
	},
	{
		ID:       "body-too-long",
		Title:    "SKILL.md body is longer than 500 lines",
		Severity: Warning,
		Explain: "The specification recommends keeping SKILL.md under 500 lines: agents load the whole body " +
			"into their context when the skill is used, so a long body crowds out the user's task and costs " +
			"tokens on every use. Keep the core steps in SKILL.md and move reference material, long examples " +
			"and tables into files under references/ that SKILL.md links to; agents read those only when needed.",
		Bad:   "---\nname: api-guide\ndescription: Call the billing API correctly.\n---\n(900 lines of endpoint tables)\n",
		Good:  "---\nname: api-guide\ndescription: Call the billing API correctly.\n---\nSee [the endpoints](references/endpoints.md).\n",
		Check: checkBodyTooLong,
	},
	{
		ID:       "body-too-many-tokens",
		Title:    "SKILL.md body is longer than about 5000 tokens",
		Severity: Warning,
		Explain: "The specification recommends keeping the SKILL.md body under 5000 tokens, because agents " +
			"load all of it into their context when the skill is used. Tokenizers differ between models, so " +
			"skillpack estimates: one token per Chinese, Japanese or Korean character (Han, Hiragana, Katakana, " +
			"Hangul) and one per four other characters (Unicode code points) of the body, rounded up, the " +
			"usual rules of thumb for GPT and Claude tokenizers (code and other non-Latin scripts use more " +
			"tokens per character, so the estimate is if anything low); a CRLF line ending counts as one " +
			"character, so that a Windows checkout gets the same findings. A body over the budget that is also " +
			"over 500 lines is reported here alone, not by body-too-long too. Move reference " +
			"material into files under references/ and link to them.",
		Bad:  "---\nname: api-guide\ndescription: Call the billing API correctly.\n---\n(40,000 characters of prose)\n",
		Good: "---\nname: api-guide\ndescription: Call the billing API correctly.\n---\nSee [the endpoints](references/endpoints.md).\n",
		// A body too long in lines is almost always too long in tokens as
		// well: one cause, and the token count is the budget that matters.
		Supersedes: []string{"body-too-long"},
		Check:      checkBodyTokens,
	},
	{
		ID:       "code-fence-unclosed",
		Title:    "A code fence is never closed",
		Severity: Warning,
		Explain: "A ``` or ~~~ fence without a closing line runs to the end of the document (or of the list " +
			"item or quote it is in): Markdown readers show everything after it as code, so headings, links " +
			"and instructions below it are lost, and agents may take prose for a script to run. Close the " +
			"block with a line of the same character, at least as long as the opening fence. A fence with an info string " +
			"(```bash) inside an open block of the same character opens no block inside it: a closing fence " +
			"carries nothing after its run, so CommonMark shows the line as code, and the fence meant to close " +
			"the inner block closes the outer one, leaving the outer block's own closing fence to open a block " +
			"that runs on. The rule reports that inner fence, the first one, since every fence after it pairs " +
			"with the wrong one: open the outer block with a longer fence (````markdown around ```bash) and " +
			"close it with the same, or, where the outer block was meant to end above the inner fence (its " +
			"opening fence lost, or taken into an HTML block such as a <Good> line right above it), close it there.",
		Bad:   "---\nname: csv-tools\ndescription: Clean and merge CSV files.\n---\n```sh\npython scripts/clean.py in.csv\n\n## Next steps\n",
		Good:  "---\nname: csv-tools\ndescription: Clean and merge CSV files.\n---\n```sh\npython scripts/clean.py in.csv\n```\n\n## Next steps\n",
		Check: checkFences,
	},
}

// hasBody reports whether SKILL.md could be split into frontmatter and a
// body. Without any frontmatter the whole file is the body; with an
// unclosed block there is none.
func hasBody(p *Pass) bool {
	return p.Doc != nil && p.Doc.Body != nil
}

func checkBodyEmpty(p *Pass) {
	// FrontLine is 0 without frontmatter: then the file is empty, which
	// the frontmatter rules report.
	if hasBody(p) && p.Doc.FrontLine > 0 && len(bytes.TrimSpace(p.Doc.Body)) == 0 {
		p.Reportf(p.Skill.File, 0, 0, "write the skill's instructions below the closing \"---\" line",
			"SKILL.md has frontmatter but no body: agents that load the skill get no instructions")
	}
}

func checkBodyTooLong(p *Pass) {
	if !hasBody(p) {
		return
	}
	body := p.Doc.Body
	n := bytes.Count(body, []byte("\n"))
	if len(body) > 0 && body[len(body)-1] != '\n' {
		n++
	}
	if n > maxBodyLines {
		p.Reportf(p.Skill.File, p.BodyPos(maxBodyLines+1), 1,
			"move reference material into files under references/ and link to them from SKILL.md",
			"the SKILL.md body has %d lines, more than the %d the spec recommends; this is line %d of the body",
			n, maxBodyLines, maxBodyLines+1)
	}
}

func checkBodyTokens(p *Pass) {
	if !hasBody(p) {
		return
	}
	if tokens, cjk, other := estimateTokens(p.Doc.Body); tokens > maxBodyTokens {
		how := fmt.Sprintf("%d characters / 4", other)
		if cjk > 0 {
			how = fmt.Sprintf("%d Chinese, Japanese or Korean characters at one token each, plus %d other characters / 4", cjk, other)
		}
		p.Reportf(p.Skill.File, 0, 0,
			"move reference material into files under references/ and link to them from SKILL.md",
			"the SKILL.md body is about %d tokens (estimated as %s), more than the %d the spec recommends",
			tokens, how, maxBodyTokens)
	}
}

// estimateTokens is skillpack's one token estimate: a Han, Hiragana,
// Katakana or Hangul character is about one token (often more) in GPT's
// and Claude's tokenizers, every other character about a quarter of one,
// the rule of thumb for English. Counting every character at a quarter
// made a Chinese body four times as long as the budget look within it.
// It returns the estimate, rounded up, and the two counts it comes from.
func estimateTokens(text []byte) (tokens, cjk, other int) {
	ascii := asciiPrefix(text) // one character a byte, counted fast
	other = ascii
	for i := ascii; i < len(text); {
		r, n := utf8.DecodeRune(text[i:])
		i += n
		// Every script counted here starts at U+1100 (Hangul Jamo).
		if r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			cjk++
		} else {
			other++
		}
	}
	other -= bytes.Count(text, []byte("\r\n")) // a line's end is one character, however checked out
	return cjk + (other+3)/4, cjk, other
}

func checkFences(p *Pass) {
	md := bodyMarkdown(p)
	if md == nil {
		return
	}
	// A fence meant to open a block inside another is the cause of the
	// fences left open after it: the block it ends early leaves its own
	// closing fence to open a block, so that is where the author looks.
	// The first is reported: the fences after it pair up wrong, so what
	// looks nested after it may not be.
	// A fence taken into an HTML block above is the likelier cause (a
	// <Good> line right above it): the fence meant to close it opened a
	// block instead. The note and the fix say so; "" when there is none.
	cause := func(off int) (note, fix string) {
		var h *swallowed // the last above off
		for i := range md.html {
			if md.html[i].fence < off {
				h = &md.html[i]
			}
		}
		if h == nil {
			return "", ""
		}
		line, _ := md.pos(h.fence)
		start, _ := md.pos(h.html)
		fence, html := p.BodyPos(line), p.BodyPos(start)
		return fmt.Sprintf("; the fence at line %d above opens no block, being part of the HTML block line %d starts", fence, html),
			fmt.Sprintf("put a blank line right above the fence at line %d: it ends the HTML block of line %d there, and the fence opens its block", fence, html)
	}
	first := len(md.src)
	for _, nf := range md.nested[:min(len(md.nested), 1)] {
		first = nf.off
		outer := md.src[nf.outer:]
		outer = outer[:fenceRun(outer)]
		openLine, _ := md.pos(nf.outer)
		closeLine, _ := md.pos(nf.close)
		longer := strings.Repeat(string(outer[0]), nf.want)
		// Which was meant, a block inside the block or a block that
		// should have ended above, the text does not say: the fix offers
		// both.
		at := p.BodyPos(openLine)
		note, fix := cause(nf.outer)
		if fix == "" {
			fix = fmt.Sprintf("if the block at line %d is to hold this one, open it with %s and close it with %s "+
				"where it ends, a fence longer than any inside it; if it was to end above this line, close it there", at, longer, longer)
		}
		reportAt(p, md, nf.off, fix,
			"the code fence %s here is inside the %s block opened at line %d, where it is shown as code and opens no block "+
				"(a closing fence carries nothing after it): the fence at line %d closes the block of line %d, "+
				"and every fence after it pairs with the wrong one%s",
			nf.fence, outer, at, p.BodyPos(closeLine), at, note)
	}
	for i, off := range md.fences {
		if off < 0 || off >= len(md.src) || off > first {
			continue
		}
		fence := md.src[off:]
		n := fenceRun(fence)
		shown := "everything after it is shown as code"
		if end := min(max(md.ends[i], off), len(md.src)); len(bytes.TrimSpace(md.src[end:])) > 0 {
			shown = "it ends only where its list item or quote does"
		}
		note, fix := cause(off)
		reportAt(p, md, off, cmp.Or(fix, "add a closing "+string(fence[:n])+" line after the block"),
			"the code fence %s opened here is never closed: %s%s", fence[:n], shown, note)
	}
}
