package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTimeout bounds how long ServeStdio keeps answering after its input
// ends.
var drainTimeout = 10 * time.Second

// maxInFlight bounds the requests passed on to the SDK and not yet
// answered. The SDK holds every request it is given until it is answered,
// so a client that writes faster than the answers go out (200,000 piped
// requests took 1 GB) waits in its own pipe instead of in serve's memory.
// Each answer held costs up to four times its file (a host that stopped
// reading, asking for a 5 MB file: 64 held took 0.7-1.2 GB, 16 take 364
// MB), and 16 answered 40,000 piped reads as fast as 64 did (timed by
// hand, twice each: 6.6 and 6.6 s, 7.2 and 8.0 s); a listen stream holds
// one for as long as it lasts.
const maxInFlight = 16

// ServeStdio serves MCP over newline-delimited JSON-RPC on in and out
// until in ends or ctx is cancelled. Lines pass through a guard. The SDK
// ends the session at the first line that is not a JSON-RPC message, so
// the guard answers such a line itself, with a parse error (-32700) or an
// invalid request (-32600). And the SDK drops requests still running when
// its input ends, so the guard holds the end back until every request is
// answered (or drainTimeout passes): `serve --stdio < requests` answers all.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	g := &guard{out: out, pending: map[string]int{}, max: int(s.opts.maxBodyBytes)}
	g.idle = sync.NewCond(&g.mu)
	pr, pw := io.Pipe()
	defer pr.Close() // stops the guard at its next line
	go g.copy(ctx, in, pw)
	t := &mcp.IOTransport{Reader: pr, Writer: g, MaxLineLength: g.max + 1}
	err := s.mcp.Run(ctx, t)
	g.end()
	// A client that closes both ends at once leaves the last answer (a
	// listen stream's end) nowhere to go: the session is over all the same.
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE) {
		return nil
	}
	return err
}

// guard sits between the client and the SDK: it filters incoming lines,
// and it is the SDK's writer, to see each response go out. The SDK writes
// a message a Write, so the lock per Write keeps the guard's own replies
// from splitting a line.
type guard struct {
	out      io.Writer
	max      int
	mu       sync.Mutex
	idle     *sync.Cond     // signalled when a request is answered or the session ends
	pending  map[string]int // ids of requests passed on and not yet answered
	inflight int            // the sum of pending
	closed   bool

	initialized bool // an initialize was passed on; only copy reads it
}

func (g *guard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	resp := sdkResponse(p)
	if fixed := withCode(resp); fixed != nil {
		p = fixed
	}
	n, err := g.out.Write(p)
	if id, ok := responseID(resp); ok && g.pending[id] > 0 {
		g.inflight--
		if g.pending[id]--; g.pending[id] == 0 {
			delete(g.pending, id)
		}
		g.idle.Broadcast()
	}
	return n, err
}

func (g *guard) Close() error { return nil }

// copy passes good lines from in to sdk and answers bad ones itself.
func (g *guard) copy(ctx context.Context, in io.Reader, sdk *io.PipeWriter) {
	r := bufio.NewReader(in)
	for {
		line, long, err := readLine(r, g.max)
		if len(bytes.TrimSpace(line)) > 0 || long {
			if msg, reply := admit(line, long, g.max); reply != nil {
				g.Write(reply)
			} else if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && !g.opened(req) {
				g.Write(errorReply(req.ID.Raw(), jsonrpc.CodeInvalidParams, "invalid params: no protocol version: a request of protocol 2026-07-28 names it in params._meta[\""+mcp.MetaKeyProtocolVersion+"\"]; a client of an earlier version sends initialize first"))
			} else {
				dup := false
				if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
					g.mu.Lock()
					for g.inflight >= maxInFlight && !g.closed {
						g.idle.Wait()
					}
					id := fmt.Sprint(req.ID.Raw())
					if dup = g.pending[id] > 0; dup {
						// The SDK drops it without a word, and the client
						// waits for ever. Not g.Write: the answer pending
						// under this id is still owed.
						raw, _ := json.Marshal(req.ID.Raw())
						g.out.Write(errorReply(req.ID.Raw(), jsonrpc.CodeInvalidRequest, "invalid request: the id "+string(raw)+
							" is a request's not yet answered; a request's id is not used twice in a session (MCP)"))
					} else {
						g.pending[id]++
						g.inflight++
					}
					g.mu.Unlock()
				}
				if !dup {
					if _, werr := sdk.Write(append(line, '\n')); werr != nil {
						return
					}
				}
			}
		}
		if err != nil {
			g.drain(ctx)
			if err == io.EOF {
				err = nil
			}
			sdk.CloseWithError(err)
			return
		}
	}
}

// opened reports whether a request may reach the SDK: it names its
// protocol version in _meta (2026-07-28, which has no initialize), or it
// is initialize or ping, or initialize came before it. The SDK answers
// any other with an error of code 0, which no client can act on.
func (g *guard) opened(req *jsonrpc.Request) bool {
	switch {
	case g.initialized || req.Method == "ping":
		return true
	case req.Method == "initialize":
		g.initialized = true
		return true
	}
	var p struct {
		Meta struct {
			Version json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"` // mcp.MetaKeyProtocolVersion
		} `json:"_meta"`
	}
	json.Unmarshal(req.Params, &p)
	return p.Meta.Version != nil
}

// drain waits until every passed-on request is answered, the session
// ends, ctx is cancelled, or drainTimeout passes.
func (g *guard) drain(ctx context.Context) {
	defer context.AfterFunc(ctx, g.end)()
	defer time.AfterFunc(drainTimeout, g.end).Stop()
	g.mu.Lock()
	for g.inflight > 0 && !g.closed {
		g.idle.Wait()
	}
	g.mu.Unlock()
}

// end stops every wait for answers: the session is over.
func (g *guard) end() {
	g.mu.Lock()
	g.closed = true
	g.idle.Broadcast()
	g.mu.Unlock()
}

// readLine reads one line without its newline. A line longer than max is
// read to its end and dropped, so memory stays bounded; long reports it.
func readLine(r *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > max+1 { // +1: the newline
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), long, err
	}
}

// admit reads a line as the one JSON-RPC message the SDK can take, or
// returns the error reply to it.
func admit(line []byte, long bool, max int) (jsonrpc.Message, []byte) {
	switch {
	case long:
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: message longer than %d bytes", max))
	case !json.Valid(line):
		return nil, errorReply(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
	case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
		// The SDK ends the session at a batch; MCP dropped JSON-RPC
		// batches in protocol version 2025-06-18.
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported (MCP removed them in 2025-06-18); send one message per line")
	}
	if reply := oddID(line); reply != nil {
		return nil, reply
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return msg, nil
}

// oddID is the error reply to a message whose id is null, or a number the
// SDK would answer under another id, else nil: it reads a float64 and
// answers with its int64, so 1.5 as 1 and 2^64 as -2^63.
func oddID(msg []byte) []byte {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 || m.ID[0] == '"' {
		return nil
	}
	if m.ID[0] == 'n' { // JSON-RPC owes it an answer; the SDK takes it for a notification
		return errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: the id is null; a request's id is a string or an integer (MCP), and a notification has none")
	}
	if f, err := strconv.ParseFloat(string(m.ID), 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return nil
	}
	return errorReply(m.ID, jsonrpc.CodeInvalidRequest, "invalid request: the id "+string(m.ID)+" is not a string or an integer of at most 2^53")
}

// sdkResponse is the response the SDK wrote, if it wrote one: one message a
// Write (it writes no batches, and is given none); nil for another.
func sdkResponse(p []byte) *jsonrpc.Response {
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(p))
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		return resp
	}
	return nil
}

// responseID is the id of resp, if it has one.
func responseID(resp *jsonrpc.Response) (string, bool) {
	if resp != nil && resp.ID.IsValid() {
		return fmt.Sprint(resp.ID.Raw()), true
	}
	return "", false
}

// withCode is resp again with a JSON-RPC error code where the SDK's session
// gave code 0, which is none (a second initialize, a request before the
// handshake ends, initialize's params of the wrong type): invalid params
// when it could not read them, else invalid request; nil for any other.
func withCode(resp *jsonrpc.Response) []byte {
	var e *jsonrpc.Error
	if resp == nil || !errors.As(resp.Error, &e) || e.Code != 0 {
		return nil
	}
	code := int64(jsonrpc.CodeInvalidRequest)
	if strings.Contains(e.Message, "unmarshaling") {
		code = jsonrpc.CodeInvalidParams
	}
	return errorReply(resp.ID.Raw(), code, e.Message)
}

// errorReply is a JSON-RPC error response to the request with the given
// id; nil for a message that cannot be read, whose id cannot be known.
func errorReply(id any, code int64, msg string) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   any    `json:"error"`
	}{"2.0", id, struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return append(b, '\n')
}
