//go:build bench

// The bench tag keeps this program out of `go install ./...`, which the
// pre-commit hook runs in a clone: only skillpack goes into a user's PATH.

// Command mcpload loads an MCP server's skills over stateless streamable
// HTTP at protocol 2026-07-28, from C clients at once for a while, and
// prints one line: requests, requests/s, p50 and p99 latency, errors.
//
//	go run -tags bench ./bench/mcpload -url URL -method list|read -c 10 -d 10s
//
// list walks skills/list, page after page, again and again; read reads
// every file of every skill with resources/read, in turn (each client
// starting elsewhere). Each client keeps one connection. A request counts
// as an error unless it is answered 200 with a result. bench/mcp.sh runs it
// against skillpack serve and the official TypeScript SDK's server.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/skillpack/skillpack/layout"
)

func main() {
	url := flag.String("url", "", "the MCP endpoint")
	method := flag.String("method", "list", "list (skills/list, every page) or read (resources/read of every file)")
	clients := flag.Int("c", 10, "clients at once")
	dur := flag.Duration("d", 10*time.Second, "how long to load")
	flag.Parse()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *clients, MaxConnsPerHost: *clients}, Timeout: 30 * time.Second}
	l := &loader{url: *url, hc: hc}
	uris, err := l.files()
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpload:", err)
		os.Exit(1)
	}
	var (
		mu     sync.Mutex
		lat    []time.Duration
		errors int
		wg     sync.WaitGroup
	)
	end := time.Now().Add(*dur)
	for w := range *clients {
		wg.Go(func() {
			var mine []time.Duration
			bad, cursor := 0, ""
			for i := w * len(uris) / *clients; time.Now().Before(end); i++ {
				start := time.Now()
				var res result
				var err error
				if *method == "list" {
					res, err = l.call("skills/list", "", map[string]any{"cursor": cursor})
					cursor = res.NextCursor
				} else {
					uri := uris[i%len(uris)]
					res, err = l.call("resources/read", uri, map[string]any{"uri": uri})
				}
				mine = append(mine, time.Since(start))
				if err != nil {
					if bad++; bad == 1 && w == 0 {
						fmt.Fprintln(os.Stderr, "mcpload:", err)
					}
				}
			}
			mu.Lock()
			lat, errors = append(lat, mine...), errors+bad
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	fmt.Printf("requests %d req/s %.0f p50 %.2fms p99 %.2fms errors %d\n",
		len(lat), float64(len(lat))/dur.Seconds(), q(0.50), q(0.99), errors)
}

type loader struct {
	url string
	hc  *http.Client
}

// result is a page of skills/list (its skills are mcp/skills.json's
// entries) or a resources/read result, whose contents are not looked at.
type result struct {
	NextCursor string            `json:"nextCursor"`
	Skills     []layout.SkillMCP `json:"skills"`
}

// files walks skills/list once and returns the URI of every file.
func (l *loader) files() ([]string, error) {
	var uris []string
	cursor := ""
	for {
		res, err := l.call("skills/list", "", map[string]any{"cursor": cursor})
		if err != nil {
			return nil, err
		}
		for _, s := range res.Skills {
			for _, r := range s.Resources {
				uris = append(uris, r.URI)
			}
		}
		if cursor = res.NextCursor; cursor == "" {
			return uris, nil
		}
	}
}

// call sends one request of protocol 2026-07-28, with the headers SEP-2243
// asks for, and decodes its result from a JSON or an event-stream body.
func (l *loader) call(method, name string, params map[string]any) (result, error) {
	if params["cursor"] == "" {
		delete(params, "cursor")
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest("POST", l.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := l.hc.Do(req)
	if err != nil {
		return result{}, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return result{}, err
	}
	for line := range bytes.Lines(data) { // an event stream: its data
		if msg, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			data = msg
		}
	}
	var msg struct {
		Result *result
		Error  any
	}
	if err := json.Unmarshal(data, &msg); err != nil || resp.StatusCode != 200 || msg.Result == nil {
		return result{}, fmt.Errorf("%s %s: %d %.200s", method, name, resp.StatusCode, data)
	}
	return *msg.Result, nil
}
