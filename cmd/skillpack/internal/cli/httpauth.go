package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"unicode"

	"github.com/spf13/pflag"
	"golang.org/x/net/http/httpguts"
)

// HTTPAuth is what a command sends with its requests to a bundle's URL,
// so that a private registry lets it in: verify's --header and
// --token-file, and build's --previous-header and --previous-token-file.
type HTTPAuth struct {
	Headers   []string // each "Name: value" as given
	TokenFile string   // a bearer token's file
	prefix    string   // of the flags' names: "" or "previous-"
}

// AddFlags registers the flags, their names after prefix; to says where
// the requests go, for the help.
func (a *HTTPAuth) AddFlags(f *pflag.FlagSet, prefix, to string) {
	a.prefix = prefix
	f.StringArrayVar(&a.Headers, prefix+"header", nil, "add a request header, `'Name: value'`, to every request to "+to+" (repeatable)")
	f.StringVar(&a.TokenFile, prefix+"token-file", "", "send the bearer token in `file` (one line) as 'Authorization: Bearer TOKEN' to "+to)
}

// given reports whether either flag was.
func (a *HTTPAuth) given() bool { return len(a.Headers) > 0 || a.TokenFile != "" }

// flags names the two flags, for a message that refuses them.
func (a *HTTPAuth) flags() string {
	return "--" + a.prefix + "header and --" + a.prefix + "token-file"
}

// example is the right form of a header, for the messages that refuse a wrong one.
func (a *HTTPAuth) example() string {
	return "give it as 'Name: value', such as --" + a.prefix + "header 'Authorization: Bearer TOKEN'"
}

// ownHeaders are the headers dist's HTTP reader sets itself, which --header may not.
var ownHeaders = map[string]string{
	"Host":            "the host is the URL's",
	"Accept-Encoding": "skillpack asks for gzip itself and checks what the server sends back",
}

// Header is what the flags add to the requests, checked whole before
// anything is fetched; nil for nothing. No message quotes a value (or a
// name that may be one): it may be a secret.
func (a *HTTPAuth) Header() (http.Header, error) {
	h := http.Header{}
	for i, raw := range a.Headers {
		flag := "--" + a.prefix + "header"
		if len(a.Headers) > 1 {
			flag = fmt.Sprintf("--%sheader #%d", a.prefix, i+1)
		}
		name, value, ok := strings.Cut(raw, ":")
		value = strings.Trim(value, " \t")
		switch {
		case !ok:
			return nil, usageErr("%s has no ':'; %s", flag, a.example())
		case name == "":
			return nil, usageErr("%s has no name before ':'; %s", flag, a.example())
		case !httpguts.ValidHeaderFieldName(name): // an RFC 9110 token
			return nil, usageErr("%s: the name before ':' may hold only letters, digits and !#$%%&'*+-.^_`|~ (no spaces); %s", flag, a.example())
		case strings.ContainsFunc(value, func(r rune) bool { return r != '\t' && unicode.IsControl(r) }):
			return nil, usageErr("%s %s: the value has a line break or another control character; give one line, %s", flag, name, a.example())
		case value == "":
			return nil, usageErr("%s %s has no value after ':' (an unset variable?); %s", flag, name, a.example())
		}
		name = http.CanonicalHeaderKey(name)
		if why, ok := ownHeaders[name]; ok {
			return nil, usageErr("%s %s: skillpack sets %s itself (%s); leave it out", flag, name, name, why)
		}
		h.Add(name, value)
	}
	if a.TokenFile != "" {
		tokens, err := readTokens(a.TokenFile)
		if err == nil && len(tokens) > 1 {
			err = fmt.Errorf("the file holds %d tokens; a request sends one, so put it alone in the file", len(tokens))
		}
		if err != nil {
			return nil, usageErr("--%stoken-file %s: %w", a.prefix, a.TokenFile, err)
		}
		h.Add("Authorization", "Bearer "+tokens[0])
	}
	if len(h.Values("Authorization")) > 1 {
		return nil, usageErr("Authorization is given more than once; give it once, with --%stoken-file or with --%sheader", a.prefix, a.prefix)
	}
	if len(h) == 0 {
		return nil, nil
	}
	return h, nil
}

// readTokens reads a token file, one format for both ends (serve
// --auth-token-file, verify --token-file): one token a line, blank lines
// and lines starting with # skipped. A token is printable ASCII without
// spaces (RFC 6750). The errors never quote a line: it may be a secret.
func readTokens(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("no such file; give the file that holds the token")
	} else if err != nil {
		return nil, err
	}
	var tokens []string
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "Bearer "):
			return nil, fmt.Errorf("line %d starts with 'Bearer '; put the token alone on it (skillpack adds 'Bearer ')", i+1)
		case strings.ContainsFunc(line, func(r rune) bool { return r <= ' ' || r > '~' }):
			return nil, fmt.Errorf("line %d: a token is printable ASCII without spaces; put one token on each line", i+1)
		}
		tokens = append(tokens, line)
	}
	if len(tokens) == 0 {
		return nil, errors.New("the file holds no token; put one on a line of its own (make one with `openssl rand -hex 32`)")
	}
	return tokens, nil
}
