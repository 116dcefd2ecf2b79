// Package scratch is a temporary file of items, so that what a build
// keeps per skill (10,000 skills make tens of megabytes) is on disk, not
// in memory: added at once by the workers, then read at a spot or all in
// order. The file has no name, or none once open where the system allows,
// so a killed build leaves nothing behind.
package scratch

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sync"
)

// File is a temporary file of items (see the package comment).
type File struct {
	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	size  int64
	err   error // the first write error; every later Add and Seal returns it
	named bool  // the file still has its name, for Close to remove
}

// Spot is where an item is in a scratch file.
type Spot struct {
	off int64
	n   int32
}

// New makes the file in the system's temporary folder. On Linux it has
// no name at all; elsewhere, where an open file outlives its name (Unix),
// the name is removed at once, and where it does not, Close removes it.
func New() (*File, error) {
	f, err := unnamed(os.TempDir())
	named := false
	if err != nil {
		if f, err = os.CreateTemp("", "skillpack-*.scratch"); err != nil {
			return nil, fmt.Errorf("making a scratch file: %w", err)
		}
		named = os.Remove(f.Name()) != nil
	}
	return &File{f: f, w: bufio.NewWriterSize(f, 64<<10), named: named}, nil
}

// Add writes an item, after its length so that Scan can find it, and
// returns where it is.
func (s *File) Add(data []byte) (Spot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return Spot{}, s.err
	}
	var n [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(n[:], uint64(len(data)))
	s.w.Write(n[:k])
	if _, err := s.w.Write(data); err != nil {
		s.err = fmt.Errorf("writing the scratch file: %w", err)
		return Spot{}, s.err
	}
	at := Spot{off: s.size + int64(k), n: int32(len(data))}
	s.size += int64(k + len(data))
	return at, nil
}

// Seal flushes what was added, so that it can be read.
func (s *File) Seal() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		if err := s.w.Flush(); err != nil {
			s.err = fmt.Errorf("writing the scratch file: %w", err)
		}
	}
	return s.err
}

// Read calls fn with the item at a spot; Seal must have been called. The
// bytes are fn's only until it returns: they are read into a pooled
// buffer, as a build reads each item once per document, and a buffer per
// read was a tenth of its garbage.
func (s *File) Read(at Spot, fn func([]byte) error) error {
	buf := readBufs.Get().(*[]byte)
	defer readBufs.Put(buf)
	if cap(*buf) < int(at.n) {
		*buf = make([]byte, at.n)
	}
	data := (*buf)[:at.n]
	if _, err := s.f.ReadAt(data, at.off); err != nil {
		return fmt.Errorf("reading the scratch file: %w", err)
	}
	return fn(data)
}

var readBufs = sync.Pool{New: func() any { return new([]byte) }}

// Scan calls fn with every item in the order added, until fn returns
// false; Seal must have been called. The bytes are fn's only until it
// returns.
func (s *File) Scan(fn func([]byte) bool) error {
	r := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, s.size), 64<<10)
	var buf []byte
	for {
		n, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the scratch file: %w", err)
		}
		if uint64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return fmt.Errorf("reading the scratch file: %w", err)
		}
		if !fn(buf) {
			return nil
		}
	}
}

// Close closes and removes the file.
func (s *File) Close() {
	if s == nil {
		return
	}
	s.f.Close()
	if s.named {
		os.Remove(s.f.Name())
	}
}
