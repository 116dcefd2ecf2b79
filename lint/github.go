package lint

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// formatGitHub writes one GitHub Actions workflow command a finding, which
// the runner turns into an annotation on the file and line:
//
//	::error file=PATH,line=L,col=C,title=RULE::MESSAGE
//
// Info findings become notices. Nothing else is written, because the runner
// reads every line of the step's output. The path, message and fix are
// Printable first, as the log shows the line and the runner turns %0A back
// into a line break; a path with a control character then names no file
// of the checkout, which is better than an escape sequence in the log.
func formatGitHub(w io.Writer, res *Result, _ Tool) error {
	bw := bufio.NewWriter(w) // it keeps the first write error, which Flush returns
	_, rel := checkout(res.Base)
	for _, f := range res.Findings {
		var props []string
		if f.Path != "" {
			props = append(props, "file="+ghProperty(Printable(rel(f.Path))))
		}
		// Line and column count from 1; 0 means the whole file, which the
		// runner shows when line is left out. A column without a line
		// means nothing.
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line))
			if f.Column > 0 {
				props = append(props, fmt.Sprintf("col=%d", f.Column))
			}
		}
		props = append(props, "title="+ghProperty(f.Rule))
		msg := Printable(f.Message)
		if f.Fix != "" {
			msg += "\nFix: " + Printable(f.Fix)
		}
		fmt.Fprintf(bw, "::%s %s::%s\n", ghCommands[f.Severity], strings.Join(props, ","), ghData(msg))
	}
	return bw.Flush()
}

// Annotate writes one workflow command that names no file: an annotation
// on the run's summary page (command is "warning", "error" or "notice").
func Annotate(w io.Writer, command, title, msg string) {
	fmt.Fprintf(w, "::%s title=%s::%s\n", command, ghProperty(title), ghData(Printable(msg)))
}

// ghCommands name the annotation command of each severity.
var ghCommands = [...]string{Off: "notice", Info: "notice", Warning: "warning", Error: "error"}

// ghData escapes a command's message as the runner unescapes it
// (actions/toolkit command.ts escapeData): CR and LF would end the
// command, and "%" would start an escape. A Replacer works in one pass, so
// the "%" of an escape it writes is never escaped again.
var ghData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace

// ghProperty escapes a property value (command.ts escapeProperty): as
// ghData, plus ":" and ",", which would end the value or the property list.
var ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace
