package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"
)

// FuzzStdio feeds arbitrary lines to the MCP stdio server after an
// initialize, then a ping: the server must answer only with well-formed
// JSON lines, return no error, take no more than a few seconds, and still
// answer the ping, whatever came before it.
func FuzzStdio(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"skills/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://a` + "\u007f" + `"}}`,
		`[{"jsonrpc":"2.0","id":8,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"uri":[[[[[]]]]]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/directory/read","params":{"uri":"skill://csv-profiler/","cursor":"!"}}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"last"}}`,
		"{not json\n\x00\xff",
	} {
		f.Add([]byte(seed))
	}
	s := New(open(f, pristine(f)), Options{maxBodyBytes: 64 << 10})
	drainTimeout = 200 * time.Millisecond
	f.Fuzz(func(t *testing.T, data []byte) {
		var in bytes.Buffer
		in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		in.Write(data)
		in.WriteString("\n" + `{"jsonrpc":"2.0","id":"last","method":"ping"}` + "\n")
		var out bytes.Buffer
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		began := time.Now()
		if err := s.ServeStdio(c, &in, &out); err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		if took := time.Since(began); took > 3*time.Second {
			t.Fatalf("the input took %v to serve", took)
		}
		answers := out.String()
		pinged := false
		lines := bufio.NewScanner(&out)
		lines.Buffer(nil, 4<<20)
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Fatalf("an answer is not a JSON object: %.200q", lines.Text())
			}
			if m["id"] == "last" && m["result"] != nil {
				pinged = true
			}
		}
		// A client may cancel the ping before it is sent; then it goes
		// unanswered, as it should.
		if !pinged && !bytes.Contains(data, []byte("notifications/cancelled")) {
			t.Fatalf("the ping after the input was not answered; output:\n%.2000s", answers)
		}
	})
}
