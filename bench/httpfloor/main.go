//go:build bench

// The bench tag keeps this program out of `go install ./...`, which the
// pre-commit hook runs in a clone: only skillpack goes into a user's PATH.

// Command httpfloor is the serve benchmark's floor: the least a Go HTTP/1.1
// server can do to answer a GET of one file. It holds one body in memory
// and answers every request on a connection with it, after the header
// block it is given (a server's real headers, captured by the script, so
// that the same bytes go out) and a Date; it parses nothing but where a
// request head ends, sets no deadline and logs nothing.
//
//	go run -tags bench ./bench/httpfloor -addr 127.0.0.1:8080 -headers H -body B
//
// A server that matches it on a cell has nothing left to remove on that
// cell: what remains is Go's runtime and the machine (bench/serve_floor.sh).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

func run(args []string, stderr io.Writer) int {
	flags := flag.NewFlagSet("httpfloor", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", "127.0.0.1:0", "address to listen on")
	headers := flags.String("headers", "", "a file of response headers, one per line, as curl -D writes them (its status line, Date and Content-Length are replaced)")
	bodyFile := flags.String("body", "", "the file every request is answered with")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *bodyFile == "" || flags.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: httpfloor -addr HOST:PORT -body FILE [-headers FILE]")
		return 2
	}
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		fmt.Fprintln(stderr, "httpfloor:", err)
		return 1
	}
	head := "HTTP/1.1 200 OK\r\n"
	if *headers != "" {
		data, err := os.ReadFile(*headers)
		if err != nil {
			fmt.Fprintln(stderr, "httpfloor:", err)
			return 1
		}
		for line := range strings.Lines(string(data)) {
			line = strings.TrimRight(line, "\r\n")
			name, _, ok := strings.Cut(line, ":")
			if !ok || strings.EqualFold(name, "Date") || strings.EqualFold(name, "Content-Length") {
				continue // the status line, the blank line, and what is written here
			}
			head += line + "\r\n"
		}
	}
	head += fmt.Sprintf("Content-Length: %d\r\n", len(body))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "httpfloor:", err)
		return 1
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(stderr, "httpfloor:", err)
			return 1
		}
		go serve(c, []byte(head), body)
	}
}

// serve answers each request head on c with head, a Date and body.
func serve(c net.Conn, head, body []byte) {
	defer c.Close()
	br := bufio.NewReaderSize(c, 4<<10)
	out := make([]byte, 0, len(head)+64)
	var vec [2][]byte
	var bufs net.Buffers
	for {
		for {
			buf, _ := br.Peek(br.Buffered())
			if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
				br.Discard(i + 4)
				break
			}
			if len(buf) == br.Size() {
				return // a head longer than the buffer: not a benchmark's
			}
			if _, err := br.Peek(len(buf) + 1); err != nil {
				return
			}
		}
		out = append(append(out[:0], head...), "Date: "...)
		out = append(time.Now().UTC().AppendFormat(out, http.TimeFormat), "\r\n\r\n"...)
		vec = [2][]byte{out, body}
		bufs = vec[:]
		if _, err := bufs.WriteTo(c); err != nil {
			return
		}
	}
}
